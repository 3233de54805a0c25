/**
 * Containment on the real filesystem. A path is resolved the way the kernel
 * will resolve it (every symlink followed, `..` applied after the symlink it
 * follows), and only the resulting real path is compared with the zone roots.
 * Lexical checks alone are what every symlink and `..` bypass defeats.
 *
 * Everything here is synchronous, rejection messages included: on a local
 * disk `realpath(3)` takes a few microseconds, while a promise call spends
 * 25-35 µs on the thread-pool round trip, which would dominate every
 * decision. Being synchronous also lets a tool's approval check answer
 * without a promise, which the gate then decides without one either. The
 * cost is that a slow network filesystem stalls the event loop for as long
 * as its lookups take.
 */
import { lstatSync, readlinkSync, realpathSync, statSync } from '../../filesystem/file-lookups.ts';
import path from 'node:path';
import type { Zone } from './zones.ts';
import { hiddenBy } from './zone-hidden.ts';

export type ZoneOperation = 'read' | 'write' | 'delete';

export type ZonePathResolution =
  | { ok: true; zone: Zone; absolute: string; relative: string; exists: boolean }
  | { ok: false; reason: string };

/**
 * Control characters (C0, DEL, C1), text-direction controls and invisible
 * characters: a name with these can read differently in an approval prompt
 * ("evil\u202Etxt.sh" shows as "evilhs.txt") than the name that is used.
 */
