/**
 * curl: a network client whose state lives on the servers it talks to; it
 * prints what it downloads unless told where to write it (`-o` and its
 * friends write files, `-O` into the working directory or `--output-dir`),
 * reads the files it uploads or is configured from (`-T`, `-K`, `@file`,
 * `file://` URLs), and talks to whatever listens on a `--unix-socket`. It
 * writes only the contents of regular files.
 */
import { hasOption, optionValues, scanArguments, type ArgumentGrammar } from '../argument-scan.ts';
import { CURRENT_DIRECTORY, derivedWords, pathUses, reads, unknownOptionReads, type CommandPaths, type PathArgument } from '../path-argument.ts';
import type { ShellWord } from '../shell-word.ts';
import { write, type CommandModel } from './command-model.ts';

const GRAMMAR: ArgumentGrammar = {
  shortValued: 'AbcCdDeEFHKmoPQrtTuUwxXyYz',
  longValued: [
    'output', 'output-dir', 'dump-header', 'cookie-jar', 'trace', 'trace-ascii', 'stderr', 'libcurl', 'etag-save', 'etag-compare', 'hsts', 'alt-svc', 'config', 'upload-file',
    'cert', 'key', 'cacert', 'capath', 'crlfile', 'netrc-file', 'time-cond', 'cookie', 'data', 'data-binary', 'data-raw', 'data-urlencode', 'data-ascii', 'json', 'form',
    'form-string', 'header', 'proxy-header', 'user-agent', 'referer', 'request', 'user', 'proxy', 'proxy-user', 'max-time', 'connect-timeout', 'range', 'write-out', 'url',
    'retry', 'limit-rate', 'resolve', 'connect-to', 'interface', 'variable', 'expand-url', 'url-query', 'oauth2-bearer', 'aws-sigv4', 'proxy-cacert', 'proxy-cert', 'proxy-key',
    'unix-socket', 'abstract-unix-socket',
  ],
};

export const curl: CommandModel = {
  names: ['curl'],
  connects: () => 'curl uses the network',
  remoteState: true,
  downloads: true,
  options: {
    rules: [
      write('writes a file', {
        short: 'oODcK',
        long: ['output', 'remote-name', 'remote-name-all', 'output-dir', 'dump-header', 'cookie-jar', 'config', 'trace', 'trace-ascii', 'stderr', 'libcurl', 'etag-save', 'hsts', 'alt-svc'],
      }),
    ],
  },
  paths: curlPaths,
  entries: 'keeps',
};

/**
 * `-o` and friends write, `-O` writes in the working directory (or `--output-dir`), `-T`/`-K`/`@file` read, `file://` URLs
 * read. `--unix-socket PATH` talks to whatever listens there, which can act on what it is sent (toolgate's own hook decider, a
 * Docker daemon): judged as a write of that path. An abstract socket has no path to judge.
 */
function curlPaths(words: readonly ShellWord[]): CommandPaths {
  const scanned = scanArguments({ words, grammar: GRAMMAR });
  const paths: PathArgument[] = [];
  const writes = ['-o', '--output', '-D', '--dump-header', '-c', '--cookie-jar', '--trace', '--trace-ascii', '--stderr', '--libcurl', '--etag-save', '--hsts', '--alt-svc', '--unix-socket'];
  paths.push(...pathUses(optionValues(scanned, writes).filter((word) => word.value !== '-'), 'write'));
  paths.push(...reads(optionValues(scanned, ['-K', '--config', '-T', '--upload-file', '-E', '--cert', '--key', '--cacert', '--capath', '--crlfile', '--netrc-file', '--etag-compare'])));
  for (const option of scanned.options) if (option.value !== undefined && !writes.includes(option.name)) paths.push(...reads(derivedWords(option.value, true)));
  const cookies = optionValues(scanned, ['-b', '--cookie']).filter((word) => !word.value.includes('='));
  paths.push(...reads(cookies), ...unknownOptionReads(words, scanned));
  if (hasOption(scanned, ['-O', '--remote-name', '--remote-name-all', '-J', '--remote-header-name'])) {
    paths.push({ word: optionValues(scanned, ['--output-dir'])[0] ?? CURRENT_DIRECTORY, use: 'write', into: true });
  }
  for (const url of [...scanned.operands, ...optionValues(scanned, ['--url'])]) {
    const local = /^file:\/\/[^/]*(\/.*)$/i.exec(url.value);
    if (local !== null) paths.push({ word: { ...url, text: local[1]!, value: local[1]!, tilde: false }, use: 'read' });
    else if (url.kind === 'dynamic') paths.push({ word: url, use: 'read' });
  }
  const unsure = optionValues(scanned, ['--abstract-unix-socket']).length > 0 ? ['curl --abstract-unix-socket talks to a service by a name no path rule can judge'] : [];
  return { paths, unsure };
}
