/**
 * Whether a shell command may touch one path, judged the way the OS sandbox
 * derived from the same policy would judge it, so that the policy layer is
 * never weaker than the sandbox: the path is resolved with the zone resolver
 * (symlinks, `..`, absolute), then looked up in the sandbox profile. A read
 * must land in a zone or in the system paths the sandbox exposes read-only;
 * a write in a rw zone whose approval is not block; neither may land on
 * something the sandbox hides (credentials, toolgate's own files).
 */
import type { Stats } from 'node:fs';
import { lstatSync, realpathSync, statSync } from '../../filesystem/file-lookups.ts';
import path from 'node:path';
import type { Decision } from '../../core/types.ts';
import type { SandboxProfile } from '../../sandbox/sandbox-profile.ts';
import { quotePath, zoneContaining } from '../fs/resolve-zone-path.ts';
import { resolveInZones, type Zone } from '../fs/zones.ts';
import { profileAccess, profileAccessOfFile } from './profile-access.ts';
import { ownStateConcern } from '../../config/own-state-paths.ts';
import { hiddenBy } from '../fs/zone-hidden.ts';

export type PathOperation = 'read' | 'write' | 'delete';

/** What the sandbox would do with the path, turned into the policy layer's decision. */
export type PathJudgement =
  | { decision: Decision; reason: string; zone: Zone; absolute: string }
  | { decision: 'allow'; reason: string; zone: undefined; absolute: string | undefined }
  /** `ask` only for a presumed write or delete that the policy would forbid a known one. */
  | { decision: 'block' | 'ask'; reason: string; zone: undefined; absolute: undefined };

export interface PathJudgeContext {
  zones: readonly Zone[];
  /** The sandbox profile derived from the same policy: its system paths and hidden paths are the yardstick. */
  profile: SandboxProfile;
  /** Real paths of working directories, for one decision (the filesystem may change between decisions). */
  realDirectories?: Map<string, string | undefined>;
}

/**
 * Devices every program uses, which the sandbox provides too (its own
 * minimal `/dev`). Matched as written: `/dev/stdin` resolves to a pipe or a
 * terminal that no zone contains.
 */
const DEVICES = /^\/dev\/(null|zero|full|random|urandom|tty|stdin|stdout|stderr|fd\/[0-9]+)$/;

/**
 * Judges one path (already tilde-expanded; relative to `cwd`) for one
 * operation. `into` means the command writes files it names itself into
 * this directory (`tar -x -C dir`, `wget -P dir`), so the directory must
 * take any file. `subject` names the command in reasons: "cat reads ...".
 * `presumed` says why the command is only presumed to write or delete (it
 * is not modelled; the patch it applies decides): where the policy forbids
 * that, it asks rather than blocks.
 * Hidden paths and toolgate's own files block all the same.
 *
 * @example
 * await judgePath({ path: '../secret', cwd: '/p/ws', operation: 'read', subject: 'cat', context })
 * // { decision: 'block', reason: 'cat reads "../secret" (/p/secret), outside every zone...' }
 */
