/**
 * The Linux OS sandbox: bubblewrap, driven directly.
 *
 * Why not `@anthropic-ai/sandbox-runtime` (srt), which wraps bwrap + seccomp
 * + a filtering network proxy? It was read (README, dist, source) and tried
 * here, and it does not fit toolgate's "derived from the policy, never
 * weaker" rule:
 * - Reads are deny-listed: it starts from `--ro-bind / /`, so the whole host
 *   (home, `/root`, `~/.ssh` unless denied by name, `/etc/npmrc`, other
 *   projects) is readable by default. Tried: `cat /root/.gitconfig` worked.
 *   toolgate's policy is an allow-list (zones), so reads must be too.
 * - Some host paths are always writable whatever the config says
 *   (`getDefaultWritePaths`: `/tmp/claude`, `~/.npm/_logs`, `~/.claude/debug`).
 *   Tried: a sandboxed `touch ~/.npm/_logs/x` created the file on the host.
 *   toolgate's rule is "nothing outside rw zones is writable".
 * - The environment is passed through (API keys in env vars reach the
 *   command); toolgate clears it to an allow-list.
 * - It returns early with the bare, unwrapped command when it thinks no
 *   restriction is needed, and it is a process-wide singleton
 *   (`SandboxManager.initialize`) that creates mount-point files on the host
 *   to be cleaned up per command: a poor fit for a pure
 *   `({command, args, cwd}) => {command, args}` wrapper that fails closed.
 * What it has that this file does not: a per-domain network filter (its HTTP
 *  and SOCKS proxies) and a seccomp filter against new AF_UNIX sockets. Here a
 * domain allow-list (`shell.network: {allow_domains}`) therefore becomes *no*
 * network inside the sandbox — stricter than the policy, which the invariant
 * allows, and `toolgate doctor` says so.
 *
 * What the sandbox gets (see `deriveSandboxProfile` for the profile):
 * - every namespace unshared (`--unshare-all`: user, ipc, pid, net, uts,
 *   cgroup), `--share-net` only when the policy enables the whole network;
 *   no further user namespaces inside (`--disable-userns`); all capabilities
 *   dropped (bwrap keeps them for a root caller otherwise, and a root command
 *   with CAP_SYS_ADMIN could remount its read-only binds);
 * - `--new-session` (a command cannot push keystrokes into the caller's
 *   terminal with TIOCSTI), `--die-with-parent`;
 * - a read-only skeleton root holding only: the system paths, the zones (rw or
 *   ro per their mode), a fresh tmpfs `/tmp`, a new `/proc` and a minimal
 *   `/dev`; hidden paths are masked (empty read-only tmpfs or `/dev/null`),
 *   and the directories between a rw zone and a masked or read-only path
 *   inside it are pinned (made mount points) so they cannot be renamed away;
 * - an environment cleared to `SAFE_ENVIRONMENT_NAMES` plus a fixed `PATH`.
 * Known limits: no seccomp filter; with the network enabled the command
 * shares the host's network namespace, loopback services and abstract unix
 * sockets included (that is what `shell.network: true` grants).
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { accessOf, isSameOrInside, normalizeSandboxPath, pathDepth, type SandboxProfile } from './sandbox-profile.ts';

/** Variables passed into the sandbox (when set); everything else is dropped, secrets in env vars included. */
export const SAFE_ENVIRONMENT_NAMES: readonly string[] = [
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'TZ',
  'USER',
  'LOGNAME',
];

/** The PATH inside the sandbox: only system directories, which are read-only there. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The shape of the shell tool's `wrapCommand` option. */
export interface WrappedCommand {
  command: string;
  args: string[];
}

/** What is at a path on the host, as the wrapper needs to know it. */
/**
 * What is at a host path. `resolved` is where it really is: for a directory
 * or file, set only when a symlink on the way leads elsewhere.
 */
export type HostPathKind =
  | { kind: 'missing' }
  | { kind: 'directory'; resolved?: string }
  | { kind: 'file'; resolved?: string }
  | { kind: 'symlink'; target: string; resolved: string | undefined };

export interface WrapWithBwrapOptions {
  profile: SandboxProfile;
  command: string;
  args: readonly string[];
  /** The working directory inside the sandbox: it must be visible there (inside a zone, or the private /tmp). */
  cwd: string;
  /** Where the allow-listed variables' values come from (default `process.env`). */
  environment?: NodeJS.ProcessEnv;
  /** Variables to set inside the sandbox on purpose (after the allow-list). */
  setEnvironment?: Record<string, string>;
  /** The bwrap program (default `bwrap`, found on PATH). */
  bwrapPath?: string;
  /** How to look at host paths (tests inject it); default `lstat`. */
  inspectPath?: (absolute: string) => HostPathKind;
}

