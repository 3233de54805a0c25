/**
 * Where a command's paths really lead, through the zones' own resolution
 * (symlinks, `..`, absolute paths): for `paths_in` rules, and for the files
 * redirections write.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { zoneContaining } from '../fs/resolve-zone-path.ts';
import { resolveInZones, type Zone } from '../fs/zones.ts';
import type { AnalyzedCommand, CwdState } from './analyze-command.ts';
import { plainRealPath } from './judge-path.ts';
import { walkKernelPath } from './kernel-walk.ts';
import type { ShellWord } from './shell-word.ts';

/** `outside` and `unsure` both keep a `paths_in` rule from applying; `unsure` also makes a block rule ask. */
export type PathsVerdict = { kind: 'inside' } | { kind: 'outside'; reason: string } | { kind: 'unsure'; reason: string };

/** Above this many entries, a glob's directory is not listed and the glob is unsure. */
const MAX_GLOB_ENTRIES = 2000;

/**
 * The directory a command runs in: the tool's working directory, moved by
 * any `cd` before it; undefined when a `cd` went somewhere only known at
 * run time, or to a path whose `..` leads elsewhere after a symlink than
 * before it (bash's `cd` and `cd -P` disagree there).
 *
 * @example
 * effectiveCwd({ state: { kind: 'changed', path: 'src' }, cwd: '/p/ws' }) // '/p/ws/src'
 */
export function effectiveCwd(options: { state: CwdState; cwd: string }): string | undefined {
  const { state, cwd } = options;
  if (state.kind === 'initial') return cwd;
  if (state.kind === 'unknown') return undefined;
  const lexical = path.resolve(cwd, state.path);
  if (!state.path.split('/').includes('..')) return lexical;
  // bash's cd applies ".." to the name (`cd link/..` stays here), `cd -P` after following the link: unknown unless both agree.
  const physical = walkKernelPath({ input: state.path, cwd });
  const logical = walkKernelPath({ input: lexical, cwd });
  return physical.ok && logical.ok && physical.end === logical.end ? lexical : undefined;
}

/**
 * A word as a path: tilde expanded the way bash does for `~` and `~/...`;
 * undefined when bash would expand it some other way (`~user`, `~+`).
 *
 * @example
 * wordPath(shellWord(parse('cat ~/x').commands[0].command.suffix[0]), '/home/me') // '/home/me/x'
 */
export function wordPath(word: ShellWord, home: string): string | undefined {
  if (!word.tilde) return word.value;
  if (word.value === '~') return home;
  if (word.value.startsWith('~/')) return path.join(home, word.value.slice(2));
  return undefined;
}

/**
 * Whether every path-like argument of `command` (after the rule's own
 * `skip` words), every file it reads by `<`, and its working directory lie
 * in `zones`. Conservative: every non-option word counts as a path, options
 * carrying a `/` count by their value, and whatever cannot be known makes
 * the answer `unsure`.
 *
 * @example
 * await checkPathsIn({ command, skip: 1, zones: [workspace], cwd, home }) // { kind: 'inside' }
 */
export async function checkPathsIn(options: { command: AnalyzedCommand; skip: number; zones: readonly Zone[]; cwd: string; home: string; realDirectories?: Map<string, string | undefined> }): Promise<PathsVerdict> {
  const { command, zones, home, realDirectories } = options;
  const cwd = effectiveCwd({ state: command.cwd, cwd: options.cwd });
  if (cwd === undefined) return { kind: 'unsure', reason: 'an earlier cd went to a directory only known at run time' };
  if (command.appendsArguments) return { kind: 'unsure', reason: `${command.name} receives arguments that are not written here` };
  const candidates: ShellWord[] = [{ text: '.', value: '.', kind: 'static', tilde: false }];
  for (const word of [...command.words.slice(options.skip), ...command.inputs]) {
    if (word.kind === 'dynamic') return { kind: 'unsure', reason: `the argument ${word.text} is only known at run time` };
    const value = word.value;
    if (value === '' || value === '-') continue;
    if (value.startsWith('-')) {
      const attached = optionPath(value);
      if (attached !== undefined) candidates.push({ ...word, value: attached, tilde: attached.startsWith('~') });
      continue;
    }
    candidates.push(word);
  }
  for (const candidate of candidates) {
    const verdict = candidate.kind === 'pattern' ? await globInside({ word: candidate, zones, cwd, home }) : await pathInside({ word: candidate, zones, cwd, home, realDirectories });
    if (verdict.kind !== 'inside') return verdict;
  }
  return { kind: 'inside' };
}

