/**
 * What bin/toolgate.js runs first for a hook in the installed package: hands
 * the call to the decider, or says it must be decided here. Bundled on its own
 * (dist/hook/hook-client.cjs, scripts/bundle-hook.ts): the fast path loads
 * nothing else.
 *
 * @example
 * const outcome = await hookThroughDecider({ argv: ['hook', 'claude-code'], bundle, bin });
 * if (!outcome.answered) await runHookProcess(argv, { afterAnswer: outcome.startDecider });
 */
import path from 'node:path';
import { askDecider, deciderAddress, PROBE_ENVIRONMENT, startDecider } from './hook-decider-client.ts';
import { exitAsHook } from './exit-as-hook.ts';

/** Answered by the decider (this returns only if not: the process has exited with its answer otherwise). */
export async function hookThroughDecider(options: { argv: string[]; bundle: string; bin: string }): Promise<{ startDecider: () => void }> {
  const address = deciderAddress({ env: process.env, bundle: options.bundle });
  const noDecider = { startDecider: () => {} };
  if (address === undefined) return noDecider;
  const cwd = process.cwd();
  const argv0 = process.argv0.includes('/') ? path.resolve(cwd, process.argv0) : process.argv0;
  const outcome = await askDecider({ address, argv: options.argv, cwd, env: process.env, argv0, stdin: process.stdin });
  if (outcome.answered) {
    process.stdout.write(outcome.stdout);
    process.stderr.write(outcome.stderr);
    return exitAsHook(outcome.exitCode);
  }
  // toolgate install and doctor run the hook once to see it work: a probe leaves no process behind.
  if (process.env[PROBE_ENVIRONMENT] === '1') return noDecider;
  return { startDecider: () => startDecider({ address, bin: options.bin, env: process.env }) };
}
