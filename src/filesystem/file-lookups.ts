/**
 * The file system lookups toolgate's judgement makes (stat, lstat,
 * realpath, readdir, readlink, a small file read), with the same
 * signatures as node:fs's, so that a caller that judges many calls against
 * one unchanging tree — `toolgate replay`, which runs nothing — can have
 * each lookup made once. Outside such a pass every lookup goes straight to
 * the file system, as it must when a call is about to run.
 *
 * From process.getBuiltinModule, not an import: an ESM import of node:fs
 * reads every export, which a hook process pays on each call it starts for.
 */
import type { Dirent, Stats } from 'node:fs';

const fs = process.getBuiltinModule('node:fs');

/** What one lookup gave: a value, or what it threw (thrown again, the same, each time it is asked). */
type Outcome = { value: unknown } | { error: unknown };

/** The kinds of lookup, each remembered by path alone (a key built per lookup cost more than the map). */
type LookupKind = 'stat' | 'statQuiet' | 'lstat' | 'lstatQuiet' | 'realpath' | 'realpathNative' | 'readdir' | 'readdirTypes' | 'readlink' | 'read';

/** A store of lookups for `holdingFilesStill`, kept by its caller for as long as the tree is taken not to change. */
export class HeldLookups {
  /** A map per kind, each made when first needed (an object of fixed shape: a map of maps cost a hash per lookup more). */
  #byKind: Record<LookupKind, Map<string, Outcome> | undefined> = HeldLookups.#none();
  #size = 0;

