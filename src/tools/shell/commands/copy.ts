/**
 * The copy family, cp, mv, install and ln, which share one grammar of
 * operands: the last operand (or `-t DIR`) is written, and when it is a
 * directory the files written are in it; the sources are read (mv:
 * removed; a hard link: written through, so they must be writable too).
 * What each does to directory entries differs: ln and cp may make links
 * and trees (cp copying only contents makes none), mv renames (a plain file
 * moved lands as a plain file), install writes regular files only.
 */
import { hasOption, optionValues, scanArguments, type ArgumentGrammar, type ScannedArguments } from '../argument-scan.ts';
import { CURRENT_DIRECTORY, FOLLOWS_SYMLINKS, pathUses, reads, unknownOptionReads, type PathArgument, type PathHandler, type PathUse } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import type { CommandModel } from './command-model.ts';

type CopyName = 'cp' | 'mv' | 'install' | 'ln';

const COPY: ArgumentGrammar = { shortValued: 'St', longValued: ['suffix', 'target-directory', 'sparse', 'no-preserve'], longOptional: ['backup', 'preserve', 'reflink', 'context', 'update'] };
const INSTALL: ArgumentGrammar = { shortValued: 'Stmog', longValued: ['suffix', 'target-directory', 'mode', 'owner', 'group', 'strip-program'], longOptional: ['backup', 'preserve-context', 'context'] };

export const cp: CommandModel = { names: ['cp'], paths: copyLike('cp'), entries: (words) => (copiesContentOnly(words) ? 'keeps' : 'replaces') };
export const mv: CommandModel = { names: ['mv'], paths: copyLike('mv'), entries: 'renames' };
export const install: CommandModel = { names: ['install'], paths: copyLike('install'), entries: 'keeps' };
export const ln: CommandModel = { names: ['ln'], paths: copyLike('ln'), entries: 'replaces' };

/**
 * The last operand (or `-t DIR`) is written, and when it is a directory
 * the files written are in it; the sources are read (mv: removed; a hard
 * link: written through, so they must be writable too).
 */
function copyLike(name: CopyName): PathHandler {
  return (words) => {
    const scanned = scanArguments({ words, grammar: name === 'install' ? INSTALL : COPY });
    const unsure: string[] = [];
    if (name === 'install' && hasOption(scanned, ['-d', '--directory'])) return { paths: pathUses(scanned.operands, 'write'), unsure };
    if (name === 'cp' && hasOption(scanned, ['-L', '--dereference']) && hasOption(scanned, ['-r', '-R', '--recursive', '-a', '--archive'])) unsure.push(`cp -L ${FOLLOWS_SYMLINKS}`);
    const directory = optionValues(scanned, ['-t', '--target-directory'])[0];
    const operands = scanned.operands;
    let sources = operands;
    let destination = directory;
    if (destination === undefined) {
      // `ln -s TARGET` alone makes the link in the working directory.
      if (operands.length >= 2 || name !== 'ln') {
        sources = operands.slice(0, -1);
        destination = operands.at(-1);
      } else destination = CURRENT_DIRECTORY;
    }
    const symbolic = name === 'ln' && hasOption(scanned, ['-s', '--symbolic']);
    // `cp -l` (`--link`, or any abbreviation of it) makes hard links like ln: each a write-capable alias of its source.
    const hardLink = (name === 'ln' && !symbolic) || (name === 'cp' && scanned.options.some((option) => option.name === '-l' || (option.name.startsWith('--l') && '--link'.startsWith(option.name))));
    const sourceUse: PathUse = name === 'mv' ? 'delete' : hardLink ? 'write' : 'read';
    const paths: PathArgument[] = sources.map((word) => ({ word, use: sourceUse, ...(symbolic && destination !== undefined ? { linkedFrom: destination } : {}) }));
    // `-T` (`--no-target-directory`): the destination is the copy itself, even when it is a directory.
    const noTargetDirectory = directory === undefined && scanned.options.some((option) => option.name === '-T' || (option.name.length > 5 && '--no-target-directory'.startsWith(option.name)));
    if (destination !== undefined) {
      const landing = { word: destination, sources, layout: noTargetDirectory ? 'target' : 'directory', ...(name === 'ln' ? { links: true } : {}) } as const;
      paths.push({ ...landing, use: 'write' });
      // What it replaces there is removed first (or renamed over): a delete of each file that already exists where a source lands.
      if (replacesDestination(name, scanned)) paths.push({ ...landing, use: 'delete', onlyIfExists: true });
    }
    paths.push(...reads(optionValues(scanned, ['--reference'])), ...unknownOptionReads(words, scanned));
    return { paths, unsure };
  };
}

/**
 * Whether the command removes a file already at the destination rather than
 * writing into it: `ln -f`, `cp --remove-destination`, `cp -f` (when it
 * cannot open the file: a read-only one), `install` (always unlinks first),
 * `mv` (renames over it) unless `-n`. Plain `cp` writes into the file.
 */
function replacesDestination(name: CopyName, scanned: ScannedArguments): boolean {
  const given = (short: string, long: string, shortest: number) => scanned.options.some((option) => option.name === short || (option.name.length >= shortest && long.startsWith(option.name)));
  if (name === 'install') return true;
  if (name === 'mv') return !given('-n', '--no-clobber', '--no-cl'.length);
  if (name === 'ln') return given('-f', '--force', '--f'.length);
  return given('-f', '--force', '--f'.length) || given('--remove-destination', '--remove-destination', '--rem'.length);
}

/** Short options of cp that only copy file contents (`t` and `S` take the rest of the word, or the next one, as their value). */
const PLAIN_COPY_SHORT = 'finuvbpTLxZ';
const PLAIN_COPY_LONG = /^--(force|interactive|no-clobber|verbose|update(=.*)?|backup(=.*)?|suffix(=.*)?|target-directory(=.*)?|no-target-directory|dereference|remove-destination|strip-trailing-slashes|one-file-system|debug|parents|reflink(=.*)?|sparse=(auto|always|never)|help|version)$/;

/**
 * Whether a cp command makes regular files only: no tree copied (its
 * symlinks would come along), no link made (`-l`, `-s`), no hard links
 * kept (`--preserve=links`). Any other option counts as one of those.
 */
function copiesContentOnly(words: readonly ShellWord[]): boolean {
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind === 'dynamic') return false;
    const value = word.value;
    if (value === '--') return true;
    if (!value.startsWith('-') || value === '-') continue;
    if (value.startsWith('--')) {
      if (!PLAIN_COPY_LONG.test(value)) return false;
      if (value === '--target-directory' || value === '--suffix') index++;
      continue;
    }
    for (let at = 1; at < value.length; at++) {
      const letter = value[at]!;
      if (letter === 't' || letter === 'S') {
        if (at === value.length - 1) index++;
        break;
      }
      if (!PLAIN_COPY_SHORT.includes(letter)) return false;
    }
  }
  return true;
}
