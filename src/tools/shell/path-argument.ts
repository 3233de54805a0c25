/**
 * One path argument of a shell command and what the command does with it,
 * plus the helpers every command's grammar shares: reading words as paths
 * the conservative way (every operand, every option value with a `/` in it,
 * `@file`, `name=/path`).
 */
import { hasOption, optionValues, scanArguments, type ArgumentGrammar, type ScannedArguments } from './argument-scan.ts';
import type { ShellWord } from './shell-word.ts';

export type PathUse = 'read' | 'write' | 'delete';

export interface PathArgument {
  word: ShellWord;
  use: PathUse;
  /** A directory the command writes (or deletes) files in whose names are not in the command line. */
  into?: boolean;
  /** The words it copies, moves or links here when this path is a directory (`cp a b dir`): the files written are `dir/a`, `dir/b`. */
  sources?: readonly ShellWord[];
  /**
   * How the sources land in this destination: `directory` (cp, mv: into it
   * when it is a directory or there are several), `target` (`-T`: the
   * destination is the copy itself), `rsync` (a source ending in `/` puts
   * its contents there, any other goes in under its own name).
   */
  layout?: 'directory' | 'target' | 'rsync';
  /** The destination links to the sources (ln): no file inside a source directory is written. */
  links?: boolean;
  /** Relative to this directory (itself relative to the working directory) instead: `tar -C dir`, `git -C dir`. */
  base?: ShellWord;
  /** A symlink target: a relative one is also resolved from the link's directory, where the kernel will resolve it. */
  linkedFrom?: ShellWord;
  /**
   * Why the use is presumed, not known: a command toolgate has not modelled
   * may write or delete what it names; `patch` deletes the files its patch
   * says to. Where the policy forbids that use, it asks instead of blocking,
   * since the command may well not do it.
   */
  presumed?: string;
  /**
   * It reads (or deletes) every file below this path when it is a
   * directory (`grep -r`, `rg`, `tar -c`, `zip -r`), so a file a zone hides
   * there is touched too. `unless-piped`: the
   * command searches it only when its standard input is not a pipe (`rg x`
   * with no path searches `.`, or what is piped into it).
   */
  tree?: 'always' | 'unless-piped';
  /** Judged only when something by that name exists (a bare word of an unknown command: `trash Makefile`). */
  onlyIfExists?: boolean;
}

export interface CommandPaths {
  paths: PathArgument[];
  /** Why what the command touches cannot be known from its words: it asks. */
  unsure: string[];
}

export type PathHandler = (words: readonly ShellWord[]) => CommandPaths;

/** Why a command that walks directories following symlinks is unsure: completes "`tar -h` ...". */
export const FOLLOWS_SYMLINKS = 'follows symlinks while walking directories, and any of them can lead out of the zones';

/** The working directory, as a word: where a command writes when the line names no directory. */
export const CURRENT_DIRECTORY: ShellWord = { text: '.', value: '.', kind: 'static', tilde: false };

/**
 * `host:path`, `user@host:path`, `rsync://...`: another machine's path, not a local one.
 *
 * @example
 * isRemotePath('me@host:/srv') // true
 * isRemotePath('./a:b')        // false
 */
export function isRemotePath(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^[^/]*:/.test(value);
}

/**
 * The same use of each word.
 *
 * @example
 * pathUses([a, b], 'write') // [{ word: a, use: 'write' }, { word: b, use: 'write' }]
 */
export function pathUses(words: readonly ShellWord[], use: PathUse): PathArgument[] {
  return words.map((word) => ({ word, use }));
}

/**
 * A handler whose operands are all written (or deleted, as `use` says):
 * the values of `readOptions` are read, unknown options read the generic
 * way (`rm`, `touch`, `tee`).
 *
 * @example
 * operandTargets({ grammar: {}, use: 'delete' })([rm, a, b]).paths // [{ word: a, use: 'delete' }, { word: b, use: 'delete' }]
 */
