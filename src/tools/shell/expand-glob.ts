/**
 * What a glob argument can expand to, so that each match is judged like a
 * path written out: `cat ../*` reads every entry of the parent directory.
 * Only globs in the last path component are expanded; anything bash could
 * expand in ways this cannot follow (braces, extglobs, patterns in
 * directory names, patterns that could match `.` or `..`) is unsure.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { wordPath } from './shell-paths.ts';
import type { ShellWord } from './shell-word.ts';

/** Above this many entries a directory is not listed: the glob is unsure. */
export const MAX_GLOB_ENTRIES = 2000;

export type GlobExpansion =
  /** `directory` is the directory listed (it is read too); `matches` the paths as bash would pass them. */
  | { kind: 'expanded'; directory: string; matches: string[] }
  | { kind: 'unsure'; reason: string };

/**
 * Lists the entries of the glob's directory that the pattern can match.
 * When the pattern is more than `*` and `?` over plain names, every entry
 * counts (a superset: conservative). A directory that cannot be listed
 * yields no matches (bash then passes the word as written, and the
 * directory itself is still judged).
 *
 * @example
 * await expandGlob({ word: shellWord(parse('cat ../*')...), cwd: '/p/ws', home })
 * // { kind: 'expanded', directory: '..', matches: ['../secret', '../ws'] }
 */
export async function expandGlob(options: { word: ShellWord; cwd: string; home: string }): Promise<GlobExpansion> {
  const { word, cwd, home } = options;
  const unsure = (why: string): GlobExpansion => ({ kind: 'unsure', reason: `the glob ${word.text} ${why}` });
  if (/[{}()]/.test(word.value)) return unsure('uses braces or extended patterns');
  const segments = word.value.split('/');
  const last = segments[segments.length - 1]!;
  if (segments.slice(0, -1).some((segment) => /[*?[]/.test(segment))) return unsure('has a pattern before its last path component');
  if (last.startsWith('.') || last.startsWith('[')) return unsure('could match "." or ".."');
  const directoryText = segments.length === 1 ? '.' : segments.slice(0, -1).join('/') || '/';
  const directory = wordPath({ ...word, value: directoryText }, home);
  if (directory === undefined) return unsure('starts in a directory only known at run time');
  let names: string[];
  try {
    // Joined, not resolved: the kernel applies ".." after the symlinks before it.
    names = await readdir(path.isAbsolute(directory) ? directory : `${cwd}${path.sep}${directory}`);
  } catch {
    return { kind: 'expanded', directory, matches: [] };
  }
  if (names.length > MAX_GLOB_ENTRIES) return unsure(`matches in a directory of more than ${MAX_GLOB_ENTRIES} entries`);
  // Plain names with `*` and `?` match the same in bash and Node; other patterns count every entry.
  const simple = /^[A-Za-z0-9._*?-]*$/.test(last);
  const matching = simple ? names.filter((name) => !name.startsWith('.') && path.matchesGlob(name, last)) : names;
  // `grep x *` in a directory holding a file named `-R` runs `grep x -R ...`: a match that reads as an option is not a path.
  const optionLike = segments.length === 1 ? matching.find((name) => name.startsWith('-')) : undefined;
  if (optionLike !== undefined) return unsure(`matches ${JSON.stringify(optionLike)}, which the command would read as an option`);
  // Concatenated, not joined, for the same reason.
  const prefix = segments.length === 1 ? '' : directory.endsWith('/') ? directory : `${directory}/`;
  return { kind: 'expanded', directory, matches: matching.map((name) => `${prefix}${name}`) };
}
