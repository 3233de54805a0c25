/**
 * rsync and scp, which copy between this machine and others: local
 * sources are read (rsync `--remove-source-files`: deleted), a local
 * destination written (rsync's `--del...`: deleted under it too), remote
 * ones are the network's business; both may make any path they write a
 * link or a tree. What rsync's options name (filter and batch files, the
 * dirs it compares with or links from, its log) is read or written. scp
 * always uses the network, rsync when a path is remote or a remote shell
 * is given; each runs a program as its transport when told to, and what
 * they change on other machines lies outside every zone.
 */
import { hasOption, optionValues, scanArguments, type ArgumentGrammar } from '../argument-scan.ts';
import { FOLLOWS_SYMLINKS, isRemotePath, pathUses, reads, unknownOptionReads, type PathArgument, type PathHandler } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import { exec, type CommandModel } from './command-model.ts';
import { SCP_OPTIONS } from './ssh.ts';

const RSYNC_GRAMMAR: ArgumentGrammar = {
  shortValued: 'efBMT',
  longValued: [
    'rsh', 'rsync-path', 'filter', 'exclude', 'include', 'exclude-from', 'include-from', 'files-from', 'temp-dir', 'partial-dir', 'backup-dir', 'log-file', 'log-file-format',
    'password-file', 'compare-dest', 'copy-dest', 'link-dest', 'chmod', 'chown', 'usermap', 'groupmap', 'block-size', 'max-size', 'min-size', 'timeout', 'contimeout', 'port',
    'bwlimit', 'suffix', 'out-format', 'info', 'debug', 'remote-option', 'address', 'sockopts', 'iconv', 'protocol', 'checksum-choice', 'compress-choice', 'compress-level',
    'skip-compress', 'modify-window', 'max-delete', 'outbuf', 'stop-after', 'stop-at', 'write-batch', 'only-write-batch', 'read-batch', 'max-alloc', 'checksum-seed', 'mkpath',
  ],
};

export const rsync: CommandModel = {
  names: ['rsync'],
  connects: rsyncNetwork,
  remoteState: true,
  options: { rules: [exec('runs a program as the remote shell', { short: 'e', long: ['rsh', 'rsync-path'] })] },
  paths: remoteCopy('rsync'),
  fileLists: { options: ['--files-from', '-T', '--include-from'] },
  entries: 'replaces',
};

export const scp: CommandModel = {
  names: ['scp'],
  connects: () => 'scp uses the network',
  remoteState: true,
  options: SCP_OPTIONS,
  paths: remoteCopy('scp'),
  entries: 'replaces',
};

/** rsync talks to another machine when a path names one (`host:path`, `rsync://`) or a remote shell is given. */
function rsyncNetwork(words: readonly ShellWord[]): string | undefined {
  const remote = words.slice(1).find((word) => !word.value.startsWith('-') && isRemotePath(word.value));
  if (remote !== undefined) return `rsync to or from ${remote.value} uses the network`;
  if (words.some((word) => /^(-[a-zA-Z]*e|--rsh)/.test(word.value))) return 'rsync with a remote shell uses the network';
  return undefined;
}

/** SOURCE... DEST: local sources read, a local destination written; remote ones are the network's business. */
function remoteCopy(name: 'rsync' | 'scp'): PathHandler {
  return (words) => {
    const scanned = scanArguments({ words, grammar: name === 'rsync' ? RSYNC_GRAMMAR : { shortValued: 'cFiJlosPSDX' } });
    const local = (word: ShellWord) => word.kind === 'dynamic' || !isRemotePath(word.value);
    const sources = scanned.operands.slice(0, -1).filter(local);
    const destination = scanned.operands.at(-1);
    // `--remove-source-files` deletes each source file once it is copied.
    const removes = name === 'rsync' && scanned.options.some((option) => option.name.length > 8 && '--remove-source-files'.startsWith(option.name));
    const paths: PathArgument[] = sources.map((word) => ({ word, use: removes ? 'delete' : 'read' }));
    if (destination !== undefined && local(destination)) {
      paths.push({ word: destination, use: 'write', sources, layout: name === 'rsync' ? 'rsync' : 'directory' });
      if (scanned.options.some((option) => option.name.startsWith('--del'))) paths.push({ word: destination, use: 'delete', into: true });
    }
    paths.push(
      ...reads(optionValues(scanned, ['--exclude-from', '--include-from', '--files-from', '--password-file', '--read-batch', '-F', '-i'])),
      // Relative to the destination, as rsync reads them; --link-dest hard-links its files into the copy, so they must be writable too.
      ...optionValues(scanned, ['--compare-dest', '--copy-dest']).map((word): PathArgument => ({ word, use: 'read', ...(destination === undefined ? {} : { base: destination }) })),
      ...optionValues(scanned, ['--link-dest']).map((word): PathArgument => ({ word, use: 'write', into: true, ...(destination === undefined ? {} : { base: destination }) })),
      ...pathUses(optionValues(scanned, ['--log-file', '--write-batch', '--only-write-batch']), 'write'),
      ...optionValues(scanned, ['--backup-dir', '-T', '--temp-dir']).map((word): PathArgument => ({ word, use: 'write', into: true })),
      ...unknownOptionReads(words, scanned),
    );
    const follows = ['-L', '--copy-links', '--copy-unsafe-links', '-k', '--copy-dirlinks'];
    return { paths, unsure: name === 'rsync' && hasOption(scanned, follows) ? [`rsync -L ${FOLLOWS_SYMLINKS}`] : [] };
  };
}
