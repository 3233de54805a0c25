/**
 * Which words of a simple command name files, and what the command does
 * with them: reads, writes or deletes. Conservative on purpose: any word
 * that could be a path is one (every operand, every option value with a `/`
 * in it, `@file` and `name=/path`), except where a command's own grammar
 * says a word is a pattern, a script or a mode (`grep PATTERN`, `sed
 * SCRIPT`, `chmod MODE`), and then only when every option was understood.
 * Commands that write their arguments come from `write-arguments.ts`.
 * Pure: words in, path uses out; the filesystem is judged elsewhere.
 */
import { optionValues, scanArguments, type ArgumentGrammar } from './argument-scan.ts';
import { asksForHelpOnly, derivedWords, genericReads, none, reads, subcommandReads, unknownOptionReads, type CommandPaths, type PathArgument, type PathHandler } from './path-argument.ts';
import type { ShellWord } from './shell-word.ts';
import { isWrapper, unwrap } from './wrapper-commands.ts';
import { commandModel } from './commands/command-models.ts';
import { indirectFileLists, unknownCommandPaths } from './unknown-command-paths.ts';
import { writerPaths } from './write-arguments.ts';

/** Commands whose arguments are never files: strings, numbers, names. */
const NO_PATHS = new Set([
  'echo', 'printf', 'true', 'false', ':', 'tr', 'sleep', 'seq', 'yes', 'expr', 'basename', 'dirname', 'kill', 'exit', 'return', 'break',
  'continue', 'shift', 'wait', 'which', 'type', 'whoami', 'id', 'uname', 'hostname', 'nproc', 'pwd', 'clear', 'jobs', 'fg', 'bg', 'times',
  'umask', 'logname', 'groups', 'arch', 'tty', 'eval', 'trap', 'alias', 'unalias', 'export', 'declare', 'typeset', 'local', 'readonly',
  'unset', 'set', 'shopt', 'let', 'bind', 'complete', 'compgen', 'read', 'getopts', 'mapfile', 'readarray', 'watch', 'history', 'builtin',
]);

/**
 * Tools whose first operand is a subcommand from a fixed vocabulary (and
 * npm's `run SCRIPT`, a script name): those words are not paths; the rest are.
 */
const SUBCOMMAND_TOOLS = new Set(['pnpm', 'yarn', 'bun', 'cargo', 'go', 'docker', 'podman', 'kubectl', 'pip', 'pip3', 'uv', 'poetry', 'apt', 'apt-get', 'brew', 'gem', 'bundle', 'composer', 'dotnet', 'helm', 'terraform', 'systemctl', 'rustup', 'deno']);
const RUN_SCRIPT: ReadonlySet<string> = new Set(['run', 'run-script', 'rum', 'urn']);
/** The tools whose `run SCRIPT` names a script, not a path. */
const SCRIPT_RUNNERS = new Set(['pnpm', 'yarn', 'bun']);

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'rbash', 'fish', 'csh', 'tcsh', 'oksh', 'loksh']);

/**
 * The path arguments of one simple command (`words[0]` is its name as
 * written; `name` is the normalised name). Commands without paths give none.
 *
 * @example
 * commandPaths({ name: 'cp', words: [cp, a.txt, ../ro/x] }).paths
 * // [{ word: a.txt, use: 'read' }, { word: ../ro/x, use: 'write', sources: [a.txt] }]
 */
export function commandPaths(options: { name: string; words: readonly ShellWord[] }): CommandPaths {
  const found = grammarPaths(options);
  // `du --files0-from=list`, `tar -T list`: files named in another file are never judged, so they ask.
  const indirect = indirectFileLists(options);
  return indirect.length === 0 ? found : { paths: found.paths, unsure: [...found.unsure, ...indirect] };
}

function grammarPaths(options: { name: string; words: readonly ShellWord[] }): CommandPaths {
  const { name, words } = options;
  if (NO_PATHS.has(name)) return none();
  const handler = commandModel(name)?.paths ?? writerPaths(name);
  // `split --help` prints and stops: a modelled command's or a writer's words then name no file.
  if (handler !== undefined) return asksForHelpOnly(words) ? none() : handler(words);
  const reader = READERS.get(name);
  if (reader !== undefined) return reader(words);
  if (SHELLS.has(name)) return shellScript(words);
  if (isWrapper(name)) return wrapperOptions(name, words);
  if (SUBCOMMAND_TOOLS.has(name)) return { paths: subcommandReads(words, SCRIPT_RUNNERS.has(name) ? RUN_SCRIPT : undefined), unsure: [] };
  // Unknown means writer: its operands are written and deleted, unless it is a known reader (unknown-command-paths.ts).
  return unknownCommandPaths({ name, words });
}


/**
 * Whether `name` never takes files as arguments (its words need no checks).
 *
 * @example
 * takesNoPaths('echo') // true
 */
export function takesNoPaths(name: string): boolean {
  return NO_PATHS.has(name);
}


