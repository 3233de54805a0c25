/**
 * tar (GNU tar, and bsdtar and gtar under their own names): creating writes
 * the archive (`-f`) and reads the members, extracting writes under `-C DIR`
 * (or the working directory) files named only inside the archive, listing
 * only reads. Old-style `tar xzf a.tar` is read like `tar -xzf a.tar`.
 */
import { hasOption, optionValues, scanArguments, type ArgumentGrammar } from '../argument-scan.ts';
import { hazardAt, type Hazard } from '../hazard.ts';
import { CURRENT_DIRECTORY, derivedWords, FOLLOWS_SYMLINKS, reads, unknownOptionReads, type CommandPaths, type PathArgument } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import { exec, type CommandModel } from './command-model.ts';

/** Short options that take a value (the next word, or the rest of a cluster). */
const VALUED = 'fCTXbgHKLNVI';
const LONG_VALUED: ArgumentGrammar['longValued'] = ['file', 'directory', 'files-from', 'exclude-from', 'blocking-factor', 'listed-incremental', 'format', 'starting-file', 'newer', 'after-date', 'label', 'use-compress-program', 'to-command', 'exclude', 'transform', 'xform', 'owner', 'group', 'mode', 'mtime', 'checkpoint-action', 'info-script', 'new-volume-script', 'rsh-command', 'rmt-command', 'tape-length', 'record-size', 'volno-file', 'index-file', 'level', 'strip-components', 'suffix', 'backup', 'occurrence', 'quoting-style'];

export const tar: CommandModel = {
  names: ['tar', 'gtar', 'bsdtar'],
  options: {
    rules: [
      exec('runs a program (compressor, command, script or remote shell)', {
        short: 'IF',
        long: ['to-command', 'use-compress-program', 'checkpoint-action', 'info-script', 'new-volume-script', 'rsh-command', 'rmt-command'],
      }),
    ],
    custom: tarHazards,
  },
  paths: tarPaths,
  fileLists: { options: ['--files-from', '-T'], cluster: /^-[A-Za-z0-9]*T/ },
  entries: 'moves',
};

/** An old-style first word that runs a program (`tar xIf sh archive`), and an archive name with `:` (a remote shell opens it). */
function tarHazards(words: readonly ShellWord[]): Hazard[] {
  const hazards: Hazard[] = [];
  const first = words[1];
  if (first !== undefined && first.kind === 'static' && !first.value.startsWith('-') && /[IF]/.test(first.value)) {
    hazards.push(hazardAt({ index: 1, kind: 'exec', reason: `tar ${first.value}: runs a program (compressor or volume script)` }));
  }
  const local = words.some((word) => word.value === '--force-local');
  if (!local) {
    for (let index = 1; index < words.length; index++) {
      if (words[index]!.value.includes(':')) {
        hazards.push(hazardAt({ index, kind: 'exec', reason: `tar ${words[index]!.value}: an archive name with ":" is opened through a remote shell` }));
      }
    }
  }
  return hazards;
}

/**
 * Creating writes the archive (`-f`), extracting writes under `-C DIR` (or
 * the working directory), listing only reads. Members to archive are read
 * relative to the `-C` in force; members to extract are names inside the
 * archive.
 */
function tarPaths(words: readonly ShellWord[]): CommandPaths {
  const normalised = oldStyle(words);
  const scanned = scanArguments({ words: normalised, grammar: { shortValued: VALUED, longValued: LONG_VALUED } });
  const has = (short: string, long: string) => scanned.options.some((option) => option.name === `-${short}` || option.name === `--${long}`);
  const extract = has('x', 'extract') || has('x', 'get');
  const create = has('c', 'create') || has('r', 'append') || has('u', 'update') || has('A', 'catenate') || has('A', 'concatenate');
  const paths: PathArgument[] = [];
  const unsure: string[] = [];
  for (const archive of optionValues(scanned, ['-f', '--file'])) {
    if (archive.value === '-') continue;
    // The archive is written like any file: a zone that asks before writes asks, a hard link or FIFO asks, a policy-like name asks.
    paths.push(create || hasOption(scanned, ['--delete']) ? { word: archive, use: 'write' } : { word: archive, use: 'read' });
  }
  paths.push(...reads(optionValues(scanned, ['-T', '--files-from', '-X', '--exclude-from'])), ...unknownOptionReads(normalised, scanned));
  const directories = optionValues(scanned, ['-C', '--directory']);
  if (extract) {
    for (const directory of directories.length === 0 ? [CURRENT_DIRECTORY] : directories) paths.push({ word: directory, use: 'write', into: true });
    if (has('P', 'absolute-names')) unsure.push('tar -P extracts members with absolute names and "..", which can land anywhere');
  } else if (create) {
    const base = directories.at(-1);
    // `--remove-files` deletes each member once it is archived (abbreviations included: `--remove`).
    const removes = scanned.options.some((option) => option.name.length > 4 && option.name.startsWith('--rem') && '--remove-files'.startsWith(option.name));
    // A member that is a directory goes in whole (unless --no-recursion): every file below it is read, the hidden ones too.
    const tree = scanned.options.some((option) => option.name === '--no-recursion') ? {} : { tree: 'always' as const };
    // `@archive` (bsdtar) adds the entries of that archive: the file after the `@` is read too, wherever it is.
    for (const member of scanned.operands) {
      for (const word of derivedWords(member, false)) paths.push({ word, use: removes ? 'delete' : 'read', ...tree, ...(base === undefined ? {} : { base }) });
    }
    if (removes) paths.push(...optionValues(scanned, ['-T', '--files-from']).map((): PathArgument => ({ word: base ?? CURRENT_DIRECTORY, use: 'delete', into: true })));
    paths.push(...reads(directories));
    if (has('h', 'dereference')) unsure.push(`tar -h ${FOLLOWS_SYMLINKS}`);
  } else paths.push(...reads(directories));
  return { paths, unsure };
}

/** `tar czfC out.tgz dir src` is `tar -c -z -f out.tgz -C dir src`: each letter that takes a value takes the next word. */
function oldStyle(words: readonly ShellWord[]): readonly ShellWord[] {
  const first = words[1];
  if (first === undefined || first.kind !== 'static' || !/^[A-Za-z]+$/.test(first.value)) return words;
  const expanded: ShellWord[] = [words[0]!];
  let next = 2;
  for (const letter of first.value) {
    expanded.push({ ...first, text: `-${letter}`, value: `-${letter}` });
    if (VALUED.includes(letter) && next < words.length) expanded.push(words[next++]!);
  }
  return [...expanded, ...words.slice(next)];
}
