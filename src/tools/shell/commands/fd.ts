/**
 * fd (fdfind, its name in Debian's package): it walks the directories it is
 * given and only reads; `-L` follows the symlinks it meets. `-x`/`-X` run a
 * command on each name it finds (or once on all), appended whole; it prints
 * names one per line, NUL-ended with `-0`, symlinks among them unless `-t`
 * limits it to files or directories, and puts `./` before relative names
 * when it prints them with NULs or runs a command on them, unless
 * `--strip-cwd-prefix` says not to. It writes nothing itself.
 */
import { followingWalk } from '../following-walk.ts';
import { hazardAt, type Hazard } from '../hazard.ts';
import type { ShellWord } from '../shell-word.ts';
import type { CommandModel, InnerCommand, RunCommands } from './command-model.ts';

/** fd's options that run a command on what it finds: `-x`, `-X`, their long forms, and clusters ending in one (`-Hx`). */
const EXEC = /^(-x|-X|--exec|--exec-batch)$|^-[HIusigFalLp01q]*[xX]$/;
/** The `-t` values that list no symlinks. */
const NO_LINKS = new Set(['f', 'file', 'd', 'dir', 'directory']);

export const fd: CommandModel = {
  names: ['fd', 'fdfind'],
  reader: true,
  options: {
    rules: [],
    customOnly: true,
    // fd always walks; -L makes it follow the links it meets. Its own options end where the command it runs begins
    // (`fd -L -x cat`: -L is fd's, `fd -x sort -L`'s is sort's), which is judged as a command of its own.
    custom: (words) => followingWalk(ownWords(words), { recursive: undefined, follows: ['L', 'follow'], unless: undefined }),
  },
  runs: fdExec,
  lists: {
    output: (words) => (words.slice(1).some((word) => word.value === '-0' || word.value === '--print0') ? 'nul' : 'lines'),
    maySymlink: (words) => {
      const types = fdTypes(words.slice(1).map((word) => word.value));
      return types.length === 0 || types.some((type) => !NO_LINKS.has(type));
    },
    mayPrintOptions: (words) => words.some((word) => word.value.startsWith('--strip-cwd-prefix') && word.value !== '--strip-cwd-prefix=never'),
  },
  entries: 'keeps',
};

/** fd's words up to its first `-x`/`-X` (that word included). */
function ownWords(words: readonly ShellWord[]): readonly ShellWord[] {
  const exec = words.findIndex((word, index) => index > 0 && EXEC.test(word.value));
  return exec === -1 ? words : words.slice(0, exec + 1);
}

/** The values of fd's `-t`/`--type` options (`-t f`, `-tf`, `--type=file`); several mean any of them. */
function fdTypes(values: readonly string[]): string[] {
  const types: string[] = [];
  for (let index = 0; index < values.length; index++) {
    const value = values[index]!;
    if (value === '-t' || value === '--type') types.push(values[++index] ?? '');
    else if (value.startsWith('--type=')) types.push(value.slice('--type='.length));
    else if (/^-t./.test(value)) types.push(value.slice(2));
  }
  return types;
}

/**
 * `fd ... -x cmd args` (and `-X`, `--exec`, `--exec-batch`): the command
 * takes every word up to a `;` (or the end), and fd runs it once per file
 * (or once for all), appending the path unless a `{}` placeholder says where.
 */
function fdExec(words: readonly ShellWord[]): RunCommands {
  const inner: InnerCommand[] = [];
  const hazards: Hazard[] = [];
  let wrapper: string | undefined;
  // `--base-directory` moves fd, and the commands it runs, into another directory.
  const moves = words.some((word) => word.kind !== 'static' || /^--base-directory(=|$)/.test(word.value));
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (word.value === '--') break;
    const exec = /^(-x|-X|--exec|--exec-batch)$/.test(word.value) ? word.value : EXEC.test(word.value) && word.kind === 'static' ? word.value : undefined;
    if (exec === undefined) continue;
    let end = index + 1;
    while (end < words.length && !(words[end]!.kind === 'static' && words[end]!.value === ';')) end++;
    const ran = words.slice(index + 1, end);
    if (ran.length === 0) hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `${words[0]!.value} ${exec}: no command follows it` }));
    else inner.push({ words: ran, via: `run by ${words[0]!.value} ${exec}`, appendsArguments: true, appendedNames: { cut: 'whole', atEnd: false }, changesDirectory: moves });
    wrapper = `${words[0]!.value} ${exec} runs another command`;
    index = end;
  }
  return { inner, hazards, wrapper };
}