  static #none(): Record<LookupKind, Map<string, Outcome> | undefined> {
    return { stat: undefined, statQuiet: undefined, lstat: undefined, lstatQuiet: undefined, realpath: undefined, realpathNative: undefined, readdir: undefined, readdirTypes: undefined, readlink: undefined, read: undefined };
  }

  /** What `look` gives for `file`, looked once. */
  remember<T>(kind: LookupKind, file: string, look: () => T): T {
    const byPath = (this.#byKind[kind] ??= new Map());
    let outcome = byPath.get(file);
    if (outcome === undefined) {
      try {
        outcome = { value: look() };
      } catch (error) {
        outcome = { error: untraced(error) };
      }
      // A large text (a repository's file a hostile one made huge) is not kept: callers read a few KB of it.
      if ('value' in outcome && typeof outcome.value === 'string' && outcome.value.length > MAX_HELD_TEXT) return outcome.value as T;
      // Past the bound, looked again: a month of history names some tens of thousands of paths.
      if (++this.#size > MAX_HELD) {
        this.#byKind = HeldLookups.#none();
        this.#size = 1;
      }
      (this.#byKind[kind] ??= new Map()).set(file, outcome);
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.value as T;
  }
}

/**
 * The error a lookup threw, as it is kept to be thrown again: its message
 * and its system fields (code, errno, syscall, path, dest), without the
 * stack trace, whose frames hold on to what the code that looked held (a
 * month's replay kept thousands of ENOENTs, most of its lookups' memory).
 */
function untraced(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let bare: Error;
  try {
    bare = new Error(error.message);
  } finally {
    Error.stackTraceLimit = limit;
  }
  const { code, errno, syscall, path, dest } = error as NodeJS.ErrnoException & { dest?: string };
  return Object.assign(bare, { name: error.name, ...(code === undefined ? {} : { code }), ...(errno === undefined ? {} : { errno }), ...(syscall === undefined ? {} : { syscall }), ...(path === undefined ? {} : { path }), ...(dest === undefined ? {} : { dest }) });
}

/**
 * One pass's lookups; the pass's own, so nothing outside it ever sees them.
 * Made by the first pass: a hook, which holds none, never loads it.
 */
let held: import('node:async_hooks').AsyncLocalStorage<HeldLookups> | undefined;

const MAX_HELD = 200_000;
/**
 * A path longer than this is looked up each time, not kept: a path of
 * thousands of components is walked prefix by prefix, and a few hundred of
 * them in a hostile transcript would otherwise keep gigabytes of keys.
 */
const MAX_HELD_PATH = 1024;
/** A file's text longer than this is read each time, not kept. */
const MAX_HELD_TEXT = 256 * 1024;

/**
 * Runs `work` (and everything it awaits) with the lookups of this module
 * made once each into `lookups`: the tree is taken not to change while
 * `lookups` is kept. For judging what is not going to run (a replay of
 * history); never for a call about to run, whose paths must be looked at
 * as they are, and only in a process that judges nothing else: the judge's
 * own caches (a repository's git config and hooks, keyed by what these
 * lookups said) keep what they learned in a pass.
 *
 * @example
 * const lookups = new HeldLookups();
 * const verdict = await holdingFilesStill(lookups, () => judge(call));
 */
export function holdingFilesStill<T>(lookups: HeldLookups, work: () => T): T {
  held ??= new (process.getBuiltinModule('node:async_hooks').AsyncLocalStorage)<HeldLookups>();
  return held.run(lookups, work);
}

function remembered<T>(kind: LookupKind, file: string, look: () => T): T {
  const lookups = held?.getStore();
  return lookups === undefined || file.length > MAX_HELD_PATH ? look() : lookups.remember(kind, file, look);
}

export function statSync(file: string): Stats;
export function statSync(file: string, options: { throwIfNoEntry: false }): Stats | undefined;
export function statSync(file: string, options?: { throwIfNoEntry?: boolean }): Stats | undefined {
  return remembered(options?.throwIfNoEntry === false ? 'statQuiet' : 'stat', file, () => fs.statSync(file, options));
}

export function lstatSync(file: string): Stats;
export function lstatSync(file: string, options: { throwIfNoEntry: false }): Stats | undefined;
export function lstatSync(file: string, options?: { throwIfNoEntry?: boolean }): Stats | undefined {
  return remembered(options?.throwIfNoEntry === false ? 'lstatQuiet' : 'lstat', file, () => fs.lstatSync(file, options));
}

/** node:fs's realpathSync (resolved in JavaScript), with its `.native` (the system's realpath(3)). */
export const realpathSync: ((file: string) => string) & { native: (file: string) => string } = Object.assign((file: string) => remembered('realpath', file, () => fs.realpathSync(file)), {
  native: (file: string) => remembered('realpathNative', file, () => fs.realpathSync.native(file)),
});

export function readdirSync(directory: string): string[];
export function readdirSync(directory: string, options: { withFileTypes: true }): Dirent[];
export function readdirSync(directory: string, options?: { withFileTypes: true }): string[] | Dirent[] {
  // A copy each time: a caller may sort what it is given.
  return options?.withFileTypes === true
    ? [...remembered('readdirTypes', directory, () => fs.readdirSync(directory, { withFileTypes: true }))]
    : [...remembered('readdir', directory, () => fs.readdirSync(directory))];
}

export function readlinkSync(file: string): string {
  return remembered('readlink', file, () => fs.readlinkSync(file));
}

/**
 * The text of at most the first `maxBytes` of a regular file (a
 * repository's settings, where a hostile one may make a file huge): opened
 * without blocking and refused unless it is a regular file (a named pipe
 * would never end), only that much read.
 */
export function readTextFileSync(file: string, options: { maxBytes: number }): string {
  return remembered('read', `${options.maxBytes}:${file}`, () => readHead(file, options.maxBytes));
}

function readHead(file: string, maxBytes: number): string {
  const descriptor = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    if (!fs.fstatSync(descriptor).isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: 'ENOTREG' });
    const buffer = Buffer.alloc(maxBytes);
    let filled = 0;
    while (filled < maxBytes) {
      const read = fs.readSync(descriptor, buffer, filled, maxBytes - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return buffer.toString('utf8', 0, filled);
  } finally {
    fs.closeSync(descriptor);
  }
}
