/**
 * rg (ripgrep): it reads every file below the paths it names (the working
 * directory when it names none, unless its input is piped), and the
 * pattern and ignore files its options name; its pattern (the first operand
 * unless `-e` or `-f` gave it) is not a file, and `--files` lists names
 * without reading any. `-L` follows symlinks. `--pre` and `--hostname-bin`
 * run programs. With `-l` or `--files` it prints names, one per line or
 * NUL-ended with `-0`, for a command that takes them. It writes nothing.
 */
import { hasOption, optionValues, scanArguments, type ArgumentGrammar } from '../argument-scan.ts';
import { FOLLOWS_SYMLINKS, patternFirst, searchedTrees, type CommandPaths } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import { exec, type CommandModel } from './command-model.ts';

const GRAMMAR: ArgumentGrammar = {
  shortValued: 'efgtTmABCMjdErV',
  shortFlags: 'iISsFwxvcClLnNoqHhpPuUzab0.',
  longValued: [
    'regexp', 'file', 'glob', 'iglob', 'type', 'type-not', 'type-add', 'type-clear', 'max-count', 'after-context', 'before-context', 'context', 'max-columns',
    'threads', 'max-depth', 'max-filesize', 'color', 'colors', 'sort', 'sortr', 'replace', 'encoding', 'engine', 'ignore-file', 'pre', 'pre-glob', 'path-separator',
    'context-separator', 'field-context-separator', 'field-match-separator', 'dfa-size-limit', 'regex-size-limit', 'hostname-bin', 'hyperlink-format', 'generate',
  ],
  longFlags: [
    'ignore-case', 'smart-case', 'case-sensitive', 'fixed-strings', 'word-regexp', 'line-regexp', 'invert-match', 'count', 'count-matches', 'files', 'files-with-matches',
    'files-without-match', 'line-number', 'no-line-number', 'only-matching', 'quiet', 'hidden', 'no-hidden', 'no-ignore', 'no-ignore-vcs', 'no-ignore-parent', 'no-ignore-dot',
    'no-ignore-global', 'no-ignore-exclude', 'no-ignore-files', 'follow', 'no-follow', 'heading', 'no-heading', 'with-filename', 'no-filename', 'pretty', 'json', 'vimgrep',
    'column', 'no-column', 'byte-offset', 'trim', 'multiline', 'multiline-dotall', 'pcre2', 'text', 'binary', 'search-zip', 'null', 'null-data', 'unrestricted', 'stats',
    'debug', 'trace', 'crlf', 'passthru', 'one-file-system', 'no-messages', 'no-config', 'help', 'version', 'type-list', 'max-columns-preview', 'sort-files', 'auto-hybrid-regex',
  ],
};

export const rg: CommandModel = {
  names: ['rg'],
  reader: true,
  options: {
    rules: [
      exec('runs a program on every file searched', { long: ['pre'] }),
      // ripgrep runs it on every search, hyperlinks or not, to learn the host name.
      exec('runs a program (to learn the host name)', { long: ['hostname-bin'] }),
    ],
  },
  paths: rgPaths,
  lists: {
    output: (words) => {
      const values = words.slice(1).map((word) => word.value);
      if (!values.some((value) => value === '--files' || value === '--files-with-matches' || /^-[a-zA-Z]*l/.test(value))) return undefined;
      return values.some((value) => value === '--null' || /^-[a-zA-Z]*0$/.test(value)) ? 'nul' : 'lines';
    },
    // It skips the symlinks it meets (-L, which follows them, is unsure of its own).
    maySymlink: () => false,
    // It prints names as they are.
    mayPrintOptions: () => true,
  },
  entries: 'keeps',
};

/** The pattern is not a file; every path named is searched whole. */
function rgPaths(words: readonly ShellWord[]): CommandPaths {
  const follows = { names: ['-L', '--follow'], reason: `rg -L ${FOLLOWS_SYMLINKS}` };
  const found = patternFirst({ words, grammar: GRAMMAR, given: ['-e', '--regexp', '-f', '--file', '--files', '--type-list'], files: ['-f', '--file', '--ignore-file'], follows });
  const scanned = scanArguments({ words, grammar: GRAMMAR });
  // rg --files lists names, reading no file; without a path rg searches `.`, or what is piped into it.
  if (hasOption(scanned, ['--files', '--type-list', '-h', '--help', '-V', '--version'])) return found;
  return searchedTrees({ found, implicit: 'unless-piped', exclude: optionValues(scanned, ['-f', '--file', '--ignore-file']) });
}
