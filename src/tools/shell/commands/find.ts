/**
 * find: reads its start points (deletes under them with `-delete`), runs
 * the commands its `-exec`/`-execdir`/`-ok`/`-okdir` actions name on what it
 * finds, writes the files `-fprint` and `-fls` name, and prints names that
 * all lie under its start points (symlinks among them unless `-type f` or
 * `-type d` limits it).
 */
import { hazardAt, type Hazard } from '../hazard.ts';
import { CURRENT_DIRECTORY, derivedWords, FOLLOWS_SYMLINKS, reads, type CommandPaths, type PathArgument } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import { write, type CommandModel, type InnerCommand, type RunCommands } from './command-model.ts';

const PATTERNS = new Set(['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname']);
const VALUES = new Set(['-type', '-xtype', '-perm', '-user', '-group', '-uid', '-gid', '-size', '-mtime', '-atime', '-ctime', '-mmin', '-amin', '-cmin', '-links', '-inum', '-maxdepth', '-mindepth', '-used', '-printf', '-fstype', '-context', '-regextype', '-newermt', '-newerat', '-newerct', '-newerBt']);
const FILES = new Set(['-newer', '-anewer', '-cnewer', '-samefile', '-files0-from', '-newerma', '-newermm', '-newermc', '-neweram', '-newerac', '-newercm', '-newerca', '-newercc', '-newermB', '-neweraB', '-newercB', '-newerBm', '-newerBa', '-newerBc', '-newerBB']);
const WRITES = new Set(['-fprint', '-fprint0', '-fls', '-fprintf']);
/** Actions that run a command on what find finds. */
const EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
/** Operators that widen what `-type f` limits it to. */
const ALTERNATIVES = new Set(['-o', '-or', ',', '!', '-not']);
/** Actions that print besides `-print0` (to its output, or to a file that may be /dev/stdout): with one of them the output is not NUL-separated names alone. */
const OTHER_OUTPUT = new Set(['-print', '-printf', '-ls', '-fprint', '-fprint0', '-fprintf', '-fls', '-exec', '-execdir', '-ok', '-okdir']);

export const find: CommandModel = {
  names: ['find'],
  options: {
    rules: [write('deletes files', { single: ['delete'] }), write('writes a file', { single: ['fprint', 'fprint0', 'fprintf', 'fls'] })],
  },
  paths: findPaths,
  runs: findExec,
  lists: {
    output: (words) => {
      const expression = expressionOf(words);
      return expression.includes('-print0') && !expression.some((value) => OTHER_OUTPUT.has(value)) ? 'nul' : 'lines';
    },
    maySymlink: (words) => {
      const expression = expressionOf(words);
      if (expression.some((value) => ALTERNATIVES.has(value))) return true;
      return !expression.some((value, index) => value === '-type' && (expression[index + 1] === 'f' || expression[index + 1] === 'd'));
    },
    // Every name starts with the start point it was found under.
    mayPrintOptions: () => false,
    under: (words) => findStartPoints(words).starts,
  },
  entries: 'moves',
};

/**
 * The start points of a `find` command (`.` when it names none), and where
 * its expression begins. Everything find reports lies under them.
 *
 * @example
 * findStartPoints([find, -L, src, docs, -name, x]).starts // [src, docs]
 */
export function findStartPoints(words: readonly ShellWord[]): { starts: ShellWord[]; expression: number; follows: boolean } {
  let index = 1;
  let follows = false;
  for (; index < words.length && /^-[HLP]+$|^-D$|^-O[0-9]*$/.test(words[index]!.value); index++) {
    if (words[index]!.value.includes('L')) follows = true;
    if (words[index]!.value === '-D') index++;
  }
  const starts: ShellWord[] = [];
  for (; index < words.length && (words[index]!.kind === 'dynamic' || !/^[-(!),]/.test(words[index]!.value)); index++) starts.push(words[index]!);
  return { starts: starts.length === 0 ? [CURRENT_DIRECTORY] : starts, expression: index, follows };
}

function expressionOf(words: readonly ShellWord[]): string[] {
  return words.slice(findStartPoints(words).expression).map((word) => word.value);
}

/** Start points are read (deleted under with -delete); -exec commands are judged on their own. */
function findPaths(words: readonly ShellWord[]): CommandPaths {
  const paths: PathArgument[] = [];
  const unsure: string[] = [];
  const { starts, expression, follows } = findStartPoints(words);
  if (follows) unsure.push(`find -L ${FOLLOWS_SYMLINKS}`);
  let index = expression;
  const deletes = words.slice(index).some((word) => word.value === '-delete');
  paths.push(...starts.map((word): PathArgument => ({ word, use: deletes ? 'delete' : 'read', into: deletes })));
  for (; index < words.length; index++) {
    const value = words[index]!.value;
    if (EXEC.has(value)) {
      while (index + 1 < words.length && !(words[index + 1]!.kind === 'static' && (words[index + 1]!.value === ';' || words[index + 1]!.value === '+'))) index++;
      index++;
    } else if (value === '-follow') unsure.push(`find -follow ${FOLLOWS_SYMLINKS}`);
    else if (PATTERNS.has(value) || VALUES.has(value)) index++;
    else if (FILES.has(value) && words[index + 1] !== undefined) paths.push({ word: words[++index]!, use: 'read' });
    else if (WRITES.has(value) && words[index + 1] !== undefined) {
      paths.push({ word: words[++index]!, use: 'write' });
      if (value === '-fprintf') index++;
    } else if (words[index]!.kind === 'dynamic' || !/^[-(!),]/.test(value)) paths.push(...reads(derivedWords(words[index]!, false)));
  }
  return { paths, unsure };
}

/** `find ... -exec cmd args {} \;` (and -execdir, -ok, -okdir): each is a command find runs. */
function findExec(words: readonly ShellWord[]): RunCommands {
  const inner: InnerCommand[] = [];
  const hazards: Hazard[] = [];
  let wrapper: string | undefined;
  for (let index = 1; index < words.length; index++) {
    const value = words[index]!.value;
    if (!EXEC.has(value)) continue;
    let end = index + 1;
    while (end < words.length && !(words[end]!.kind === 'static' && (words[end]!.value === ';' || words[end]!.value === '+'))) end++;
    if (end >= words.length) hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `find ${value}: the command has no terminating ";" or "+"` }));
    const ran = words.slice(index + 1, end);
    if (ran.length > 0) inner.push({ words: ran, via: `run by find ${value}`, appendsArguments: true, appendedNames: { cut: 'whole', atEnd: false }, changesDirectory: value.endsWith('dir') });
    wrapper = `find ${value} runs another command`;
    index = end;
  }
  return { inner, hazards, wrapper };
}