export async function judgePath(options: { path: string; cwd: string; operation: PathOperation; into?: boolean; presumed?: string; subject: string; action?: string; context: PathJudgeContext }): Promise<PathJudgement> {
  const { cwd, operation, subject, context } = options;
  // resolveInZones refuses a leading `~` (not expanded); here it is a literal directory named `~`.
  const input = options.path.startsWith('~') ? `./${options.path}` : options.path;
  const shown = quotePath(options.path);
  const verb = options.action ?? (operation === 'read' ? 'reads' : operation === 'write' ? (options.into === true ? 'writes into' : 'writes') : 'deletes');
  const block = (why: string): PathJudgement => ({ decision: 'block', reason: `${subject} ${verb} ${why}`, zone: undefined, absolute: undefined });
  // What the policy forbids a command to write or delete, for one only presumed to do so.
  const forbidden = (why: string): PathJudgement =>
    options.presumed !== undefined
      ? { decision: 'ask', reason: `${subject} may write or delete ${why}: ${options.presumed}, so a person decides whether it does`, zone: undefined, absolute: undefined }
      : block(why);

  if (DEVICES.test(input)) return { decision: 'allow', reason: `${subject} ${verb} the device ${input}`, zone: undefined, absolute: input };
  const real = await realPathOf({ input, cwd, operation, context });
  if (!real.ok) return block(`${shown}: ${real.reason}`);
  const { absolute, entry } = real;
  // No sandbox can express these (normalizeSandboxPath refuses them), so neither is judged.
  if (/[\0\n\r]/.test(absolute)) return block(`${shown}, a path with a NUL byte or a line break`);
  const where = absolute === input ? shown : `${shown} (${quotePath(absolute)})`;
  const zone = zoneContaining(context.zones, absolute);
  if (zone?.hidden !== undefined) {
    const hiding = hiddenBy({ zone, absolute, directory: entry === undefined || entry === null ? isExistingDirectory(absolute) : entry.isDirectory() });
    if (hiding !== undefined) return block(`${where}, which zone ${zone.name} hides (hidden: ${hiding}): no command may touch it`);
  }
  const visible = profileAccess(context.profile, absolute);
  if (visible.access === 'none') {
    if (zone === undefined) return block(`${where}, outside every zone (and not a system path the sandbox would expose)`);
    return block(`${where}, which the sandbox hides even inside zone ${zone.name} (${visible.rule?.source ?? 'hidden'}: ${visible.rule?.path ?? absolute})`);
  }
  if (operation === 'read') {
    if (zone === undefined) return { decision: 'allow', reason: `${subject} ${verb} ${where}, a system path`, zone: undefined, absolute };
    const aliased = entryConcernReason({ absolute, where, subject, verb, zone, entry });
    if (aliased !== undefined && zone.approval.read !== 'block') return { decision: 'ask', reason: aliased, zone, absolute };
    // Most reads are allowed and their reason is never shown: not worth a path.relative each.
    const reason = zone.approval.read === 'allow' ? `${subject} ${verb} ${where} in zone ${zone.name}` : `${subject} ${verb} ${zone.name}:${path.relative(zone.root, absolute) || '.'}; zone ${zone.name} ${verbOf(zone.approval.read)} reads`;
    return { decision: zone.approval.read, reason, zone, absolute };
  }
  if (zone === undefined) return forbidden(`${where}, outside the writable zones`);
  if (zone.mode === 'ro') return forbidden(`${where}, in zone ${zone.name}, which is read-only`);
  if (operation === 'delete' && options.into !== true && absolute === zone.root) return block(`${where}, the root of zone ${zone.name}`);
  const writable = options.into === true ? (zone.suffixes === undefined ? visible.access : 'read-only') : profileAccessOfFile(context.profile, absolute);
  if (writable !== 'read-write') {
    const limit = zone.suffixes === undefined ? 'which the sandbox keeps read-only' : `but zone ${zone.name} admits only ${zone.suffixes.join(', ')}${options.into === true ? ' and the names are not known here' : ''}`;
    return forbidden(`${where}, ${limit}`);
  }
  const decision = operation === 'write' ? zone.approval.write : zone.approval.delete;
  const shownInZone = `${zone.name}:${path.relative(zone.root, absolute) || '.'}`;
  if (decision === 'block' && options.presumed === undefined) return block(`${shownInZone}; zone ${zone.name} blocks ${operation === 'write' ? 'writes' : 'deletes'}`);
  // A folder above toolgate's own files, or a policy or state file it would load (src/config/own-state-paths.ts).
  const concern = ownStateConcern({ absolute, operation, hidden: context.profile.hidden, into: options.into === true, shown: shownInZone });
  if (concern !== undefined) return { decision: concern.decision, reason: `${subject} ${verb} ${concern.reason}`, zone, absolute };
  // Removing one name of a hard-linked file (or a FIFO) leaves the rest alone; writing to it writes the file under every name.
  const aliased = operation === 'write' && options.into !== true ? entryConcernReason({ absolute, where, subject, verb, zone, entry }) : undefined;
  if (aliased !== undefined) return { decision: 'ask', reason: aliased, zone, absolute };
  if (decision === 'block') return { ...forbidden(`${shownInZone}, where zone ${zone.name} blocks ${operation === 'write' ? 'writes' : 'deletes'}`), zone, absolute };
  return { decision, reason: `${subject} ${verb} ${shownInZone}; zone ${zone.name} ${verbOf(decision)} ${operation === 'write' ? 'writes' : 'deletes'}`, zone, absolute };
}

