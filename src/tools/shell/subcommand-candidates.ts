/**
 * Which words of a tool's command line may be its subcommand. An option
 * written before the subcommand can take the next word as its value: npm
 * reads `npm --editor ls install` as `--editor=ls` and runs `install`, pip
 * reads `pip --log list install x` as `--log=list`. So the first word that
 * is not an option is only surely the subcommand when the word before it
 * cannot take a value; otherwise the next one may be, and so on.
 */
import type { ShellWord } from './shell-word.ts';

/** Options known to take no value, per tool without a model of its own (commands/): a word after one of them is not its value. */
const FLAGS: ReadonlyMap<string, RegExp> = new Map([
  ['pnpm', /^(-[gsr]+|--(global|silent|recursive|json|long|parseable|offline|prefer-offline|ignore-scripts))$/],
  ['pip', /^(-[qv]+|--(quiet|verbose|isolated|no-input|no-color|disable-pip-version-check|require-virtualenv))$/],
  ['pip3', /^(-[qv]+|--(quiet|verbose|isolated|no-input|no-color|disable-pip-version-check|require-virtualenv))$/],
]);

/**
 * The indexes of the words, from `start`, that may be the subcommand: the
 * first word that is not an option and, while the option right before a
 * candidate could have taken it as its value, the next such word too. A
 * word only known at run time is a candidate (and may be anything).
 * `flags` matches the options known to take no value.
 *
 * @example
 * subcommandCandidates({ words: [npm, --editor, ls, install], start: 1, flags: /^-g$/ }) // [2, 3]
 * subcommandCandidates({ words: [npm, -g, ls], start: 1, flags: /^-g$/ })                // [2]
 */
export function subcommandCandidates(options: { words: readonly ShellWord[]; start: number; flags: RegExp | undefined }): number[] {
  const { words, flags } = options;
  const candidates: number[] = [];
  for (let index = options.start; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind === 'static' && word.value.startsWith('-')) continue;
    candidates.push(index);
    const before = words[index - 1];
    const mayBeValue = before !== undefined && before.kind === 'static' && before.value.startsWith('-') && before.value !== '--' && !before.value.includes('=') && flags?.test(before.value) !== true;
    if (!mayBeValue) break;
  }
  return candidates;
}

/**
 * The options known to take no value of a tool without a model of its own.
 *
 * @example
 * knownFlags('pip')?.test('-q') // true
 */
export function knownFlags(name: string): RegExp | undefined {
  return FLAGS.get(name);
}
