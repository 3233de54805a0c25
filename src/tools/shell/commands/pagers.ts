/**
 * The pagers (less, more, most, and zless and zmore, which page compressed
 * files through less and more): they read the files they name. At a
 * terminal they run what they are told to (`!cmd`, and `+cmd` at start),
 * `-o`/`-O` write a log file and `-k` reads key bindings that can run
 * commands; none is read as a path. less and more write only the contents
 * of regular files; most, zless and zmore are not known to, so a later
 * command of their line is not judged through them.
 */
import { bangs, initialCommands } from '../argument-hazards.ts';
import { exec, write, type CommandModel, type OptionHazards } from './command-model.ts';

/** less's options, which the others are taken to share. */
const OPTIONS: OptionHazards = {
  rules: [
    write('writes a log file', { short: 'oO', long: ['log-file', 'LOG-FILE'] }),
    exec('reads key bindings that can run commands', { short: 'k', long: ['lesskey-file', 'lesskey-src', 'lesskey-content'] }),
  ],
  custom: (words) => [...initialCommands(words), ...bangs(words)],
};
/** The pagers known to write only the contents of regular files, if anything. */
const KEEPS_LAYOUT = new Set(['less', 'more']);

/** One model per name: they are different programs, read alike. */
export const PAGERS: readonly CommandModel[] = ['less', 'more', 'most', 'zless', 'zmore'].map(
  (name): CommandModel => ({
    names: [name],
    reader: true,
    options: OPTIONS,
    ...(KEEPS_LAYOUT.has(name) ? { entries: 'keeps' as const } : {}),
  }),
);