/**
 * Why the entry at `absolute` needs a person, or undefined when it does
 * not exist (yet) or is an ordinary file or directory. A regular file with
 * more than one hard link is the same file under other names, which can lie
 * anywhere on the filesystem (outside every zone, in a read-only zone):
 * reading or writing this name reads or writes that file. A FIFO, socket or
 * device inside a zone is not a file at all: opening it can wait forever
 * for the other end, or reach hardware.
 *
 * @example
 * entryConcernReason({ absolute: '/p/ws/alias.txt', where: '"alias.txt"', subject: 'cat', verb: 'reads', zone })
 * // 'cat reads "alias.txt" in zone ws, a file with 2 hard links: ...'
 */
export function entryConcernReason(options: { absolute: string; where: string; subject: string; verb: string; zone: Zone; entry?: KnownEntry }): string | undefined {
  let entry: Stats | undefined;
  if (options.entry !== undefined) entry = options.entry ?? undefined;
  else {
    try {
      entry = statSync(options.absolute, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
  }
  if (entry === undefined || entry.isDirectory()) return undefined;
  const said = `${options.subject} ${options.verb} ${options.where} in zone ${options.zone.name}`;
  if (entry.isFile()) {
    if (entry.nlink <= 1) return undefined;
    return `${said}, a file with ${entry.nlink} hard links: the same file under other names, which may lie outside the zones or in a read-only one, so a person decides`;
  }
  const kind = entry.isFIFO() ? 'a FIFO (named pipe)' : entry.isSocket() ? 'a socket' : entry.isCharacterDevice() ? 'a character device' : entry.isBlockDevice() ? 'a block device' : 'not a regular file';
  return `${said}, which is ${kind}: opening it can wait forever for the other end or reach a device, so a person decides`;
}

function verbOf(decision: Decision): string {
  return decision === 'allow' ? 'allows' : decision === 'ask' ? 'asks before' : 'blocks';
}

/**
 * What a resolution already learnt of the entry itself: its status (the
 * `lstat` of a last component that is not a symlink, the same as its
 * `stat`), `null` when it does not exist, undefined when not looked at.
 */
type KnownEntry = Stats | null | undefined;

type RealPath = { ok: true; absolute: string; entry?: KnownEntry } | { ok: false; reason: string };

/**
 * Where the path really leads. Reads and writes follow every symlink (the
 * zone resolver, then the kernel's own `realpath` for paths outside every
 * zone); a delete acts on the last component itself, so only its directory
 * is followed (`rm ws/link` removes the link, not what it points to).
 */
async function realPathOf(options: { input: string; cwd: string; operation: PathOperation; context: PathJudgeContext }): Promise<RealPath> {
  const { input, cwd, operation, context } = options;
  const base = path.basename(input);
  if (operation === 'delete' && !/[\\/]$/.test(input) && base !== '.' && base !== '..') {
    const parent = await realPathOf({ input: path.dirname(input), cwd, operation: 'read', context });
    return parent.ok ? { ok: true, absolute: path.join(parent.absolute, base) } : parent;
  }
  const plain = plainRealEntry({ path: input, cwd, realDirectories: context.realDirectories });
  if (plain !== undefined) return { ok: true, absolute: plain.absolute, entry: plain.entry };
  const resolved = resolveInZones({ zones: context.zones, path: input, cwd, operation: 'read' });
  if (resolved.ok) return { ok: true, absolute: resolved.absolute };
  // Outside every zone, or refused by the zone resolver for a reason that is not about zones (a suffix).
  const kernel = kernelRealPath(input, cwd);
  return kernel === undefined ? { ok: false, reason: resolved.reason } : { ok: true, absolute: kernel };
}

/**
 * The real path of a relative path without `..` none of whose components
 * is a symlink: the working directory's real path joined with it, existing
 * or not. Undefined (the zone resolver decides) at the first symlink, `..`
 * or error. Most words of a command line are such paths, and many do not
 * exist (`npm test` names `test`); `lstat` that does not throw for a
 * missing name keeps them cheap, where a thrown error costs tens of µs.
 *
 * @example
 * plainRealPath({ path: 'src/new.ts', cwd: '/p/ws' }) // '/p/ws/src/new.ts' (when src is not a symlink)
 */
export function plainRealPath(options: { path: string; cwd: string; realDirectories?: Map<string, string | undefined> }): string | undefined {
  return plainRealEntry(options)?.absolute;
}

/** `plainRealPath`, with what its walk learnt of the last entry (saves judging it a second `stat`). */
function plainRealEntry(options: { path: string; cwd: string; realDirectories?: Map<string, string | undefined> }): { absolute: string; entry: KnownEntry } | undefined {
  const { path: input, cwd, realDirectories } = options;
  if (path.isAbsolute(input) || input.startsWith('~')) return undefined;
  const components = input.split(path.sep).filter((part) => part !== '' && part !== '.');
  if (components.includes('..')) return undefined;
  let current = realDirectories?.get(cwd);
  let last: KnownEntry;
  try {
    if (current === undefined) {
      current = realpathSync.native(cwd);
      realDirectories?.set(cwd, current);
    }
    for (const [index, component] of components.entries()) {
      current = `${current}${path.sep}${component}`;
      const entry = lstatSync(current, { throwIfNoEntry: false });
      if (entry === undefined) return { absolute: path.join(current, ...components.slice(index + 1)), entry: null };
      if (entry.isSymbolicLink()) return undefined;
      last = entry;
    }
  } catch {
    return undefined;
  }
  return { absolute: current, entry: last };
}

/**
 * `realpath(3)` of the path, symlinks followed before `..` as the kernel
 * does; for a path that does not exist, the real path of its deepest
 * existing directory plus the missing names. Undefined when that cannot be
 * known (a dangling symlink, `..` after a missing name, a loop).
 */
function kernelRealPath(input: string, cwd: string): string | undefined {
  const joined = path.isAbsolute(input) ? input : `${cwd}${path.sep}${input}`;
  try {
    return realpathSync.native(joined);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
  }
  const parsed = path.parse(joined);
  const components = joined.slice(parsed.root.length).split(path.sep).filter((part) => part !== '' && part !== '.');
  for (let keep = components.length - 1; keep >= 0; keep--) {
    const missing = components.slice(keep);
    if (missing.includes('..')) return undefined;
    let existing: string;
    try {
      // Joined by hand: path.join would apply `..` lexically (`self/..` → `.`); the kernel follows `self` first.
      existing = realpathSync.native(parsed.root + components.slice(0, keep).join(path.sep));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return undefined;
    }
    // A dangling symlink exists but does not resolve: writing through it would create its target anywhere.
    return isDanglingSymlink(path.join(existing, missing[0]!)) ? undefined : path.join(existing, ...missing);
  }
  return undefined;
}

function isExistingDirectory(absolute: string): boolean {
  try {
    return statSync(absolute, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** It exists (lstat) but does not resolve (realpath): a dangling symlink. */
function isDanglingSymlink(candidate: string): boolean {
  try {
    lstatSync(candidate);
  } catch {
    return false;
  }
  try {
    realpathSync.native(candidate);
    return false;
  } catch {
    return true;
  }
}
