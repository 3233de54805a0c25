/**
 * Hazards an argument carries in its text, whatever option it follows:
 * `less +!cmd` and `vim +cmd` run a command at start, `!` runs a shell
 * command in less and man. Read by option-hazards.ts and by the command
 * models (commands/pagers.ts, commands/man.ts).
 */
import { hazardAt, type Hazard } from './hazard.ts';
import type { ShellWord } from './shell-word.ts';

/**
 * `less +!cmd`, `vim +cmd`: initial commands.
 *
 * @example
 * initialCommands(words('less +!id x')) // [{ index: 1, kind: 'exec', reason: 'less +!id: runs a command at start (which can run programs)' }]
 */
export function initialCommands(words: readonly ShellWord[]): Hazard[] {
  return indexesOf(words, (value) => value.startsWith('+') && value !== '+').map((index) =>
    hazardAt({ index, kind: 'exec', reason: `${words[0]!.value} ${words[index]!.value}: runs a command at start (which can run programs)` }),
  );
}

/**
 * `!` runs a shell command in less and man.
 *
 * @example
 * bangs(words('man !id')) // [{ index: 1, kind: 'exec', reason: 'man: the argument !id contains "!", which can run a shell command' }]
 */
export function bangs(words: readonly ShellWord[]): Hazard[] {
  return indexesOf(words, (value) => value.includes('!')).map((index) =>
    hazardAt({ index, kind: 'exec', reason: `${words[0]!.value}: the argument ${words[index]!.value} contains "!", which can run a shell command` }),
  );
}

/**
 * The indexes of the arguments (not the name) whose text passes `test`; a word only known at run time passes none.
 *
 * @example
 * indexesOf(words('dd if=x of=y'), (value) => value.startsWith('of=')) // [2]
 */
export function indexesOf(words: readonly ShellWord[], test: (value: string) => boolean): number[] {
  const indexes: number[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind !== 'dynamic' && test(word.value)) indexes.push(index);
  }
  return indexes;
}