const TEST_FILE_OPERATORS = new Set(['-a', '-b', '-c', '-d', '-e', '-f', '-g', '-h', '-k', '-p', '-r', '-s', '-u', '-w', '-x', '-G', '-L', '-N', '-O', '-S']);

/** test / [: only the operands of file tests are paths; the rest are strings. */
function test(words: readonly ShellWord[]): CommandPaths {
  const paths: PathArgument[] = [];
  for (let index = 1; index < words.length; index++) {
    const value = words[index]!.value;
    if (TEST_FILE_OPERATORS.has(value) && words[index + 1] !== undefined) paths.push({ word: words[index + 1]!, use: 'read' });
    if (['-nt', '-ot', '-ef'].includes(value)) paths.push(...reads([words[index - 1], words[index + 1]].filter((word) => word !== undefined)));
  }
  return { paths, unsure: [] };
}

/** Text tools whose separators (`cut -d/`) are not paths. */
function separated(grammar: ArgumentGrammar): PathHandler {
  return (words) => {
    const scanned = scanArguments({ words, grammar });
    return { paths: [...scanned.operands.flatMap((word) => reads(derivedWords(word, false))), ...unknownOptionReads(words, scanned)], unsure: [] };
  };
}

/** `bash script.sh` reads the script; `bash -c CODE` runs code that is analysed on its own. */
function shellScript(words: readonly ShellWord[]): CommandPaths {
  const paths: PathArgument[] = [];
  let command = false;
  let index = 1;
  for (; index < words.length; index++) {
    const value = words[index]!.value;
    if (words[index]!.kind === 'dynamic') break;
    if (value === '--' || value === '-') {
      index++;
      break;
    }
    if (value === '--rcfile' || value === '--init-file') {
      if (words[index + 1] !== undefined) paths.push({ word: words[++index]!, use: 'read' });
      continue;
    }
    if (value.startsWith('--')) continue;
    if (!value.startsWith('-') && !value.startsWith('+')) break;
    if (value.includes('c')) command = true;
    if (/[oO]/.test(value)) index++;
  }
  if (command) index++;
  return { paths: [...paths, ...genericReads(words, index)], unsure: [] };
}

const XARGS: ArgumentGrammar = { shortValued: 'adEILnPs', longValued: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'], longOptional: ['eof', 'replace', 'max-lines'], shortOptional: 'eil' };

/** A wrapper's own words (up to the command it runs): `xargs -a FILE`, `env -C DIR`, `chroot DIR`. */
function wrapperOptions(name: string, words: readonly ShellWord[]): CommandPaths {
  const end = unwrap({ name, words })?.start ?? words.length;
  if (name === 'xargs') return { paths: reads(optionValues(scanArguments({ words, grammar: XARGS, end }), ['-a', '--arg-file'])), unsure: [] };
  if (name === 'env') {
    const scanned = scanArguments({ words, grammar: { shortValued: 'uCSa', longValued: ['unset', 'chdir', 'split-string', 'argv0'] }, end });
    return { paths: reads(optionValues(scanned, ['-C', '--chdir'])), unsure: [] };
  }
  const paths = genericReads(words, 1, end);
  if (['time', 'strace', 'ltrace'].includes(name)) {
    const scanned = scanArguments({ words, grammar: { shortValued: 'oefpsuEabIOSXP', longValued: ['output', 'format'] }, end });
    paths.push(...optionValues(scanned, ['-o', '--output']).map((word): PathArgument => ({ word, use: 'write' })));
  }
  return { paths, unsure: [] };
}

/** parallel: the command part is shell code (analysed on its own); the arguments after `:::` are passed to it, `::::` names files it reads. */
function parallel(words: readonly ShellWord[]): CommandPaths {
  const separator = words.findIndex((word) => /^::::?\+?$/.test(word.value));
  return { paths: separator === -1 ? [] : genericReads(words, separator + 1).filter((entry) => !/^::::?\+?$/.test(entry.word.value)), unsure: [] };
}

const READERS: ReadonlyMap<string, PathHandler> = new Map<string, PathHandler>([
  ['test', test],
  ['[', test],
  ['parallel', parallel],
  ['cut', separated({ shortValued: 'bcdf', longValued: ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'] })],
  ['paste', separated({ shortValued: 'd', longValued: ['delimiters'] })],
  ['join', separated({ shortValued: 'aeotjv12', longValued: [] })],
  ['column', separated({ shortValued: 'cstoNlRHWdr', longValued: ['separator', 'output-separator', 'table-columns', 'table-name', 'output-width'] })],
  ['numfmt', separated({ shortValued: 'd', longValued: ['delimiter', 'field', 'format', 'from', 'to', 'from-unit', 'to-unit', 'padding', 'round', 'suffix', 'invalid'] })],
  ['date', separated({ shortValued: 'dIs', longValued: ['date', 'iso-8601', 'set', 'rfc-3339'], shortOptional: '' })],
]);
