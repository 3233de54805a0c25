import { readFile } from 'node:fs/promises';
import { createBwrapWrapper } from './bwrap-sandbox.ts';
import { deriveSandboxProfile } from './derive-sandbox-profile.ts';
import { findExecutable } from './find-executable.ts';
import { runCommand, type CommandResult, type RunCommandOptions } from './run-command.ts';

export type SandboxKind = 'bwrap' | 'seatbelt' | 'none';

/** Kernel settings that decide whether bwrap can create its user namespace. */
export interface UserNamespaceSettings {
  /** `user.max_user_namespaces`: 0 disables them. */
  maxUserNamespaces?: number;
  /** Debian/Ubuntu `kernel.unprivileged_userns_clone`: 0 disables them for non-root. */
  unprivilegedUsernsClone?: number;
  /** Ubuntu 24.04+ `kernel.apparmor_restrict_unprivileged_userns`: 1 strips capabilities in them. */
  apparmorRestrictUnprivilegedUserns?: number;
}

export interface SandboxDetails {
  platform: NodeJS.Platform;
  bwrapPath?: string;
  bwrapVersion?: string;
  userNamespaces?: UserNamespaceSettings;
  /** What the trial sandbox did. */
  probe?: { exitCode: number | null; stderr: string; stdout: string };
  sandboxExecPath?: string;
  /** What to install or change to get a sandbox, when there is none. */
  fix?: string;
}

export interface SandboxDetection {
  available: boolean;
  kind: SandboxKind;
  /** Why no sandbox is available, in a sentence a person can act on. */
  reason?: string;
  details: SandboxDetails;
}

export interface DetectSandboxOptions {
  platform?: NodeJS.Platform;
  /** Where PATH comes from (default `process.env`). */
  environment?: NodeJS.ProcessEnv;
  /** Runs the probes; tests inject a fake. Default `runCommand`. */
  run?: (options: RunCommandOptions) => Promise<CommandResult>;
  /** Reads `/proc/sys/...` settings; tests inject them. */
  readKernelSetting?: (file: string) => Promise<string | undefined>;
  signal?: AbortSignal;
  /** Per probe (default 10s). */
  timeoutMs?: number;
}

export const BWRAP_INSTALL_HINT =
  'install bubblewrap: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch), apk add bubblewrap (Alpine)';

const PROBE_MARKER = 'toolgate-sandbox-ok';

/**
 * Finds out whether an OS sandbox really works here, by starting one: on
 * Linux a trivial command runs through `wrapWithBwrap` with exactly the flags
 * real commands get, and must report that `/usr` is read-only inside. bwrap
 * can be missing, too old for a flag (`--disable-userns` needs 0.8), or
 * unable to create a user namespace (disabled by the kernel, by AppArmor, or
 * inside a container without the capability): each gives a reason that says
 * what to do. On macOS `sandbox-exec` is tried with a trivial profile.
 * Never throws.
 *
 * @example
 * const detection = await detectSandbox();
 * if (!detection.available) console.error(`no OS sandbox: ${detection.reason}`);
 */
export async function detectSandbox(options: DetectSandboxOptions = {}): Promise<SandboxDetection> {
  const platform = options.platform ?? process.platform;
  if (platform === 'linux') return detectBwrap({ ...options, platform });
  if (platform === 'darwin') return detectSeatbelt({ ...options, platform });
  return {
    available: false,
    kind: 'none',
    reason: `no OS sandbox is supported on ${platform} (toolgate uses bubblewrap on Linux and sandbox-exec on macOS)`,
    details: { platform, fix: 'run toolgate on Linux with bubblewrap, or on macOS' },
  };
}

async function detectBwrap(options: DetectSandboxOptions & { platform: NodeJS.Platform }): Promise<SandboxDetection> {
  const run = options.run ?? runCommand;
  const environment = options.environment ?? process.env;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const details: SandboxDetails = { platform: options.platform, userNamespaces: await readUserNamespaceSettings(options.readKernelSetting ?? readProcFile) };
  const bwrapPath = findExecutable({ name: 'bwrap', searchPath: environment.PATH });
  if (bwrapPath === undefined) {
    return { available: false, kind: 'bwrap', reason: `bwrap (bubblewrap) is not installed or not on PATH: ${BWRAP_INSTALL_HINT}`, details: { ...details, fix: BWRAP_INSTALL_HINT } };
  }
  details.bwrapPath = bwrapPath;
  const version = await run({ command: bwrapPath, args: ['--version'], env: { PATH: environment.PATH ?? '' }, timeoutMs, signal: options.signal });
  const versionText = version.stdout.trim();
  if (versionText !== '') details.bwrapVersion = versionText.replace(/^bubblewrap\s+/, '');

  const profile = deriveSandboxProfile({ zones: [], network: false, homeDirectory: '' });
  const wrapped = createBwrapWrapper({ profile, bwrapPath, environment: {} })({ command: '/bin/sh', args: ['-c', `test ! -w /usr && echo ${PROBE_MARKER}`], cwd: '/tmp' });
  const probe = await run({ ...wrapped, env: { PATH: environment.PATH ?? '' }, timeoutMs, signal: options.signal });
  details.probe = { exitCode: probe.exitCode, stderr: probe.stderr.trim(), stdout: probe.stdout.trim() };
  if (probe.exitCode === 0 && probe.stdout.includes(PROBE_MARKER)) return { available: true, kind: 'bwrap', details };

  const why = probe.spawnError ?? (probe.timedOut ? 'timed out' : probe.stderr.trim() || `exit code ${probe.exitCode ?? probe.signal}`);
  const fix = explainBwrapFailure({ stderr: probe.stderr, settings: details.userNamespaces ?? {}, version: details.bwrapVersion });
  return { available: false, kind: 'bwrap', reason: `bwrap is installed (${bwrapPath}) but could not start a sandbox: ${why}; ${fix}`, details: { ...details, fix } };
}

