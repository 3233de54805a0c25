/**
 * man: it renders the pages it is asked for (an operand with a slash is a
 * page file, like `-l FILE`), and a page's troff requests include other
 * files (`.so /etc/shadow` prints it), so every file or directory it is
 * pointed at can be read whole; `-P`, `-H`, `-C` and `--browser` run a
 * pager, a browser or a configured program, and `!` runs a shell command.
 * Not known to write only the contents of regular files: a later command of
 * its line is not judged through it.
 */
import { bangs, indexesOf } from '../argument-hazards.ts';
import { hazardAt, type Hazard } from '../hazard.ts';
import type { ShellWord } from '../shell-word.ts';
import { exec, type CommandModel } from './command-model.ts';

export const man: CommandModel = {
  names: ['man'],
  reader: true,
  options: {
    rules: [
      exec('runs a pager, browser or configured program', { short: 'PHC', long: ['pager', 'html', 'config-file', 'browser'] }),
      // A page's troff requests include other files (`.so /etc/shadow` prints it) and preprocessors read databases.
      { kind: 'read', what: 'renders pages from a file or directory it names, whose troff requests (.so) can include any file', short: 'lMp', long: ['local-file', 'manpath', 'preprocessor'] },
    ],
    custom: (words) => [...bangs(words), ...pageFiles(words)],
  },
};

/** `man ./page.1`: an operand with a slash is a page file, rendered like `man -l`. */
function pageFiles(words: readonly ShellWord[]): Hazard[] {
  return indexesOf(words, (value) => !value.startsWith('-') && value.includes('/')).map((index) =>
    hazardAt({ index, kind: 'read', reason: `man ${words[index]!.value}: renders that file as a page, whose troff requests (.so) can include any file` }),
  );
}