export function operandTargets(options: { grammar: ArgumentGrammar; use: PathUse; readOptions?: readonly string[] }): PathHandler {
  return (words) => {
    const scanned = scanArguments({ words, grammar: options.grammar });
    return { paths: [...pathUses(scanned.operands, options.use), ...reads(optionValues(scanned, options.readOptions ?? [])), ...unknownOptionReads(words, scanned)], unsure: [] };
  };
}

/**
 * Whether the words are `NAME --help` or `NAME --version` alone, which print
 * and stop (`split --help` writes no file).
 *
 * @example
 * asksForHelpOnly([curl, --help]) // true
 */
export function asksForHelpOnly(words: readonly ShellWord[]): boolean {
  return words.length === 2 && words[1]!.kind === 'static' && /^--(help|version)$/.test(words[1]!.value);
}

/**
 * A tool's words after its subcommand (`npm run build -- --out=/x`), read
 * the generic way: the subcommand (and the script a `run` word names, for
 * `scripts`) is not a path, but only when it comes first and is a bare
 * name: after an option it could be that option's value (`npm --prefix /x
 * install`), and then every word is read.
 *
 * @example
 * subcommandReads([npm, run, build, --, --out=/x], new Set(['run'])) // reads /x
 */
export function subcommandReads(words: readonly ShellWord[], scripts: ReadonlySet<string> | undefined): PathArgument[] {
  const bare = (word: ShellWord | undefined) => word?.kind === 'static' && /^[A-Za-z][\w:.-]*$/.test(word.value) && !word.value.includes('..');
  if (!bare(words[1])) return genericReads(words);
  const script = scripts?.has(words[1]!.value) === true && bare(words[2]) ? 1 : 0;
  return genericReads(words, 2 + script);
}

/**
 * The paths of a command whose first operand is a pattern, a script or a
 * program (`grep PATTERN`, `sed SCRIPT`, `awk PROGRAM`) unless an option
 * gave it (`-e`, `-f`), and only when every option is understood: its other
 * operands and the files its options name (`files`) are read. `follows`
 * makes the walk unsure when one of its options is given (`grep -R`).
 *
 * @example
 * patternFirst({ words: [grep, -e, x, a.txt], grammar, given: ['-e'], files: ['-f'] }).paths // reads a.txt
 */
export function patternFirst(options: { words: readonly ShellWord[]; grammar: ArgumentGrammar; given: readonly string[]; files: readonly string[]; follows?: { names: readonly string[]; reason: string } }): CommandPaths {
  const { words } = options;
  const scanned = scanArguments({ words, grammar: options.grammar });
  const operands = hasOption(scanned, options.given) || scanned.unknownOption || scanned.dynamic ? scanned.operands : scanned.operands.slice(1);
  const paths = [...operands.flatMap((word) => reads(derivedWords(word, false))), ...reads(optionValues(scanned, options.files)), ...unknownOptionReads(words, scanned)];
  const unsure = options.follows !== undefined && hasOption(scanned, options.follows.names) ? [options.follows.reason] : [];
  return { paths, unsure };
}

/**
 * A recursive search's paths (`grep -r`, `rg`): each operand read as a tree
 * (every file below it), or the working directory when it names none, read
 * `implicit`ly. The files its options name (`exclude`: `-f patterns.txt`)
 * are read as files.
 *
 * @example
 * searchedTrees({ found: patternFirst(...), implicit: 'always', exclude: [] }).paths // [{ word: src, use: 'read', tree: 'always' }]
 */
export function searchedTrees(options: { found: CommandPaths; implicit: 'always' | 'unless-piped'; exclude: readonly ShellWord[] }): CommandPaths {
  const { found } = options;
  const named = new Set(options.exclude.map((word) => word.text));
  const paths = found.paths.map((entry) => (named.has(entry.word.text) || entry.use !== 'read' ? entry : { ...entry, tree: 'always' as const }));
  if (!paths.some((entry) => entry.tree !== undefined)) paths.push({ word: { ...CURRENT_DIRECTORY }, use: 'read', tree: options.implicit });
  return { paths, unsure: found.unsure };
}

