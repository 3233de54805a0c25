/**
 * jq (and gojq, which takes its options): it reads the files it names and
 * the files `--slurpfile`, `--rawfile` and `-f` name, and loads modules
 * from the directories `-L` names; its program (the first operand unless
 * `-f` gave it) is not a file, but its `import` and `include` directives
 * read files the zones never see. It writes nothing.
 */
import { hazardAt, programTextHazards, type Hazard } from '../hazard.ts';
import { derivedWords, genericReads, reads, type CommandPaths, type PathArgument } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import type { CommandModel } from './command-model.ts';

/** jq's options by what follows them: the one grammar the path and program checks read. */
const OPTIONS = {
  /** Two words follow (`--arg name value`); the second is a file for `--slurpfile` and `--rawfile`. */
  twoWords: new Set(['--arg', '--argjson', '--slurpfile', '--rawfile']),
  /** The program comes from the file that follows. */
  programFile: new Set(['-f', '--from-file']),
  /** One word follows (`-L` a directory modules are loaded from). */
  oneWord: new Set(['--indent', '-L', '--library-path']),
  flags: /^(-[nrjascCMSeh0V]+|--(seq|stream|stream-errors|raw-input|slurp|compact-output|null-input|raw-output|raw-output0|join-output|ascii-output|sort-keys|color-output|monochrome-output|tab|exit-status|unbuffered|args|jsonargs|help|version|yaml-input|yaml-output))$/,
};

export const jq: CommandModel = {
  names: ['jq', 'gojq'],
  reader: true,
  // Its file operands are paths (globs expanded and judged as such); only the program is read here.
  options: { rules: [], customOnly: true, custom: jqHazards },
  paths: jqPaths,
  entries: 'keeps',
};

/** Module directives of the jq language: `import "path" as $data;` and `include "path";` read files named in the program. */
const JQ_MODULE_DIRECTIVE = /\b(?:import|include)\b/;

/**
 * Whether an option word reads the program from a file: `-f FILE`, `-rf
 * FILE`, `--from-file[=FILE]` (jq's program, and yq's expression: the
 * Python yq runs jq).
 *
 * @example
 * namesProgramFile('-rf') // true
 */
export function namesProgramFile(value: string): boolean {
  return OPTIONS.programFile.has(value) || value.startsWith('--from-file=') || /^-[a-zA-Z]*f[a-zA-Z]*$/.test(value);
}

/**
 * A jq program (jq, gojq) can read any file through its module directives:
 * `import "../../etc/data" as $d;` loads a JSON file, `include "x";` jq code
 * that can do the same, from paths the zones never see. The program (the
 * first operand, after options) is searched for the two words anywhere,
 * strings and comments included, as awk programs are: a false alarm asks,
 * a missed directive would read. A program from a file (`-f`) or one known
 * only at run time cannot be searched, so it is a hazard itself.
 */
function jqHazards(words: readonly ShellWord[]): Hazard[] {
  const name = words[0]!.value;
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    const value = word.value;
    if (word.kind === 'dynamic') return programTextHazards({ index, found: undefined, name, words });
    if (value === '--' || !value.startsWith('-') || value === '-') {
      const program = value === '--' ? index + 1 : index;
      if (words[program] === undefined) return [];
      const found = JQ_MODULE_DIRECTIVE.exec(words[program]!.value);
      return programTextHazards({ index: program, found: found === null ? undefined : { kind: 'read', reason: `the program's ${found[0]} directive reads a file it names, wherever it is` }, name, words });
    }
    if (namesProgramFile(value)) {
      return [hazardAt({ index, kind: 'read', reason: `${name} ${value}: the program comes from a file, and its import and include directives can read any file` })];
    }
    if (OPTIONS.twoWords.has(value)) index += 2;
    else if (OPTIONS.oneWord.has(value)) index++;
    else if (value.startsWith('--') && !OPTIONS.flags.test(value.split('=')[0]!)) {
      return [hazardAt({ index, kind: 'unknown', reason: `${name} ${value}: an option this check does not know (the program after it cannot be found)` })];
    }
  }
  return [];
}

/** FILTER [FILES]: `--arg name value` takes two words, `--slurpfile name file` reads the second. */
function jqPaths(words: readonly ShellWord[]): CommandPaths {
  const paths: PathArgument[] = [];
  const operands: ShellWord[] = [];
  let filterGiven = false;
  let unknown = false;
  let dynamic = false;
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    const value = word.value;
    if (word.kind === 'dynamic') dynamic = true;
    if (value === '--') {
      operands.push(...words.slice(index + 1));
      break;
    }
    if (word.kind === 'dynamic' || !value.startsWith('-') || value === '-') operands.push(word);
    else if (OPTIONS.twoWords.has(value)) {
      if ((value === '--slurpfile' || value === '--rawfile') && words[index + 2] !== undefined) paths.push({ word: words[index + 2]!, use: 'read' });
      index += 2;
    } else if (OPTIONS.programFile.has(value) || value === '-L' || value === '--library-path') {
      filterGiven ||= OPTIONS.programFile.has(value);
      if (words[index + 1] !== undefined) paths.push({ word: words[index + 1]!, use: 'read' });
      index++;
    } else if (OPTIONS.oneWord.has(value)) index++;
    else if (value.startsWith('-L')) paths.push(...genericReads(words, index, index + 1));
    else if (!OPTIONS.flags.test(value)) {
      unknown = true;
      paths.push(...genericReads(words, index, index + 1));
    }
  }
  const files = filterGiven || unknown || dynamic ? operands : operands.slice(1);
  return { paths: [...paths, ...files.flatMap((word) => reads(derivedWords(word, false)))], unsure: [] };
}
