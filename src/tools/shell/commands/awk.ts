/**
 * awk (and gawk, mawk, nawk): it reads the files it names; its program (the
 * first operand unless `-f`, `-e`/`--source` or `-E` gave it) is not a file,
 * and is read for what leaves the stream (awk-program-hazard.ts: system(),
 * pipes, redirections, getline from files). Options that run code from
 * files or load extensions are hazards; gawk's `-o`, `-d` and `-p` write a
 * file (a default name in the working directory without a value). It
 * writes only the contents of regular files.
 */
import { scanArguments, type ArgumentGrammar } from '../argument-scan.ts';
import { awkProgramHazard } from '../awk-program-hazard.ts';
import { hazardAt, programTextHazards, type Hazard } from '../hazard.ts';
import { patternFirst, type CommandPaths } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import type { CommandModel } from './command-model.ts';

const GRAMMAR: ArgumentGrammar = {
  shortValued: 'fvFeilE',
  shortOptional: 'odpL',
  shortFlags: 'bcCghMNnOPrsStV',
  longValued: ['file', 'assign', 'field-separator', 'source', 'include', 'load', 'exec'],
  longOptional: ['dump-variables', 'pretty-print', 'profile', 'lint'],
  longFlags: ['characters-as-bytes', 'traditional', 'copyright', 'gen-pot', 'help', 'bignum', 'non-decimal-data', 'use-lc-numeric', 'optimize', 'no-optimize', 'posix', 're-interval', 'sandbox', 'version', 'debug'],
};

export const awk: CommandModel = {
  names: ['awk', 'gawk', 'mawk', 'nawk'],
  reader: true,
  options: { rules: [], custom: awkHazards },
  paths: awkPaths,
  entries: 'keeps',
};

/** The program is not a file; gawk's -o/-d/-p write a file (a default name in the working directory without a value). */
function awkPaths(words: readonly ShellWord[]): CommandPaths {
  const found = patternFirst({ words, grammar: GRAMMAR, given: ['-f', '--file', '-e', '--source', '-E', '--exec'], files: ['-f', '--file', '-E', '--exec', '-i', '--include', '-l', '--load'] });
  const scanned = scanArguments({ words, grammar: GRAMMAR });
  const defaults: Record<string, string> = { '-o': 'awkprof.out', '--pretty-print': 'awkprof.out', '-p': 'awkprof.out', '--profile': 'awkprof.out', '-d': 'awkvars.out', '--dump-variables': 'awkvars.out' };
  for (const option of scanned.options) {
    const fallback = defaults[option.name];
    if (fallback === undefined) continue;
    const word = option.value ?? { text: fallback, value: fallback, kind: 'static', tilde: false };
    found.paths.push({ word, use: 'write' });
  }
  return found;
}

const AWK_SAFE_LONG = ['posix', 'traditional', 'lint', 'sandbox', 'characters-as-bytes', 're-interval', 'non-decimal-data', 'optimize', 'no-optimize', 'bignum', 'use-lc-numeric', 'version', 'help', 'copyright'];

/**
 * The program texts (`-e`/`--source`, or the first operand) are read;
 * options that run code from files or load extensions are hazards, gawk's
 * options that write files (`-d`, `-o`, `-p`) too. An option this reader
 * does not know is a hazard.
 */
function awkHazards(words: readonly ShellWord[]): Hazard[] {
  const name = words[0]!.value;
  const hazards: Hazard[] = [];
  const programs: { index: number; text: string }[] = [];
  const fromFile = (index: number) => [hazardAt({ index, kind: 'exec', reason: `${name} ${words[index]!.value}: runs awk code from a file or loads an extension` })];
  let index = 1;
  options: for (; index < words.length; index++) {
    const value = words[index]!.value;
    if (value === '--') {
      index++;
      break;
    }
    if (!value.startsWith('-') || value === '-') break;
    if (value.startsWith('--')) {
      const option = value.slice(2).split('=')[0]!;
      const attached = value.includes('=') ? value.slice(value.indexOf('=') + 1) : undefined;
      const is = (...names: string[]) => option !== '' && names.some((candidate) => candidate.startsWith(option));
      if (is('file', 'exec', 'include', 'load', 'debug')) return fromFile(index);
      if (is('source')) {
        if (attached !== undefined) programs.push({ index, text: attached });
        else if (index + 1 < words.length) programs.push({ index: ++index, text: words[index]!.value });
      } else if (is('field-separator', 'assign')) {
        if (attached === undefined) index++;
      } else if (!is(...AWK_SAFE_LONG)) {
        return [...hazards, hazardAt({ index, kind: 'unknown', reason: `${name} ${value}: an option this check does not know (it may write files or run code)` })];
      }
      continue;
    }
    for (let position = 1; position < value.length; position++) {
      const letter = value[position]!;
      const rest = value.slice(position + 1);
      // -D[file]: gawk's debugger, whose commands (from the file, or standard input) can eval awk code.
      if ('fEilD'.includes(letter)) return fromFile(index);
      if (letter === 'W') return [...hazards, hazardAt({ index, kind: 'unknown', reason: `${name} ${value}: -W options are not checked (they may run code)` })];
      if ('dop'.includes(letter)) hazards.push(hazardAt({ index, kind: 'write', reason: `${name} ${value}: writes a file (dump, pretty-print or profile)` }));
      if ('Fve'.includes(letter)) {
        if (rest === '') index++;
        if (letter === 'e') programs.push(rest === '' ? { index, text: words[index]?.value ?? '' } : { index, text: rest });
        continue options;
      }
    }
  }
  if (programs.length === 0) {
    const program = words[index];
    if (program === undefined) return [...hazards, hazardAt({ index: undefined, kind: 'unknown', reason: `${name} has no program text to check` })];
    programs.push({ index, text: program.value });
  }
  return [...hazards, ...programs.flatMap((program) => programTextHazards({ index: program.index, found: awkProgramHazard(program.text), name, words }))];
}