/**
 * Every word from `from` to `to` read as a path: operands, the values of
 * options (`--file=/x`, `-I/usr/include`), and the path inside `@file` and
 * `name=/path` words.
 *
 * @example
 * genericReads([cc, -I/usr/include, main.c]) // reads /usr/include and main.c
 */
export function genericReads(words: readonly ShellWord[], from = 1, to = words.length): PathArgument[] {
  const paths: PathArgument[] = [];
  for (let index = from; index < to; index++) {
    const word = words[index]!;
    if (word.value === '--' || word.value === '-' || word.value === '') continue;
    if (word.kind !== 'dynamic' && word.value.startsWith('-')) {
      const attached = optionAttachedPath(word.value);
      if (attached !== undefined) paths.push(...reads(derivedWords({ ...word, text: attached, value: attached, tilde: false }, true)));
      continue;
    }
    paths.push(...reads(derivedWords(word, false)));
  }
  return paths;
}

/**
 * A word and the paths hidden in it: `@file` (curl, gcc response files),
 * `name=value` (`if=/dev/sda`, `--file=x`, `-F f=@x`). Derived paths count
 * only when they look like one (a `/`, or a leading `~` or `.`); the word
 * itself counts unless `derivedOnly`.
 *
 * @example
 * derivedWords(word('if=/etc/shadow'), false) // ['if=/etc/shadow', '/etc/shadow']
 */
export function derivedWords(word: ShellWord, derivedOnly: boolean): ShellWord[] {
  const words: ShellWord[] = [];
  if (!derivedOnly || looksLikePath(word.value)) words.push(word);
  if (word.kind === 'dynamic') return words;
  const seen = new Set([word.value]);
  let rest = word.value;
  for (let step = 0; step < 3; step++) {
    const equals = rest.indexOf('=');
    const next = rest.startsWith('@') || rest.startsWith('<') ? rest.slice(1) : equals > 0 ? rest.slice(equals + 1) : undefined;
    if (next === undefined || next === '') break;
    rest = next;
    if (looksLikePath(rest) && !seen.has(rest)) {
      seen.add(rest);
      words.push({ ...word, text: rest, value: rest, tilde: false });
    }
  }
  return words;
}

/**
 * Reads of each word.
 *
 * @example
 * reads([src, docs]) // [{ word: src, use: 'read' }, { word: docs, use: 'read' }]
 */
export function reads(words: readonly ShellWord[]): PathArgument[] {
  return words.map((word) => ({ word, use: 'read' }));
}

/**
 * No paths, nothing unsure.
 *
 * @example
 * none() // { paths: [], unsure: [] }
 */
export function none(): CommandPaths {
  return { paths: [], unsure: [] };
}

/**
 * The values of every option the grammar does not name, read as paths the
 * generic way, so that an option this check does not know cannot hide a
 * file (`--ignore-file=/etc/shadow`).
 *
 * @example
 * unknownOptionReads(words, scanned) // reads of the paths in unknown option words
 */
export function unknownOptionReads(words: readonly ShellWord[], scanned: ScannedArguments): PathArgument[] {
  if (!scanned.unknownOption) return [];
  const indexes = new Set(scanned.options.map((option) => option.index));
  return [...indexes].flatMap((index) => genericReads(words, index, index + 1));
}

function looksLikePath(value: string): boolean {
  return value.includes('/') || value.startsWith('~') || value.startsWith('.');
}

/** `--file=/etc/x` → `/etc/x`, `-I/usr/include` → `/usr/include`; undefined when the option carries no path. */
function optionAttachedPath(value: string): string | undefined {
  const equals = value.indexOf('=');
  if (equals !== -1) return value.slice(equals + 1) || undefined;
  const slash = value.search(/[/~]/);
  return slash === -1 ? undefined : value.slice(slash);
}

