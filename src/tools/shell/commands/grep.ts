/**
 * grep (and egrep, fgrep, zgrep, which take its options): it reads the
 * files it names, every file below them with `-r` (the working directory
 * when it names none), and the pattern files `-f` names; its pattern (the
 * first operand unless `-e` or `-f` gave it) is not a file. `-R` follows
 * symlinks. With `-l` or `-L` it prints names, one per line or NUL-ended
 * with `-Z`, for a command that takes them (`grep -lZ x | xargs -0 cat`);
 * zgrep prints those itself, one per line whatever `-Z` says, and is not
 * followed. It writes nothing.
 */
import { hasOption, optionValues, scanArguments, type ArgumentGrammar } from '../argument-scan.ts';
import { FOLLOWS_SYMLINKS, patternFirst, searchedTrees, type CommandPaths } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import type { CommandModel } from './command-model.ts';

const GRAMMAR: ArgumentGrammar = {
  shortValued: 'efmABCdD',
  shortFlags: 'EFGPiyvwxcLloqsbHhnTZzaIrRUV',
  longValued: ['regexp', 'file', 'max-count', 'after-context', 'before-context', 'context', 'directories', 'devices', 'exclude', 'exclude-from', 'exclude-dir', 'include', 'label', 'binary-files', 'group-separator'],
  longOptional: ['color', 'colour'],
  longFlags: [
    'extended-regexp', 'fixed-strings', 'basic-regexp', 'perl-regexp', 'ignore-case', 'no-ignore-case', 'invert-match', 'word-regexp', 'line-regexp', 'count',
    'files-without-match', 'files-with-matches', 'only-matching', 'quiet', 'silent', 'no-messages', 'byte-offset', 'with-filename', 'no-filename', 'line-number',
    'initial-tab', 'null', 'null-data', 'text', 'recursive', 'dereference-recursive', 'binary', 'line-buffered', 'help', 'version', 'no-group-separator',
  ],
};

export const grep: CommandModel = {
  names: ['grep', 'egrep', 'fgrep', 'zgrep'],
  reader: true,
  paths: grepPaths,
  lists: {
    output: (words) => {
      if (program(words) === 'zgrep') return undefined;
      const values = words.slice(1).map((word) => word.value);
      if (!values.some((value) => /^--files-with/.test(value) || /^-[a-zA-Z]*[lL]/.test(value))) return undefined;
      return values.some((value) => value === '--null' || /^-[a-zA-Z]*Z/.test(value)) ? 'nul' : 'lines';
    },
    // grep -r skips the symlinks it meets (-R, which follows them, is unsure of its own).
    maySymlink: () => false,
    // It prints names as they are.
    mayPrintOptions: () => true,
  },
  entries: 'keeps',
};

/** The name it runs under, without its directory. */
function program(words: readonly ShellWord[]): string {
  return words[0]!.value.slice(words[0]!.value.lastIndexOf('/') + 1);
}

/** The pattern is not a file; a recursive search reads every file below its operands. */
function grepPaths(words: readonly ShellWord[]): CommandPaths {
  const follows = { names: ['-R', '--dereference-recursive'], reason: `grep -R ${FOLLOWS_SYMLINKS}` };
  const found = patternFirst({ words, grammar: GRAMMAR, given: ['-e', '--regexp', '-f', '--file'], files: ['-f', '--file', '--exclude-from'], follows });
  const scanned = scanArguments({ words, grammar: GRAMMAR });
  const recursive =
    hasOption(scanned, ['-r', '-R', '--recursive', '--dereference-recursive']) ||
    // GNU grep takes any unambiguous prefix of an action (-d rec is -d recurse): anything but read or skip may recurse.
    optionValues(scanned, ['-d', '--directories']).some((value) => value.kind !== 'static' || (value.value !== 'read' && value.value !== 'skip'));
  // grep -r with no file searches the working directory, whatever its input is.
  return recursive ? searchedTrees({ found, implicit: 'always', exclude: optionValues(scanned, ['-f', '--file', '--exclude-from']) }) : found;
}