/**
 * The bwrap command line that runs `command args` inside the sandbox the
 * profile describes. Synchronous and side-effect free on the host (it only
 * `lstat`s paths to know what to mount how); run the result with `runCommand`
 * or the shell tool, asynchronously. Throws `SANDBOX_PROFILE_INVALID` when
 * `cwd` would not exist inside the sandbox.
 *
 * @example
 * const { command, args } = wrapWithBwrap({ profile, command: 'sh', args: ['-c', 'make test'], cwd: '/home/me/ws' });
 * // command === 'bwrap'; args end with ['--chdir', '/home/me/ws', '--', 'sh', '-c', 'make test']
 */
export function wrapWithBwrap(options: WrapWithBwrapOptions): WrappedCommand {
  const { profile } = options;
  const inspect = options.inspectPath ?? inspectHostPath;
  const cwd = normalizeSandboxPath(options.cwd);
  const inPrivateTemporary = profile.privateTemporaryDirectory && isSameOrInside(cwd, '/tmp');
  if (accessOf(profile, cwd).access === 'none' && !inPrivateTemporary) {
    throw new ToolgateError({
      code: 'SANDBOX_PROFILE_INVALID',
      message: `the working directory ${cwd} is not visible inside the sandbox: run the command from inside a zone`,
    });
  }

  const args: string[] = ['--unshare-all'];
  if (profile.network.mode === 'all') args.push('--share-net');
  args.push('--unshare-user', '--disable-userns', '--cap-drop', 'ALL', '--die-with-parent', '--new-session');
  args.push(...environmentArguments(options, profile));
  args.push(...mountArguments(profile, inspect));
  args.push('--chdir', cwd, '--', options.command, ...options.args);
  return { command: options.bwrapPath ?? 'bwrap', args };
}

/**
 * A `wrapCommand` for `runShellCommand` that runs every command through
 * `wrapWithBwrap` with this one profile. The shell tool does not use it: it
 * makes a profile per call (`createShellTool`'s `sandbox` option).
 *
 * @example
 * await runShellCommand({ command: 'make', cwd, timeoutMs, maxOutputBytes, wrapCommand: createBwrapWrapper({ profile }) });
 */
export function createBwrapWrapper(options: Omit<WrapWithBwrapOptions, 'command' | 'args' | 'cwd'>): (input: { command: string; args: readonly string[]; cwd: string }) => WrappedCommand {
  return (input) => wrapWithBwrap({ ...options, ...input });
}

function environmentArguments(options: WrapWithBwrapOptions, profile: SandboxProfile): string[] {
  const source = options.environment ?? process.env;
  const values = new Map<string, string>();
  for (const name of SAFE_ENVIRONMENT_NAMES) {
    const value = source[name];
    if (value !== undefined) values.set(name, value);
  }
  values.set('PATH', SANDBOX_PATH);
  // HOME must point somewhere that exists inside; the real one only when a zone shows it.
  const home = source.HOME;
  const homeVisible = home !== undefined && path.isAbsolute(home) && accessOf(profile, home).access !== 'none';
  values.set('HOME', homeVisible ? home : '/tmp');
  values.set('TMPDIR', '/tmp');
  for (const [name, value] of Object.entries(options.setEnvironment ?? {})) values.set(name, value);
  const args = ['--clearenv'];
  for (const [name, value] of values) args.push('--setenv', name, value);
  return args;
}

interface MountStep {
  path: string;
  /** Tie-break at equal depth: later steps are mounted over earlier ones, so the most restrictive goes last. */
  rank: number;
  args: string[];
}

function mountArguments(profile: SandboxProfile, inspect: (absolute: string) => HostPathKind): string[] {
  const steps: MountStep[] = [];
  const visibleWithoutMasks: SandboxProfile = { ...profile, hidden: [] };
  const boundPaths = new Set([...profile.writable, ...profile.readOnly].map((rule) => rule.path));
  if (profile.privateTemporaryDirectory && !boundPaths.has('/tmp')) steps.push({ path: '/tmp', rank: 0, args: ['--tmpfs', '/tmp'] });
  for (const rule of profile.writable) {
    // bwrap cannot limit writes to file suffixes: such a zone is read-only in the sandbox (stricter, never weaker).
    const writable = rule.suffixes === undefined;
    steps.push({ path: rule.path, rank: writable ? 1 : 2, args: bindArguments({ rule: rule.path, writable, inspect, profile: visibleWithoutMasks }) });
  }
  for (const rule of profile.readOnly) {
    steps.push({ path: rule.path, rank: 2, args: bindArguments({ rule: rule.path, writable: false, inspect, profile: visibleWithoutMasks }) });
  }
  const maskedDirectories: string[] = [];
  const protectedPaths: string[] = [...profile.readOnly, ...profile.writable.filter((rule) => rule.suffixes !== undefined)].map((rule) => rule.path);
  for (const rule of profile.hidden) {
    if (accessOf(visibleWithoutMasks, rule.path).access === 'none') continue;
    const found = inspect(rule.path);
    // A missing path has nothing to hide; a symlink resolves inside the sandbox, where its target is judged on its own.
    if (found.kind === 'missing' || found.kind === 'symlink') continue;
    protectedPaths.push(rule.path);
    if (found.kind === 'directory') {
      steps.push({ path: rule.path, rank: 3, args: ['--tmpfs', rule.path] });
      maskedDirectories.push(rule.path);
    } else {
      steps.push({ path: rule.path, rank: 3, args: ['--ro-bind', '/dev/null', rule.path] });
    }
  }
  for (const pinned of pinnedAncestors({ protectedPaths, profile: visibleWithoutMasks, inspect })) {
    steps.push({ path: pinned, rank: 1, args: ['--bind', pinned, pinned] });
  }
  steps.sort((left, right) => pathDepth(left.path) - pathDepth(right.path) || left.rank - right.rank || left.path.localeCompare(right.path));
  const args = steps.flatMap((step) => step.args);
  // Mask tmpfs are read-only only now, after deeper zones got their mount points inside them.
  for (const masked of maskedDirectories) args.push('--remount-ro', masked);
  // Last, so a zone on / or /proc cannot replace them with the host's.
  args.push('--proc', '/proc', '--dev', '/dev');
  // The skeleton root bwrap builds is a tmpfs: without this a command could write (harmlessly, but still) outside every zone.
  args.push('--remount-ro', '/');
  return args;
}

