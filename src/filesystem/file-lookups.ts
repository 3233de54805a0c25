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
const { AsyncLocalStorage } = process.getBuiltinModule('node:async_hooks');

/** What one lookup gave: a value, or what it threw (thrown again, the same, each time it is asked). */
type Outcome = { value: unknown } | { error: unknown };

/** One pass's lookups; the pass's own, so nothing outside it ever sees them. */
const held = new AsyncLocalStorage<Map<string, Outcome>>();

/** Lookups a pass keeps at most; past it, they are made again (a month of history names some tens of thousands of paths). */
const MAX_HELD = 200_000;

/** A store of lookups for `holdingFilesStill`, kept by its caller for as long as the tree is taken not to change. */
export type HeldLookups = Map<string, Outcome>;

/**
 * Runs `work` (and everything it awaits) with the lookups of this module
 * made once each into `lookups`: the tree is taken not to change while
 * `lookups` is kept. For judging what is not going to run (a replay of
 * history); never for a call about to run, whose paths must be looked at
 * as they are.
 *
 * @example
 * const lookups: HeldLookups = new Map();
 * const verdict = await holdingFilesStill(lookups, () => judge(call));
 */
export function holdingFilesStill<T>(lookups: HeldLookups, work: () => T): T {
  return held.run(lookups, work);
}

function remembered<T>(key: string, look: () => T): T {
  const lookups = held.getStore();
  if (lookups === undefined) return look();
  let outcome = lookups.get(key);
  if (outcome === undefined) {
    try {
      outcome = { value: look() };
    } catch (error) {
      outcome = { error };
    }
    if (lookups.size >= MAX_HELD) lookups.clear();
    lookups.set(key, outcome);
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.value as T;
}

/** Whether a lookup that finds nothing answers undefined (true) or throws ENOENT (false), as the option says. */
const quiet = (options: { throwIfNoEntry?: boolean } | undefined) => (options?.throwIfNoEntry === false ? 'q' : 't');

export function statSync(file: string): Stats;
export function statSync(file: string, options: { throwIfNoEntry: false }): Stats | undefined;
export function statSync(file: string, options?: { throwIfNoEntry?: boolean }): Stats | undefined {
  return remembered(`stat\u0000${quiet(options)}\u0000${file}`, () => fs.statSync(file, options));
}

export function lstatSync(file: string): Stats;
export function lstatSync(file: string, options: { throwIfNoEntry: false }): Stats | undefined;
export function lstatSync(file: string, options?: { throwIfNoEntry?: boolean }): Stats | undefined {
  return remembered(`lstat\u0000${quiet(options)}\u0000${file}`, () => fs.lstatSync(file, options));
}

/** node:fs's realpathSync (resolved in JavaScript), with its `.native` (the system's realpath(3)). */
export const realpathSync: ((file: string) => string) & { native: (file: string) => string } = Object.assign((file: string) => remembered(`realpath\u0000${file}`, () => fs.realpathSync(file)), {
  native: (file: string) => remembered(`realpath.native\u0000${file}`, () => fs.realpathSync.native(file)),
});

export function readdirSync(directory: string): string[];
export function readdirSync(directory: string, options: { withFileTypes: true }): Dirent[];
export function readdirSync(directory: string, options?: { withFileTypes: true }): string[] | Dirent[] {
  // A copy each time: a caller may sort what it is given.
  return options?.withFileTypes === true
    ? [...remembered(`readdir.types\u0000${directory}`, () => fs.readdirSync(directory, { withFileTypes: true }))]
    : [...remembered(`readdir\u0000${directory}`, () => fs.readdirSync(directory))];
}

export function readlinkSync(file: string): string {
  return remembered(`readlink\u0000${file}`, () => fs.readlinkSync(file));
}

/** A file's text (toolgate's own files, a repository's settings: small ones). */
export function readTextFileSync(file: string): string {
  return remembered(`read\u0000${file}`, () => fs.readFileSync(file, 'utf8'));
}
