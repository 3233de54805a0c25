/**
 * zip and unzip. zip writes the archive and reads the files it adds (every
 * file below a directory with `-r`, following symlinks unless `-y`;
 * deleting them with `-m`), takes a list of them from a file (`-@`,
 * `--files-from`, `-T`) and runs a program to test the archive (`-TT`).
 * unzip reads the archive and extracts into `-d DIR` (or the working
 * directory) members named only inside it, or only lists them; `-:` keeps
 * their "../". zip writes only the contents of regular files; unzip moves
 * entries where it extracts.
 */
import { hasOption, optionValues, scanArguments } from '../argument-scan.ts';
import { CURRENT_DIRECTORY, FOLLOWS_SYMLINKS, pathUses, unknownOptionReads, type CommandPaths, type PathArgument } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import { exec, type CommandModel } from './command-model.ts';

export const zip: CommandModel = {
  names: ['zip'],
  options: { rules: [exec('runs a program to test the archive', { single: ['TT'], long: ['unzip-command'] })] },
  paths: zipPaths,
  fileLists: { options: ['--files-from', '-T', '-@'] },
  entries: 'keeps',
};

export const unzip: CommandModel = {
  names: ['unzip'],
  paths: unzipPaths,
  entries: 'moves',
};

/** unzip ARCHIVE [MEMBERS] [-x MEMBERS] [-d DIR]: options may follow the archive. */
function unzipPaths(words: readonly ShellWord[]): CommandPaths {
  const paths: PathArgument[] = [];
  let archive: ShellWord | undefined;
  let directory: ShellWord | undefined;
  let listing = false;
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    const value = word.value;
    if (word.kind !== 'dynamic' && value.startsWith('-') && value !== '-') {
      if (/^-[a-zA-Z]*d$/.test(value)) directory = words[++index];
      else if (/^-d./.test(value)) directory = { ...word, text: value.slice(2), value: value.slice(2), tilde: false };
      else if (/^-[a-zA-Z]*P$/.test(value)) index++;
      if (/^-[a-zA-Z]*[pcltvzZ]/.test(value)) listing = true;
      continue;
    }
    // Members (and -x exclusions) are names inside the archive, not paths here; a word known only at run time could be an option.
    if (archive === undefined) archive = word;
    else if (word.kind === 'dynamic') paths.push({ word, use: 'read' });
  }
  if (archive !== undefined) paths.push({ word: archive, use: 'read' });
  if (!listing) paths.push({ word: directory ?? CURRENT_DIRECTORY, use: 'write', into: true });
  else if (directory !== undefined) paths.push({ word: directory, use: 'read' });
  // `-:` keeps "../" in member names, which unzip otherwise strips.
  const escapes = words.some((word) => word.kind !== 'dynamic' && /^-[^-]*:/.test(word.value));
  return { paths, unsure: escapes && !listing ? ['unzip -: extracts members with ".." in their names, which can land anywhere'] : [] };
}

/** zip ARCHIVE FILES...: the archive is written, the files read; `-r` follows symlinks unless `-y`. */
function zipPaths(words: readonly ShellWord[]): CommandPaths {
  const scanned = scanArguments({ words, grammar: { shortValued: 'bnOPstZ', longValued: ['temp-path', 'suffixes', 'output-file', 'password', 'from-date', 'compression-method', 'split-size', 'unzip-command'] } });
  const [archive, ...files] = scanned.operands;
  // `-m` / `--move` deletes the files once they are in the archive.
  const moves = scanned.options.some((option) => option.name === '-m' || (option.name.length > 3 && '--move'.startsWith(option.name)));
  const recursive = hasOption(scanned, ['-r', '-R', '--recurse-paths', '--recurse-patterns']);
  // -r puts every file below a directory in the archive, the hidden ones too.
  const read = pathUses(files, moves ? 'delete' : 'read').map((entry) => (recursive ? { ...entry, tree: 'always' as const } : entry));
  const paths: PathArgument[] = [...read, ...pathUses(optionValues(scanned, ['-O', '--output-file']), 'write'), ...unknownOptionReads(words, scanned)];
  if (archive !== undefined) paths.push({ word: archive, use: 'write' });
  return { paths, unsure: recursive && !hasOption(scanned, ['-y', '--symlinks']) ? [`zip -r ${FOLLOWS_SYMLINKS} (without -y)`] : [] };
}