/**
 * The directories between a writable root and a read-only or hidden path
 * inside it. Each becomes a mount point of its own (bound onto itself, still
 * writable), because a mount point cannot be renamed: otherwise a command
 * could `mv ws/sub ws/old` — the mask or read-only mount moves with the
 * directory — and then create a fresh `ws/sub/.toolgate/approvals.json` or
 * `ws/sub/docs/` on the host, at the very path the policy protects.
 */
function pinnedAncestors(options: { protectedPaths: readonly string[]; profile: SandboxProfile; inspect: (absolute: string) => HostPathKind }): string[] {
  const pinned = new Set<string>();
  for (const protectedPath of options.protectedPaths) {
    let ancestor = path.dirname(protectedPath);
    while (ancestor !== path.dirname(ancestor)) {
      const found = accessOf(options.profile, ancestor);
      // Only writable directories can be renamed; the writable root itself is a mount point already.
      if (found.access !== 'read-write' || found.rule === undefined || found.rule.path === ancestor) break;
      const host = options.inspect(ancestor);
      // Not one reached through a symlink: bound onto itself, it would be the host's target, mounted where the link leads inside.
      if (host.kind === 'directory' && (host.resolved === undefined || host.resolved === ancestor)) pinned.add(ancestor);
      ancestor = path.dirname(ancestor);
    }
  }
  return [...pinned];
}

function bindArguments(options: { rule: string; writable: boolean; inspect: (absolute: string) => HostPathKind; profile: SandboxProfile }): string[] {
  const found = options.inspect(options.rule);
  const throughLink = found.kind === 'symlink' || (found.kind !== 'missing' && found.resolved !== undefined && found.resolved !== options.rule);
  // Inside another mount the path is there already, and a symlink on it resolves inside the sandbox, where what it leads to
  // is judged on its own (find-vcs-metadata.ts protects a target inside a zone). Binding it would be wrong twice over: bwrap
  // places the mount where the link leads inside the sandbox (a zone's `.git -> ../../..` put the host's / over the
  // sandbox's root), and it would show the host's target, which no zone shows.
  if (throughLink && accessOf(options.profile, path.dirname(options.rule)).access !== 'none') return [];
  if (found.kind === 'symlink') {
    // Keep a link (/bin -> usr/bin) as a link when what it leads to is in the sandbox anyway; otherwise bind what it leads to, read-only at most.
    if (found.resolved !== undefined && accessOf(options.profile, found.resolved).access !== 'none' && found.resolved !== options.rule) {
      return ['--symlink', found.target, options.rule];
    }
    return found.resolved === undefined ? [] : ['--ro-bind-try', options.rule, options.rule];
  }
  if (options.writable) return ['--bind', options.rule, options.rule];
  // A read-only path that is missing grants nothing; bwrap skips it.
  return ['--ro-bind-try', options.rule, options.rule];
}

/**
 * What is at `absolute` on the host, without following a final symlink
 * (the default `inspectPath` of `wrapWithBwrap`).
 *
 * @example
 * inspectHostPath('/bin') // { kind: 'symlink', target: 'usr/bin', resolved: '/usr/bin' } on a usr-merged system
 */
export function inspectHostPath(absolute: string): HostPathKind {
  let stats;
  try {
    stats = lstatSync(absolute);
  } catch {
    return { kind: 'missing' };
  }
  let resolved: string | undefined;
  try {
    resolved = realpathSync.native(absolute);
  } catch {
    resolved = undefined;
  }
  if (stats.isSymbolicLink()) return { kind: 'symlink', target: readlinkSync(absolute), resolved };
  const kind = stats.isDirectory() ? 'directory' : 'file';
  // A symlink on the way (`ws/link/.git` with `link -> /elsewhere`): the path is not where it seems.
  return resolved === undefined || resolved === absolute ? { kind } : { kind, resolved };
}
