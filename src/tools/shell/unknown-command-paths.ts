/**
 * Unknown means writer. A command toolgate has not modelled could write or
 * delete any file its words name (`xxd in out`, `convert a.png b.png`,
 * `sqlite3 db.sqlite`), so its operands are judged as written and deleted,
 * against the zones' write and delete approval, unless it is a known
 * reader: a program that only reads the files it is given (`cat`, `ls`,
 * `wc`, `diff`...). And a list of files read from another file
 * (`--files0-from=list`, `tar -T list`, `rsync --files-from`) names files
 * this check never sees: unsure.
 * Pure: words in, path uses out.
 */
import { commandModel, commandModels } from './commands/command-models.ts';
import { runsCode } from './command-semantics.ts';
import { genericReads, type CommandPaths, type PathArgument } from './path-argument.ts';
import type { ShellWord } from './shell-word.ts';

/** Programs that only read the files their words name (options that write are hazards of their own, in option-hazards.ts), besides the models that say so (`reader`). */
const KNOWN_READERS = new Set([
  'cat', 'tac', 'nl', 'head', 'tail', 'wc', 'ls', 'dir', 'vdir', 'tree', 'stat', 'file', 'du', 'df', 'diff', 'diff3', 'cmp', 'comm', 'md5sum',
  'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'sum', 'od', 'hexdump', 'hd', 'strings', 'realpath', 'readlink', 'fold', 'fmt', 'pr',
  'expand', 'unexpand', 'rev', 'look', 'lsattr', 'getfacl', 'namei', 'base32', 'basenc', 'cut', 'paste', 'join', 'column', 'numfmt', 'tsort', 'ptx', 'factor', 'locate',
  'whereis', 'which', 'type', 'bat', 'batcat', 'glow', 'yq', 'xq', 'tomlq', 'ag', 'ack',
  'zcat', 'bzcat', 'xzcat', 'zstdcat', 'lz4cat', 'zdiff', 'test', '[', 'date', 'cal', 'env', 'printenv',
  'id', 'groups', 'lsof', 'ps', 'pgrep', 'top', 'free', 'uptime', 'w', 'who', 'last', 'dmesg', 'lsblk', 'findmnt', 'ldd', 'nm', 'objdump', 'readelf', 'size',
  'identify', 'mediainfo', 'ffprobe', 'pdfinfo', 'shellcheck', 'hadolint', 'yamllint', 'jsonlint', 'markdownlint', 'cloc', 'tokei', 'scc',
  'colordiff', 'delta', 'difft', 'icdiff', 'info', 'apropos', 'whatis', 'help', 'tldr', 'nproc', 'lscpu', 'lspci', 'lsusb',
  'uname', 'hostname', 'pwd', 'echo', 'printf', 'true', 'false', 'sleep', 'seq', 'yes', 'expr', 'basename', 'dirname', 'tr', 'cd', 'pushd', 'popd',
]);

/** A word that names a file: a `/`, a leading `.` or `~`, or a file extension. */
const PATH_LOOKING = /[/~]|^\.|\.[A-Za-z0-9_-]{1,10}$/;

/**
 * The paths of a command no grammar knows: read like any other command's
 * words, and its operands that look like files (or are only known at run
 * time) also written and deleted, unless it is a known reader.
 *
 * @example
 * unknownCommandPaths({ name: 'convert', words: [convert, a.png, b.png] }).paths
 * // read a.png, read b.png, write a.png, delete a.png, write b.png, delete b.png
 */
export function unknownCommandPaths(options: { name: string; words: readonly ShellWord[] }): CommandPaths {
  const { name, words } = options;
  const paths = genericReads(words);
  // Interpreters and build tools run code: only a rule naming them allows them, and what they write is not in their words.
  if (isKnownReader(name) || runsCode({ name, words })) return { paths, unsure: [] };
  const written: PathArgument[] = [];
  for (const entry of paths) {
    // The word itself, not what genericReads found inside it (`name=/path`): those stay reads.
    if (!words.includes(entry.word) || (entry.word.kind !== 'dynamic' && entry.word.value.startsWith('-'))) continue;
    // `gh pr view 12`, `kubectl get pods`: bare words are a vocabulary, not files; `out.png`, `./build`, `dir/x` are files.
    // A bare word that names a file here (`trash Makefile`) is judged too.
    const bare = entry.word.kind === 'static' && !PATH_LOOKING.test(entry.word.value);
    const onlyIfExists = bare ? { onlyIfExists: true } : {};
    const presumed = 'it is not a command toolgate models';
    written.push({ word: entry.word, use: 'write', presumed, ...onlyIfExists }, { word: entry.word, use: 'delete', presumed, ...onlyIfExists });
  }
  return { paths: [...paths, ...written], unsure: [] };
}

