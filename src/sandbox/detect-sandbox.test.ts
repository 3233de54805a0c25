import { describe, expect, it } from 'vitest';
import { detectSandbox } from './detect-sandbox.ts';
import type { CommandResult, RunCommandOptions } from './run-command.ts';

function fakeRun(probe: Partial<CommandResult>): (options: RunCommandOptions) => Promise<CommandResult> {
  return async (options) => {
    if (options.args[0] === '--version') return { exitCode: 0, signal: null, stdout: 'bubblewrap 0.4.0\n', stderr: '', timedOut: false, aborted: false };
    return { exitCode: 1, signal: null, stdout: '', stderr: '', timedOut: false, aborted: false, ...probe };
  };
}

describe('detectSandbox', () => {
  it('really starts a bwrap sandbox here', async () => {
    const detection = await detectSandbox();
    expect(detection, detection.reason).toMatchObject({ available: true, kind: 'bwrap' });
    expect(detection.details.bwrapPath).toMatch(/bwrap$/);
    expect(detection.details.bwrapVersion).toMatch(/^\d+\.\d+/);
    expect(detection.details.probe).toMatchObject({ exitCode: 0, stdout: 'toolgate-sandbox-ok' });
  });

  it('says to install bubblewrap when bwrap is not on PATH', async () => {
    const detection = await detectSandbox({ platform: 'linux', environment: { PATH: '/nonexistent' } });
    expect(detection.available).toBe(false);
    expect(detection.kind).toBe('bwrap');
    expect(detection.reason).toMatch(/not installed.*apt-get install bubblewrap/);
  });

  it('reports a bwrap too old for the flags it needs', async () => {
    const detection = await detectSandbox({ platform: 'linux', run: fakeRun({ stderr: 'bwrap: Unknown option --disable-userns' }) });
    expect(detection.available).toBe(false);
    expect(detection.reason).toMatch(/too old.*upgrade bubblewrap/);
    expect(detection.details.bwrapVersion).toBe('0.4.0');
  });

  it('explains disabled user namespaces', async () => {
    const failing = fakeRun({ stderr: 'bwrap: setting up uid map: Permission denied' });
    const disabled = await detectSandbox({ platform: 'linux', run: failing, readKernelSetting: async (file) => (file.endsWith('max_user_namespaces') ? '0\n' : undefined) });
    expect(disabled.reason).toMatch(/could not start a sandbox: bwrap: setting up uid map: Permission denied; user namespaces are disabled/);
    const apparmor = await detectSandbox({ platform: 'linux', run: failing, readKernelSetting: async (file) => (file.endsWith('apparmor_restrict_unprivileged_userns') ? '1' : undefined) });
    expect(apparmor.reason).toMatch(/AppArmor restricts unprivileged user namespaces/);
    expect(apparmor.details.userNamespaces).toEqual({ apparmorRestrictUnprivilegedUserns: 1 });
  });

  it('does not trust a probe that exits 0 without proving /usr is read-only', async () => {
    const detection = await detectSandbox({ platform: 'linux', run: fakeRun({ exitCode: 0, stdout: '' }) });
    expect(detection.available).toBe(false);
  });

  it('has no sandbox on other platforms, and looks for sandbox-exec on macOS', async () => {
    expect(await detectSandbox({ platform: 'win32' })).toMatchObject({ available: false, kind: 'none' });
    const mac = await detectSandbox({ platform: 'darwin' });
    expect(mac).toMatchObject({ available: false, kind: 'seatbelt' });
    expect(mac.reason).toMatch(/sandbox-exec/);
  });
});