const DECEPTIVE_CHARACTERS = /[\u0001-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

const DECEPTIVE_CHARACTERS_GLOBAL = new RegExp(DECEPTIVE_CHARACTERS.source, 'g');

/**
 * The longest path the kernel accepts (Linux PATH_MAX, 4096 with the
 * terminating NUL). A longer one could never be opened, and resolving it
 * component by component would stall the event loop: a 1 MB path of
 * `src/../` took 0.6 s.
 */
const MAX_PATH_BYTES = 4095;

/** How many symlink hops a rejection message follows before it gives up. */
const MAX_CHAIN_SHOWN = 8;

/**
 * Resolves `path` against `cwd`, follows every symlink with `realpath`
 * (only the deepest existing ancestor when the path does not exist yet),
 * refuses dangling symlinks, picks the most specific zone whose root contains
 * the real path (separator-aware), then applies the operation's rules: mode,
 * zone root, trailing separator, suffixes. Never throws for a bad path.
 *
 * @example
 * const resolved = resolveZonePath({ zones, path: 'ws/a.txt', cwd, operation: 'read' });
 */
export function resolveZonePath(options: {
  zones: readonly Zone[];
  path: string;
  cwd: string;
  operation: ZoneOperation;
}): ZonePathResolution {
  const { zones, operation } = options;
  const cwd = path.resolve(options.cwd);
  const input = options.path;
  if (typeof input !== 'string' || input === '') return { ok: false, reason: 'the path is empty; give a path inside a zone' };
  // Three bytes at most per UTF-16 unit: a shorter string cannot be too long, and its bytes are not counted.
  if (input.length > MAX_PATH_BYTES / 3 && Buffer.byteLength(input) > MAX_PATH_BYTES) {
    return { ok: false, reason: `the path ${quotePath(input.slice(0, 60))}... is ${Buffer.byteLength(input)} bytes long; paths longer than ${MAX_PATH_BYTES} bytes are refused (the system refuses them too)` };
  }
  if (input.includes('\0')) return { ok: false, reason: `the path ${quotePath(input)} contains a NUL byte; paths with NUL bytes are refused` };
  if (DECEPTIVE_CHARACTERS.test(input)) {
    return {
      ok: false,
      reason: `the path ${quotePath(input)} contains a control, invisible or text-direction character; such paths are refused because they can make a prompt show a different name than the one used`,
    };
  }
  if (input.startsWith('~')) {
    return { ok: false, reason: `the path ${quotePath(input)} starts with "~", which is not expanded; give a path relative to the project or an absolute path inside a zone` };
  }
  // Joined by hand: path.resolve would apply ".." before symlinks are followed; the kernel applies it after.
  const joined = path.isAbsolute(input) ? input : `${cwd}${path.sep}${input}`;
  const lexical = path.resolve(joined);
  const walked = hasParentReference(joined) ? resolveStepwise({ input, joined, cwd }) : resolveWhole({ input, lexical, cwd });
  if (!walked.ok) return walked;
  const { real, exists } = walked;

  const zone = zoneContaining(zones, real);
  if (zone === undefined) return { ok: false, reason: explainOutside({ input, joined, real, cwd, zones }) };

  const shown = quotePath(input);
  if ((operation === 'write' || operation === 'delete') && zone.mode === 'ro') {
    return { ok: false, reason: `${shown} is in zone ${zone.name}, which is read-only; ${operation === 'write' ? 'writing' : 'deleting or moving'} there is not allowed` };
  }
  if ((operation === 'write' || operation === 'delete') && real === zone.root) {
    return { ok: false, reason: `${shown} is the root of zone ${zone.name}; a zone root cannot be ${operation === 'write' ? 'written' : 'deleted or moved'}` };
  }
  if ((operation === 'write' || operation === 'delete') && /(^|[\\/])\.?$/.test(input)) {
    return { ok: false, reason: `${shown} ends with a path separator, so it names a directory; give a file path without the trailing "/"` };
  }
  if (zone.suffixes !== undefined) {
    // Directories are exempt for reads only, so a suffix-restricted zone can still be listed.
    const listable = operation === 'read' && exists && isDirectory(real);
    const name = path.basename(real);
    if (!listable && !zone.suffixes.some((suffix) => name.endsWith(suffix))) {
      const via = path.basename(lexical) === name ? '' : ` (it resolves to ${name})`;
      return { ok: false, reason: `${shown}${via} does not end with a suffix zone ${zone.name} admits (${zone.suffixes.join(', ')})` };
    }
  }
  // Only a zone with hidden patterns pays for the stat that tells a directory (`secrets/`) from a file.
  const hiding = zone.hidden === undefined ? undefined : hiddenBy({ zone, absolute: real, directory: exists && isDirectory(real) });
  if (hiding !== undefined) {
    const via = path.basename(lexical) === path.basename(real) ? '' : ` (it resolves to ${quotePath(pathBelow({ root: zone.root, candidate: real }))})`;
    return { ok: false, reason: `${shown}${via} is hidden in zone ${zone.name} (hidden: ${hiding}): no tool reads, writes, moves or deletes it` };
  }
  const relative = pathBelow({ root: zone.root, candidate: real });
  if (DECEPTIVE_CHARACTERS.test(relative)) {
    // A tidy name can be a symlink to an untidy one; the prompt shows the resolved name.
    return { ok: false, reason: `${shown} resolves to ${quotePath(relative)} in zone ${zone.name}, which contains a control, invisible or text-direction character; such paths are refused` };
  }
  return { ok: true, zone, absolute: real, relative: relative === '' ? '.' : relative, exists };
}

/**
 * True when `candidate` is `root` or lies below it. Separator-aware: the
 * zone `/p/ws` does not contain `/p/ws-evil`.
 *
 * @example
 * isInsideDirectory({ root: '/p/ws', candidate: '/p/ws-evil/x' }) // false
 */
export function isInsideDirectory(options: { root: string; candidate: string }): boolean {
  const { root, candidate } = options;
  if (candidate === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return candidate.startsWith(prefix);
}

/**
 * The zone with the longest root containing `real`: nested zones override their parents.
 *
 * @example
 * zoneContaining(zones, '/p/ws/vendor/lib.js') // the vendor zone, not the workspace around it
 */
export function zoneContaining(zones: readonly Zone[], real: string): Zone | undefined {
  let best: Zone | undefined;
  for (const zone of zones) {
    if (isInsideDirectory({ root: zone.root, candidate: real }) && (best === undefined || zone.root.length > best.root.length)) best = zone;
  }
  return best;
}

/**
 * A path for messages: relative to the working directory when inside it.
 *
 * @example
 * displayPath({ cwd: '/p', absolute: '/p/ws/a.txt' }) // 'ws/a.txt'
 */
export function displayPath(options: { cwd: string; absolute: string }): string {
  const { cwd, absolute } = options;
  const below = sliceBelow({ directory: cwd, candidate: absolute });
  if (below !== undefined && !below.startsWith('..')) return below;
  const relative = path.relative(cwd, absolute);
  if (relative === '') return '.';
  if (relative.startsWith('..') || path.isAbsolute(relative)) return options.absolute;
  return relative;
}

/**
 * What path.relative returns for `candidate` strictly below an absolute
 * POSIX `directory`, as a slice of it, when the rest of `candidate` has
 * nothing to normalize (real paths never have); undefined otherwise.
 * Normalizing is left to right, so `directory` itself need not be normal:
 * both paths normalize it alike. It spares path.relative's normalizing both
 * paths again, about 1 µs of a decision's 15.
 */
function sliceBelow(options: { directory: string; candidate: string }): string | undefined {
  const { directory, candidate } = options;
  if (path.sep !== '/') return undefined;
  const start = directory.endsWith('/') ? directory.length : directory.length + 1;
  if (candidate.length <= start || candidate[start - 1] !== '/' || !path.isAbsolute(directory) || !candidate.startsWith(directory)) return undefined;
  const rest = candidate.slice(start);
  return UNNORMALIZED.test(rest) ? undefined : rest;
}

/** An empty, `.` or `..` segment, or a trailing separator: what path.relative would normalize away. */
const UNNORMALIZED = /(^|\/)\.{1,2}(\/|$)|\/\/|^\/|\/$/;

/** `candidate` relative to `root`, which contains it (both real). */
function pathBelow(options: { root: string; candidate: string }): string {
  if (options.candidate === options.root) return '';
  return sliceBelow({ directory: options.root, candidate: options.candidate }) ?? path.relative(options.root, options.candidate);
}

type Walked = { ok: true; real: string; exists: boolean } | { ok: false; reason: string };

/** The common case, a path without "..": one realpath call. */
function resolveWhole(options: { input: string; lexical: string; cwd: string }): Walked {
  try {
    return { ok: true, real: realpathSync.native(options.lexical), exists: true };
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ENOENT') return { ok: false, reason: describeResolutionFailure({ input: options.input, code }) };
  }
  const partial = resolveMissing(options);
  return partial.ok ? { ok: true, real: partial.real, exists: false } : partial;
}

/**
 * A path with "..": resolved one component at a time the way the kernel
 * does, so `ws/link/../x` means the parent of the link's target, not `ws/x`.
 * Checking the lexical form would approve a path the kernel reads otherwise.
 */
function resolveStepwise(options: { input: string; joined: string; cwd: string }): Walked {
  const { input } = options;
  const parsed = path.parse(options.joined);
  const components = options.joined.slice(parsed.root.length).split(path.sep).filter((part) => part !== '' && part !== '.');
  let current: string;
  try {
    current = realpathSync.native(parsed.root);
  } catch (error) {
    return { ok: false, reason: describeResolutionFailure({ input, code: errorCode(error) }) };
  }
  for (const [index, component] of components.entries()) {
    if (component === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, component);
    try {
      // `current` is real, so a next entry that is not a symlink is real as it is: one lstat,
      // where realpath(3) would walk every component again (quadratic in the depth).
      const entry = lstatSync(next, { throwIfNoEntry: false });
      current = entry !== undefined && !entry.isSymbolicLink() ? next : realpathSync.native(next);
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOENT') return { ok: false, reason: describeResolutionFailure({ input, code }) };
      const dangling = danglingSymlink({ input, candidate: next, cwd: options.cwd });
      if (dangling !== undefined) return { ok: false, reason: dangling };
      const rest = components.slice(index);
      if (rest.includes('..')) return { ok: false, reason: `${quotePath(input)} uses ".." after ${displayPath({ cwd: options.cwd, absolute: next })}, which does not exist` };
      return { ok: true, real: path.join(current, ...rest), exists: false };
    }
  }
  return { ok: true, real: current, exists: true };
}

/** A refusal when `candidate` exists as a symlink whose target does not; undefined when it does not exist at all. */
function danglingSymlink(options: { input: string; candidate: string; cwd: string }): string | undefined {
  try {
    const entry = lstatSync(options.candidate);
    if (!entry.isSymbolicLink()) return `${quotePath(options.input)} changed while it was being resolved; try again`;
  } catch {
    return undefined;
  }
  const chain = symlinkChain(options.candidate, options.cwd);
  return `${quotePath(options.input)} goes through the dangling symlink ${chain}; symlinks whose target does not exist are never followed (writing through one could create a file outside its zone)`;
}

function hasParentReference(joined: string): boolean {
  return joined.includes('..') && joined.split(path.sep).includes('..');
}

/**
 * The real path of a path that does not exist (yet): the realpath of its
 * deepest existing ancestor plus the missing names. Any component that
 * exists but cannot be resolved is a dangling symlink: refused, because
 * writing through it would create its target wherever it points.
 */
function resolveMissing(options: { input: string; lexical: string; cwd: string }): { ok: true; real: string } | { ok: false; reason: string } {
  const missing: string[] = [];
  let current = options.lexical;
  for (;;) {
    let present: boolean;
    try {
      lstatSync(current);
      present = true;
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOENT') return { ok: false, reason: describeResolutionFailure({ input: options.input, code }) };
      present = false;
    }
    if (present) {
      // It exists but realpath said it did not: a dangling symlink (or it changed under us).
      const dangling = danglingSymlink({ input: options.input, candidate: current, cwd: options.cwd });
      return { ok: false, reason: dangling ?? `${quotePath(options.input)} changed while it was being resolved; try again` };
    }
    missing.unshift(path.basename(current));
    const parent = path.dirname(current);
    if (parent === current) return { ok: false, reason: `${quotePath(options.input)} cannot be resolved` };
    current = parent;
    try {
      const realParent = realpathSync.native(current);
      return { ok: true, real: path.join(realParent, ...missing) };
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOENT') return { ok: false, reason: describeResolutionFailure({ input: options.input, code }) };
    }
  }
}

function describeResolutionFailure(options: { input: string; code: string }): string {
  const shown = quotePath(options.input);
  if (options.code === 'ELOOP') return `${shown} goes through a symlink loop; it cannot be resolved`;
  if (options.code === 'ENOTDIR') return `${shown} treats a file as a directory; a component of the path is not a directory`;
  if (options.code === 'EACCES' || options.code === 'EPERM') return `${shown} cannot be resolved: permission denied`;
  if (options.code === 'ENAMETOOLONG') return `${shown} is too long`;
  return `${shown} cannot be resolved (${options.code})`;
}

/**
 * Why a real path lies outside every zone. Walks the path as the kernel
 * does and names the first symlink inside a zone whose target leaves every
 * zone, so the model learns what to avoid:
 * `"ws/link/passwd" escapes zone workspace via symlink ws/link → /etc`.
 */
function explainOutside(options: { input: string; joined: string; real: string; cwd: string; zones: readonly Zone[] }): string {
  const { input, joined, real, cwd, zones } = options;
  const shown = quotePath(input);
  const parsed = path.parse(joined);
  const components = joined.slice(parsed.root.length).split(path.sep).filter((part) => part !== '' && part !== '.');
  let current = parsed.root;
  for (const component of components) {
    if (component === '..') {
      current = path.dirname(current);
      continue;
    }
    const candidate = path.join(current, component);
    let isLink: boolean;
    try {
      isLink = lstatSync(candidate).isSymbolicLink();
    } catch {
      break;
    }
    let target: string | undefined;
    try {
      target = realpathSync.native(candidate);
    } catch {
      target = undefined;
    }
    if (isLink) {
      // `current` is real, so the zone of the link's own location is exact.
      const location = zoneContaining(zones, candidate);
      if (location !== undefined && (target === undefined || zoneContaining(zones, target) === undefined)) {
        return `${shown} escapes zone ${location.name} via symlink ${symlinkChain(candidate, cwd)}; symlinks may not lead out of their zone`;
      }
    }
    if (target === undefined) break;
    current = target;
  }
  let realCwd = cwd;
  try {
    realCwd = realpathSync.native(cwd);
  } catch {
    // Messages only: the lexical working directory will do.
  }
  const roots = zones.map((zone) => `${zone.name} (${displayPath({ cwd: realCwd, absolute: zone.root })})`).join(', ');
  const resolvedNote = real === path.resolve(joined) ? '' : ` resolves to ${real}, which`;
  return `${shown}${resolvedNote} is outside every zone; the zones are ${roots === '' ? 'none' : roots}`;
}

/** `ws/a → ws/b → /etc`: each hop as the link says it, ending in the real target when there is one. */
function symlinkChain(link: string, cwd: string): string {
  const hops = [escapeForMessage(displayPath({ cwd, absolute: link }))];
  let current = link;
  for (let step = 0; step < MAX_CHAIN_SHOWN; step++) {
    let target: string;
    try {
      target = readlinkSync(current);
    } catch {
      return hops.join(' → ');
    }
    current = path.resolve(path.dirname(current), target);
    hops.push(escapeForMessage(path.isAbsolute(target) ? target : displayPath({ cwd, absolute: current })));
    try {
      if (!lstatSync(current).isSymbolicLink()) return hops.join(' → ');
    } catch {
      return `${hops.join(' → ')} (missing)`;
    }
  }
  return `${hops.join(' → ')} → ...`;
}

/**
 * A path in quotes for a message, with control, invisible and
 * text-direction characters written as `\uXXXX` so the message cannot be
 * made to read differently than it is.
 *
 * @example
 * quotePath('a\u202etxt.sh') // '"a\\u202etxt.sh"'
 */
export function quotePath(text: string): string {
  return JSON.stringify(text).replace(DECEPTIVE_CHARACTERS_GLOBAL, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function escapeForMessage(text: string): string {
  return quotePath(text).slice(1, -1);
}

function isDirectory(real: string): boolean {
  try {
    return statSync(real).isDirectory();
  } catch {
    return false;
  }
}

function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : 'EUNKNOWN';
}