/**
 * Whether `name` is a program known to only read the files it is given.
 *
 * @example
 * isKnownReader('cat') // true
 * isKnownReader('convert') // false: it could write any file it names
 */
export function isKnownReader(name: string): boolean {
  return KNOWN_READERS.has(name) || commandModel(name)?.reader === true;
}

/**
 * Every known reader, for the test that each has had its options looked at (option-hazards.ts).
 *
 * @example
 * knownReaders().includes('cat') // true
 */
export function knownReaders(): readonly string[] {
  return [...KNOWN_READERS, ...commandModels().filter((model) => model.reader === true).flatMap((model) => model.names)];
}

/** Options that name a file holding the list of files to work on, by command (`*` for any command). */
const LIST_OPTIONS: readonly { names: readonly string[]; commands?: ReadonlySet<string> }[] = [
  { names: ['--files0-from', '-files0-from'] },
  { names: ['--files-from', '-T'], commands: new Set(['cpio']) },
  { names: ['--files-from'] },
  { names: ['--pathspec-from-file'] },
  { names: ['--arg-file', '-a'], commands: new Set(['parallel']) },
  // xz --files=list compresses (and by default deletes) the files the list names.
  { names: ['--files'], commands: new Set(['xzcat', 'lzcat']) },
  { names: ['--list-file'], commands: new Set(['cloc']) },
  // file -f list reports on the files the list names.
  { names: ['-f'], commands: new Set(['file']) },
  // md5sum -c sums reads every file the sums name, and says whether each matches a hash the list gives.
  { names: ['-c', '--check'], commands: new Set(['md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum']) },
];

/** Commands whose short option (as a letter in a cluster: `tar -cT list`, `md5sum -wc sums`) names a file list. */
const CLUSTERED_LIST_OPTION: ReadonlyMap<string, RegExp> = new Map([
  ['file', /^-[A-Za-z0-9]*f/],
  ...['md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum'].map((name): [string, RegExp] => [name, /^-[A-Za-z0-9]*c/]),
]);

/** Archivers that take a list file as an `@list` word. */
const AT_LISTS = new Set(['7z', '7za', '7zr', '7zz', 'rar', 'unrar']);

/**
 * Reasons the command works on files named in another file, which this
 * check cannot see: `du --files0-from=list`, `tar -cf x.tar -T list`,
 * `rsync --files-from=list`, `parallel -a list`, `parallel :::: list`,
 * `xz --files=list`, `file -f list`, `md5sum -c sums`, `7z a x.7z @list`,
 * and cpio, which reads its file names from its input.
 *
 * @example
 * indirectFileLists({ name: 'wc', words: [wc, --files0-from=list] })
 * // ['wc --files0-from=list: works on the files listed in another file, which this check cannot see']
 */
export function indirectFileLists(options: { name: string; words: readonly ShellWord[] }): string[] {
  const { name, words } = options;
  const model = commandModel(name)?.fileLists;
  const reasons: string[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind === 'dynamic') continue;
    const value = word.value;
    if (value === '--') break;
    const option = value.startsWith('--') && value.includes('=') ? value.slice(0, value.indexOf('=')) : value;
    // GNU getopt takes an unambiguous abbreviation (`--files0=list`); `--files` alone is another option (rg).
    const abbreviates = (candidate: string) => candidate === option || (/^--(files0|files-f|pathspec-f|include-f)/.test(option) && candidate.startsWith(option));
    const listed = LIST_OPTIONS.some((entry) => (entry.commands === undefined || entry.commands.has(name)) && entry.names.some(abbreviates)) || model?.options?.some(abbreviates) === true;
    const clustered = !value.startsWith('--') && (model?.cluster ?? CLUSTERED_LIST_OPTION.get(name))?.test(value) === true;
    const atList = AT_LISTS.has(name) && value.startsWith('@');
    if (listed || clustered || atList || (name === 'parallel' && /^::::\+?$/.test(value))) {
      reasons.push(`${name} ${value}: works on the files listed in another file, which this check cannot see`);
    }
  }
  // cpio -o and -p read the names of the files they archive or copy from their input; cpio -i writes the names its archive holds.
  if (name === 'cpio' && !words.slice(1).some((word) => word.kind === 'static' && /^(--help|--version|--usage)$/.test(word.value))) {
    reasons.push('cpio works on file names read from its input (or from the archive), which this check cannot see');
  }
  return reasons;
}
