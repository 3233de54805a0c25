import { BWRAP_INSTALL_HINT, detectSandbox } from '../src/sandbox/detect-sandbox.ts';

/**
 * The OS sandbox tests run commands in a real bubblewrap sandbox and must not
 * be skipped silently: without a working bwrap they fail here, saying what
 * to install (npm test runs scripts/ensure-test-packages.ts, which does it
 * when it can).
 */
export async function requireWorkingBwrap(): Promise<void> {
  const detection = await detectSandbox();
  if (detection.available && detection.kind === 'bwrap') return;
  throw new Error(
    `These tests need a working bubblewrap sandbox and there is none: ${detection.reason ?? 'unknown reason'}.\n` +
      `To run them, ${BWRAP_INSTALL_HINT}; npm test installs it (scripts/ensure-test-packages.ts) when run as root.`,
  );
}
