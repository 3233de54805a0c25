/**
 * sed (GNU sed, and gsed, its name where another sed is the system's): it
 * reads the files it names and only rewrites them with `-i`; its script (the
 * first operand unless `-e` or `-f` gave it) is not a file, and is read for
 * the commands that leave the stream (`e`, `w`, `r`: sed-script-hazard.ts);
 * `-f` takes the script from a file no check reads, and `--sandbox` makes
 * sed itself refuse e/w/r. It writes only the contents of regular files.
 */
import { hasOption, optionValues, scanArguments, type ArgumentGrammar } from '../argument-scan.ts';
import { hazardAt, programTextHazards, type Hazard } from '../hazard.ts';
import { patternFirst, type CommandPaths } from '../path-argument.ts';
import { sedScriptHazard } from '../sed-script-hazard.ts';
import type { ShellWord } from '../shell-word.ts';
import type { CommandModel } from './command-model.ts';

const GRAMMAR: ArgumentGrammar = {
  shortValued: 'efl',
  shortOptional: 'i',
  shortFlags: 'nrEsuzb',
  longValued: ['expression', 'file', 'line-length'],
  longOptional: ['in-place'],
  longFlags: ['quiet', 'silent', 'regexp-extended', 'separate', 'unbuffered', 'null-data', 'zero-terminated', 'posix', 'debug', 'sandbox', 'follow-symlinks', 'binary', 'help', 'version'],
};

export const sed: CommandModel = {
  names: ['sed', 'gsed'],
  reader: true,
  options: { rules: [], custom: sedHazards },
  paths: sedPaths,
  entries: 'keeps',
};

/** The script is not a file; with -i the files are rewritten. */
function sedPaths(words: readonly ShellWord[]): CommandPaths {
  const found = patternFirst({ words, grammar: GRAMMAR, given: ['-e', '--expression', '-f', '--file'], files: ['-f', '--file'] });
  const scanned = scanArguments({ words, grammar: GRAMMAR });
  if (!hasOption(scanned, ['-i', '--in-place'])) return found;
  const scripts = new Set(optionValues(scanned, ['-f', '--file']));
  return { paths: found.paths.map((entry) => (scripts.has(entry.word) ? entry : { ...entry, use: 'write' })), unsure: found.unsure };
}

/**
 * The scripts (`-e`, `--expression`, or the first operand) are read for
 * e/w/r commands; `-f` (a script from a file) is a hazard, `-i` writes, and
 * `--sandbox` makes sed itself refuse e/w/r. GNU sed permutes options, so
 * options after operands count too.
 */
function sedHazards(words: readonly ShellWord[]): Hazard[] {
  const name = words[0]!.value;
  const hazards: Hazard[] = [];
  const scripts: { index: number; text: string }[] = [];
  const operands: number[] = [];
  let sandboxed = false;
  for (let index = 1; index < words.length; index++) {
    const value = words[index]!.value;
    if (value === '--') {
      for (let operand = index + 1; operand < words.length; operand++) operands.push(operand);
      break;
    }
    if (!value.startsWith('-') || value === '-') {
      operands.push(index);
      continue;
    }
    if (value.startsWith('--')) {
      const option = value.slice(2).split('=')[0]!;
      const attached = value.includes('=') ? value.slice(value.indexOf('=') + 1) : undefined;
      if (option === '') continue;
      if ('sandbox'.startsWith(option) && option.length >= 2) sandboxed = true;
      if ('in-place'.startsWith(option)) hazards.push(hazardAt({ index, kind: 'write', reason: `${name} ${value}: edits files in place` }));
      else if ('file'.startsWith(option)) hazards.push(hazardAt({ index, kind: 'exec', reason: `${name} ${value}: reads its script from a file` }));
      else if ('expression'.startsWith(option)) {
        if (attached !== undefined) scripts.push({ index, text: attached });
        else if (index + 1 < words.length) scripts.push({ index: ++index, text: words[index]!.value });
      } else if ('line-length'.startsWith(option) && attached === undefined) index++;
      continue;
    }
    for (let position = 1; position < value.length; position++) {
      const letter = value[position];
      const rest = value.slice(position + 1);
      if (letter === 'i') {
        hazards.push(hazardAt({ index, kind: 'write', reason: `${name} ${value}: edits files in place` }));
        break;
      }
      if (letter === 'f') {
        hazards.push(hazardAt({ index, kind: 'exec', reason: `${name} ${value}: reads its script from a file` }));
        break;
      }
      if (letter === 'e') {
        if (rest !== '') scripts.push({ index, text: rest });
        else if (index + 1 < words.length) scripts.push({ index: ++index, text: words[index]!.value });
        break;
      }
      if (letter === 'l') {
        if (rest === '') index++;
        break;
      }
    }
  }
  if (scripts.length === 0) {
    const first = operands[0];
    if (first === undefined) return [...hazards, hazardAt({ index: undefined, kind: 'unknown', reason: `${name} has no script to check` })];
    scripts.push({ index: first, text: words[first]!.value });
  }
  if (sandboxed) return hazards;
  for (const script of scripts) hazards.push(...programTextHazards({ index: script.index, found: sedScriptHazard(script.text), name, words }));
  return hazards;
}