function explainBwrapFailure(options: { stderr: string; settings: UserNamespaceSettings; version: string | undefined }): string {
  const { stderr, settings } = options;
  if (/Unknown option|unrecognized option/i.test(stderr)) {
    return `this bubblewrap (${options.version ?? 'unknown version'}) is too old for the flags toolgate needs (--disable-userns, 0.8 or later): upgrade bubblewrap`;
  }
  if (settings.maxUserNamespaces === 0) return 'user namespaces are disabled (user.max_user_namespaces = 0): sysctl -w user.max_user_namespaces=15000';
  if (settings.unprivilegedUsernsClone === 0) return 'unprivileged user namespaces are disabled: sysctl -w kernel.unprivileged_userns_clone=1';
  if (settings.apparmorRestrictUnprivilegedUserns === 1) {
    return 'AppArmor restricts unprivileged user namespaces (Ubuntu 24.04+): sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or add an AppArmor profile for bwrap';
  }
  if (/Operation not permitted|setting up uid map|Permission denied/i.test(stderr)) {
    return 'creating the user namespace was refused: inside a container, allow user namespaces (e.g. Docker --security-opt seccomp=unconfined, or a capability set that includes CAP_SETFCAP for a root caller)';
  }
  return 'run the bwrap command above by hand to see why';
}

async function readUserNamespaceSettings(read: (file: string) => Promise<string | undefined>): Promise<UserNamespaceSettings> {
  const settings: UserNamespaceSettings = {};
  const number = async (file: string): Promise<number | undefined> => {
    const text = await read(file);
    const value = text === undefined ? Number.NaN : Number(text.trim());
    return Number.isFinite(value) ? value : undefined;
  };
  const max = await number('/proc/sys/user/max_user_namespaces');
  if (max !== undefined) settings.maxUserNamespaces = max;
  const clone = await number('/proc/sys/kernel/unprivileged_userns_clone');
  if (clone !== undefined) settings.unprivilegedUsernsClone = clone;
  const apparmor = await number('/proc/sys/kernel/apparmor_restrict_unprivileged_userns');
  if (apparmor !== undefined) settings.apparmorRestrictUnprivilegedUserns = apparmor;
  return settings;
}

async function readProcFile(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

async function detectSeatbelt(options: DetectSandboxOptions & { platform: NodeJS.Platform }): Promise<SandboxDetection> {
  const run = options.run ?? runCommand;
  const details: SandboxDetails = { platform: options.platform };
  const sandboxExecPath = findExecutable({ name: '/usr/bin/sandbox-exec', searchPath: undefined });
  if (sandboxExecPath === undefined) {
    const fix = 'sandbox-exec ships with macOS at /usr/bin/sandbox-exec; it is missing or not executable here';
    return { available: false, kind: 'seatbelt', reason: fix, details: { ...details, fix } };
  }
  details.sandboxExecPath = sandboxExecPath;
  const probe = await run({ command: sandboxExecPath, args: ['-p', '(version 1)(allow default)', '/usr/bin/true'], timeoutMs: options.timeoutMs ?? 10_000, signal: options.signal });
  details.probe = { exitCode: probe.exitCode, stderr: probe.stderr.trim(), stdout: probe.stdout.trim() };
  if (probe.exitCode === 0) return { available: true, kind: 'seatbelt', details };
  const why = probe.spawnError ?? (probe.stderr.trim() || `exit code ${probe.exitCode ?? probe.signal}`);
  const fix = 'sandbox-exec could not apply a profile (already inside a sandbox?)';
  return { available: false, kind: 'seatbelt', reason: `sandbox-exec could not start a sandbox: ${why}; ${fix}`, details: { ...details, fix } };
}
