/**
 * wget: a network client whose state lives on the servers it talks to; it
 * writes what it downloads to `-O FILE`, or to a file named after the URL
 * under `-P DIR` (or the working directory), prints it with `-O -`, writes
 * its log and cookies where its options say, reads the files its options
 * name, and runs the commands `-e` gives and the program `--use-askpass`
 * names. It writes only the contents of regular files.
 */
import { optionValues, scanArguments, type ArgumentGrammar } from '../argument-scan.ts';
import { CURRENT_DIRECTORY, pathUses, reads, unknownOptionReads, type CommandPaths, type PathArgument } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import { exec, write, type CommandModel } from './command-model.ts';

const GRAMMAR: ArgumentGrammar = {
  shortValued: 'oaiBtOTwQPUelARDXI',
  longValued: ['output-document', 'output-file', 'append-output', 'input-file', 'base', 'tries', 'timeout', 'wait', 'quota', 'directory-prefix', 'user-agent', 'execute', 'level', 'accept', 'reject', 'domains', 'exclude-directories', 'include-directories', 'load-cookies', 'save-cookies', 'post-file', 'body-file', 'config', 'ca-certificate', 'ca-directory', 'certificate', 'private-key', 'header', 'post-data', 'user', 'password', 'use-askpass', 'method', 'body-data', 'referer'],
};

export const wget: CommandModel = {
  names: ['wget'],
  connects: () => 'wget uses the network',
  remoteState: true,
  downloads: true,
  options: {
    rules: [
      exec('runs commands or programs', { short: 'e', long: ['execute', 'use-askpass'] }),
      write('writes a file', { short: 'oOaP', long: ['output-document', 'output-file', 'append-output', 'directory-prefix'] }),
    ],
  },
  paths: wgetPaths,
  entries: 'keeps',
};

/** It writes `-O FILE`, or a file named after the URL under `-P DIR` (or the working directory). */
function wgetPaths(words: readonly ShellWord[]): CommandPaths {
  const scanned = scanArguments({ words, grammar: GRAMMAR });
  const documents = optionValues(scanned, ['-O', '--output-document']);
  const paths: PathArgument[] = [
    ...pathUses(documents.filter((word) => word.value !== '-'), 'write'),
    ...pathUses(optionValues(scanned, ['-o', '--output-file', '-a', '--append-output', '--save-cookies']), 'write'),
    ...reads(optionValues(scanned, ['-i', '--input-file', '--load-cookies', '--post-file', '--body-file', '--config', '--ca-certificate', '--ca-directory', '--certificate', '--private-key'])),
    ...unknownOptionReads(words, scanned),
  ];
  if (documents.length === 0) paths.push({ word: optionValues(scanned, ['-P', '--directory-prefix'])[0] ?? CURRENT_DIRECTORY, use: 'write', into: true });
  return { paths, unsure: [] };
}