/** `--file=/etc/x` → `/etc/x`, `-I/usr/include` → `/usr/include`; options without a path in them are skipped. */
function optionPath(value: string): string | undefined {
  const equals = value.indexOf('=');
  const attached = equals === -1 ? undefined : value.slice(equals + 1);
  if (attached !== undefined && (attached.includes('/') || attached.startsWith('~') || attached.startsWith('.'))) return attached;
  const slash = value.search(/[/~]/);
  return slash === -1 ? undefined : value.slice(slash);
}

async function pathInside(options: { word: ShellWord; zones: readonly Zone[]; cwd: string; home: string; realDirectories?: Map<string, string | undefined> }): Promise<PathsVerdict> {
  const resolvedPath = wordPath(options.word, options.home);
  if (resolvedPath === undefined) return { kind: 'unsure', reason: `${options.word.text} expands to a directory only known at run time` };
  // The zone resolver's answer, without its cost, for plain names in a zone without suffix limits.
  const plain = plainRealPath({ path: resolvedPath, cwd: options.cwd, ...(options.realDirectories === undefined ? {} : { realDirectories: options.realDirectories }) });
  if (plain !== undefined && /^[\x20-\x7e]*$/.test(plain) && zoneContaining(options.zones, plain)?.suffixes === undefined && zoneContaining(options.zones, plain) !== undefined) return { kind: 'inside' };
  const resolved = resolveInZones({ zones: options.zones, path: resolvedPath, cwd: options.cwd, operation: 'read' });
  return resolved.ok ? { kind: 'inside' } : { kind: 'outside', reason: resolved.reason };
}

/**
 * A glob is inside when it can only match entries of one directory that is
 * inside, and none of that directory's symlinks lead out. Globs elsewhere
 * than the last path component, braces, extglobs and patterns that could
 * match `..` are unsure.
 */
async function globInside(options: { word: ShellWord; zones: readonly Zone[]; cwd: string; home: string }): Promise<PathsVerdict> {
  const { word, zones, cwd, home } = options;
  const unsure = (why: string): PathsVerdict => ({ kind: 'unsure', reason: `the glob ${word.text} ${why}` });
  if (/[{}()]/.test(word.value)) return unsure('uses braces or extended patterns');
  const segments = word.value.split('/');
  const last = segments[segments.length - 1]!;
  if (segments.slice(0, -1).some((segment) => /[*?[]/.test(segment))) return unsure('has a pattern before its last path component');
  if (last.startsWith('.') || last.startsWith('[')) return unsure('could match "." or ".."');
  const directoryText = segments.length === 1 ? '.' : segments.slice(0, -1).join('/') || '/';
  const directoryPath = wordPath({ ...word, value: directoryText }, home);
  if (directoryPath === undefined) return unsure('starts in a directory only known at run time');
  const resolved = resolveInZones({ zones, path: directoryPath, cwd, operation: 'read' });
  if (!resolved.ok) return { kind: 'outside', reason: resolved.reason };
  let entries: Dirent[];
  try {
    entries = await readdir(resolved.absolute, { withFileTypes: true });
  } catch {
    return { kind: 'inside' };
  }
  if (entries.length > MAX_GLOB_ENTRIES) return unsure(`matches in a directory of more than ${MAX_GLOB_ENTRIES} entries`);
  // Only plain names with `*` and `?` are compared here (the same in bash and Node); otherwise every symlink counts.
  const simple = /^[A-Za-z0-9._*?-]*$/.test(last);
  for (const entry of entries) {
    if (!entry.isSymbolicLink()) continue;
    if (simple && !path.matchesGlob(entry.name, last)) continue;
    const link = resolveInZones({ zones, path: path.join(resolved.absolute, entry.name), cwd, operation: 'read' });
    if (!link.ok) return { kind: 'outside', reason: `the glob ${word.text} can match ${entry.name}: ${link.reason}` };
  }
  return { kind: 'inside' };
}
