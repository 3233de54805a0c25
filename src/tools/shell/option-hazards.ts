/**
 * Options that make otherwise harmless programs run other programs or write
 * files: `git -c core.pager=sh`, `rg --pre`, `tar -I`, `sort -o`, `sed -i`,
 * `awk 'BEGIN{system(...)}'`, `less +!cmd`... A rule that allows `git` does
 * not allow these; a rule must name the option itself (`git -c`).
 */
import { indexesOf, initialCommands } from './argument-hazards.ts';
import { followingWalk } from './following-walk.ts';
import { gitHazards } from './git-hazards.ts';
import { hazardAt, programTextHazards, type Hazard } from './hazard.ts';
import { scanOptions } from './option-scan.ts';
import { exec, write, type OptionHazards } from './commands/command-model.ts';
import { commandModel } from './commands/command-models.ts';
import { namesProgramFile } from './commands/jq.ts';
import { processEnvironmentHazards } from './process-environment-hazard.ts';
import type { ShellWord } from './shell-word.ts';

type CommandOptions = OptionHazards;

const VIM: CommandOptions = { rules: [exec('runs editor commands (which can run programs)', { short: 'cSs', long: ['cmd'] })], custom: (words) => initialCommands(words) };
const COMPILER: CommandOptions = { rules: [exec('runs or loads another program', { single: ['wrapper', 'fplugin', 'specs'] })] };

/** ImageMagick's programs, each of which reads its operands through coders. */
const IMAGEMAGICK = ['identify', 'convert', 'magick', 'montage', 'composite', 'mogrify', 'compare', 'conjure', 'stream', 'animate', 'display', 'import'];

const TABLE: ReadonlyMap<string, CommandOptions> = new Map<string, CommandOptions>([
  ['git', { rules: [], custom: gitHazards }],
  ['ps', { rules: [], custom: processEnvironmentHazards }],
  [
    'sort',
    {
      rules: [
        exec('runs a program to compress temporary files', { long: ['compress-program'] }),
        write('writes the result to a file', { short: 'o', long: ['output'] }),
      ],
    },
  ],
  ['shuf', { rules: [write('writes the result to a file', { short: 'o', long: ['output'] })] }],
  ['split', { rules: [exec('runs a shell command for every piece', { long: ['filter'] })] }],
  ['sdiff', { rules: [exec('runs another diff program', { long: ['diff-program'] })] }],
  ['uniq', { rules: [], custom: (words) => secondOperandWrites(words, 'uniq') }],
  ['time', { rules: [write('writes a file', { short: 'o', long: ['output'] })] }],
  ['strace', { rules: [write('writes a file', { short: 'o', long: ['output'] })] }],
  ['ltrace', { rules: [write('writes a file', { short: 'o', long: ['output'] })] }],
  ['vim', VIM],
  ['vi', VIM],
  ['nvim', VIM],
  ['view', VIM],
  ['ex', VIM],
  ['vimdiff', VIM],
  ['emacs', { rules: [exec('evaluates Lisp (which can run programs)', { short: 'lf', long: ['eval', 'load', 'funcall', 'script'] })] }],
  ['sqlite3', { rules: [exec('runs dot-commands (which can run programs)', { single: ['cmd', 'init'] })], custom: sqliteHazards }],
  ['tcpdump', { rules: [exec('runs a program or writes a capture', { short: 'zw' })] }],
  ['go', { rules: [exec('runs a program around the build or the binary', { single: ['exec', 'toolexec'] })], custom: goHazards }],
  ['gcc', COMPILER],
  ['g++', COMPILER],
  ['cc', COMPILER],
  ['c++', COMPILER],
  ['clang', COMPILER],
  ['clang++', COMPILER],
  ['hg', { rules: [exec('sets configuration (hooks run programs)', { long: ['config'] })] }],
  ['svn', { rules: [exec('runs a configured program', { long: ['config-option', 'diff-cmd', 'diff3-cmd', 'editor-cmd'] })] }],
  ['bat', { rules: [exec('runs a pager', { long: ['pager'] })] }],
  ['fzf', { rules: [exec('runs commands', { long: ['preview', 'bind', 'with-shell', 'listen'] })] }],
  ['prettier', { rules: [write('rewrites files', { short: 'w', long: ['write'] })] }],
  ['eslint', { rules: [write('rewrites or writes files', { short: 'o', long: ['fix', 'output-file'] })] }],
  ['yq', { rules: [write('rewrites files in place', { short: 'i', long: ['inplace'] })], custom: (words) => yqHazards(words) }],
  ['dd', { rules: [], custom: ddHazards }],
  // Known readers (unknown-command-paths.ts) whose options write files or run programs.
  ['file', { rules: [write('compiles a magic file next to the one given', { short: 'C', long: ['compile'] })] }],
  ['diff3', { rules: [exec('runs another diff program', { long: ['diff-program'] })] }],
  ['batcat', { rules: [exec('runs a pager', { long: ['pager'] })] }],
  ['xq', { rules: [write('rewrites files in place', { short: 'i', long: ['in-place'] })], custom: (words) => yqHazards(words) }],
  ['tomlq', { rules: [write('rewrites files in place', { short: 'i', long: ['in-place'] })], custom: (words) => yqHazards(words) }],
  ['ag', { rules: [exec('runs a pager', { long: ['pager'] })] }],
  ['ack', { rules: [exec('runs a pager or Perl code', { long: ['pager', 'output'] })] }],
  ['date', { rules: [write('sets the system clock', { short: 's', long: ['set'] })] }],
  ['dmesg', { rules: [write('clears or reconfigures the kernel log', { short: 'cCDEn', long: ['clear', 'read-clear', 'console-off', 'console-on', 'console-level'] })] }],
  ['ldd', { rules: [], custom: (words) => lddHazards(words) }],
  ['nm', { rules: [exec('loads a plugin', { long: ['plugin'] })] }],
  ['mediainfo', { rules: [write('writes a log file', { single: ['LogFile', 'logfile', 'Output', 'output'] })] }],
  ['ffprobe', { rules: [write('writes a report or an output file', { single: ['o', 'report'] })], custom: (words) => [...urlOperands(words), ...protocolInputs(words)] }],
  // ffmpeg and ffplay open their inputs (and ffmpeg its outputs) the same way: `ffmpeg -i concat:/etc/shadow -c copy out.bin` copies it.
  ...['ffmpeg', 'ffplay'].map((name): [string, CommandOptions] => [name, { rules: [], custom: (words) => protocolInputs(words) }]),
  // ImageMagick reads `text:/etc/shadow` as a text file, runs `msl:` scripts (which write images), deletes `ephemeral:` files, and writes `png:/elsewhere`.
  ...IMAGEMAGICK.map((name): [string, CommandOptions] => [name, { rules: [], custom: (words) => imageMagickCoders(words) }]),
  ['shellcheck', { rules: [{ kind: 'read', what: 'follows source statements to files the line does not name', short: 'xP', long: ['external-sources', 'source-path'] }] }],
  ['jsonlint', { rules: [write('rewrites files in place', { short: 'i', long: ['in-place'] })] }],
  ['markdownlint', { rules: [write('rewrites files or writes a report', { short: 'o', long: ['fix', 'output'] }), exec('loads rules written in JavaScript', { short: 'r', long: ['rules'] })] }],
  [
    'cloc',
    {
      rules: [
        write('writes a report or database file', { long: ['report-file', 'out', 'sql', 'write-lang-def', 'write-lang-def-incl-dup'] }),
        exec('runs a program to extract archives or to list the files to count', { long: ['extract-with', 'vcs'] }),
        // A config file holds more options (--vcs among them).
        exec('reads more options from a file', { long: ['config'] }),
        { kind: 'read', what: 'follows symlinks while walking directories, and any of them can lead out of the zones', long: ['follow-links'] },
      ],
    },
  ],
  ['scc', { rules: [write('writes its report to a file', { short: 'o', long: ['output'] })] }],
  ['delta', { rules: [exec('runs a pager', { long: ['pager'] })] }],
  ['info', { rules: [write('writes nodes or keystrokes to a file', { short: 'o', long: ['output', 'dribble'] })] }],
  ['tldr', { rules: [write('downloads and writes its page cache', { short: 'u', long: ['update'] })] }],
  ['hostname', { rules: [], custom: (words) => hostnameHazards(words) }],
  // xargs sets the variable it is given to the slot number (0, 1...) in every command it runs: LD_LIBRARY_PATH=0 loads libraries from ./0.
  ['xargs', { rules: [{ kind: 'environment', what: 'sets an environment variable of its choosing in the commands it runs', long: ['process-slot-var'] }] }],
  // GNU diff -r follows symlinks it meets (unless --no-dereference); ls -L with -R lists where they lead.
  ['diff', { rules: [], customOnly: true, custom: (words) => followingWalk(words, { recursive: ['r', 'recursive'], follows: undefined, unless: 'no-dereference' }) }],
  ['ls', { rules: [], customOnly: true, custom: (words) => followingWalk(words, { recursive: ['R', 'recursive'], follows: ['L', 'dereference'], unless: undefined }) }],
  // tree always walks; -l makes it follow the links it meets.
  ['tree', { rules: [write('writes its listing to a file (or an HTML file in each directory)', { short: 'oR' })], custom: (words) => followingWalk(words, { recursive: undefined, follows: ['l', undefined], unless: undefined }) }],
]);

/**
 * Every known reader (unknown-command-paths.ts) has been looked at for
 * options that write files or run programs: those that have some are in
 * the table above; these have none (or what they run is judged elsewhere,
 * as said). A test holds the two lists together, so a reader added later
 * without a look at its options fails it.
 */
const READERS_WITHOUT_HAZARDS: ReadonlyMap<string, string> = new Map([
  ...['cat', 'tac', 'nl', 'head', 'tail', 'wc', 'dir', 'vdir', 'stat', 'du', 'df', 'cmp', 'comm', 'md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'sum', 'od', 'hexdump', 'hd', 'strings', 'realpath', 'readlink', 'fold', 'fmt', 'pr', 'expand', 'unexpand', 'rev', 'look', 'lsattr', 'getfacl', 'namei', 'base32', 'basenc', 'cut', 'paste', 'join', 'column', 'numfmt', 'tsort', 'ptx', 'factor', 'locate', 'whereis', 'which', 'type', 'glow', 'zcat', 'bzcat', 'xzcat', 'zstdcat', 'lz4cat', 'zdiff', 'test', '[', 'cal', 'printenv', 'id', 'groups', 'lsof', 'pgrep', 'free', 'uptime', 'w', 'who', 'last', 'lsblk', 'findmnt', 'objdump', 'readelf', 'size', 'pdfinfo', 'hadolint', 'yamllint', 'tokei', 'colordiff', 'difft', 'icdiff', 'apropos', 'whatis', 'help', 'nproc', 'lscpu', 'lspci', 'lsusb', 'uname', 'pwd', 'echo', 'printf', 'true', 'false', 'sleep', 'seq', 'yes', 'expr', 'basename', 'dirname', 'tr'].map((name): [string, string] => [name, 'reads, prints or compares only']),
  ['env', 'runs the command it is given, which is judged as a command of its own (wrapper-commands.ts)'],
  ['top', 'its commands that kill processes or write its configuration are typed at a keyboard, and the shell tool gives commands an empty standard input'],
  ['cd', 'changes the directory later commands are judged in'],
  ['pushd', 'changes the directory later commands are judged in'],
  ['popd', 'changes the directory later commands are judged in'],
]);

/**
 * Whether a known reader has been looked at and found to have no options
 * that write files or run programs (or has them in the hazard table).
 *
 * @example
 * readerOptionsReviewed('cat') // true
 * readerOptionsReviewed('tree') // true: tree -o is a hazard
 */
export function readerOptionsReviewed(name: string): boolean {
  // A model that says it is a reader declares its options beside it (none, when it has none).
  return READERS_WITHOUT_HAZARDS.has(name) || optionsOf(name) !== undefined || commandModel(name)?.reader === true;
}

/** A command's hazardous options: from its model (commands/), or the table of the commands not yet moved there. */
function optionsOf(name: string): OptionHazards | undefined {
  return commandModel(name)?.options ?? TABLE.get(name);
}

/** ldd may run the program it is given (the dynamic loader does); only a system path is left to read. */
function lddHazards(words: readonly ShellWord[]): Hazard[] {
  return indexesOf(words, (value) => !value.startsWith('-') && !/^\/(usr\/)?(s?bin|lib(32|64|x32)?|libexec)\//.test(value)).map((index) =>
    hazardAt({ index, kind: 'exec', reason: `ldd ${words[index]!.value}: ldd can run the program it inspects; only programs in the system directories are taken as safe` }),
  );
}

/** `hostname NAME` and `hostname -F FILE` set the host name. */
function hostnameHazards(words: readonly ShellWord[]): Hazard[] {
  return indexesOf(words, (value) => !value.startsWith('-') || /^-[a-zA-Z]*[Fb]|^--(file|boot)/.test(value)).map((index) =>
    hazardAt({ index, kind: 'write', reason: `hostname ${words[index]!.value}: sets the host name` }),
  );
}

/** `ffprobe concat:a|/etc/shadow`, `subfile:`, `file:`: a protocol input names files the path check cannot see; `-f lavfi` reads them through filters. */
function protocolInputs(words: readonly ShellWord[]): Hazard[] {
  const name = words[0]!.value;
  const protocols = indexesOf(words, (value) => /^[a-z][a-z0-9+.-]*:/i.test(value) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value)).map((index) =>
    hazardAt({ index, kind: 'read', reason: `${name} ${words[index]!.value}: opens it through a protocol, which can name any file` }),
  );
  const filters = indexesOf(words, (value) => value === 'lavfi' || value === '-lavfi' || value === '-filter_complex').map((index) =>
    hazardAt({ index, kind: 'read', reason: `${name} ${words[index]!.value}: a filter graph can read any file (movie=, amovie=)` }),
  );
  return [...protocols, ...filters];
}

/** ImageMagick's built-in images, which read no file (unless their text names one with `@`). */
const IMAGEMAGICK_GENERATORS = new Set(['xc', 'canvas', 'gradient', 'radial-gradient', 'plasma', 'pattern', 'null', 'rose', 'logo', 'wizard', 'granite', 'netscape', 'hald', 'fractal']);

/**
 * ImageMagick's `CODER:name` and `@list` operands: `text:` reads any file,
 * `msl:` runs a script that writes images, `ephemeral:` deletes the file,
 * `png:/elsewhere` writes there; the path after the coder is not one the
 * path check sees. Built-in images (`xc:white`) are fine.
 */
function imageMagickCoders(words: readonly ShellWord[]): Hazard[] {
  const hides = (value: string) => {
    if (value.startsWith('@')) return true;
    const coder = /^([A-Za-z0-9-]{2,}):/.exec(value)?.[1];
    return coder !== undefined && (!IMAGEMAGICK_GENERATORS.has(coder.toLowerCase()) || value.includes('@'));
  };
  return indexesOf(words, hides).map((index) =>
    hazardAt({ index, kind: 'exec', reason: `${words[0]!.value} ${words[index]!.value}: opens it through an ImageMagick coder or a list (text: reads any file, msl: runs a script, ephemeral: deletes it, png:PATH writes it)` }),
  );
}

/** A URL operand (`ffprobe http://x`): the program fetches it over the network. */
function urlOperands(words: readonly ShellWord[]): Hazard[] {
  return indexesOf(words, (value) => /^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !/^file:/i.test(value)).map((index) =>
    hazardAt({ index, kind: 'exec', reason: `${words[0]!.value} ${words[index]!.value}: fetches it over the network` }),
  );
}

/**
 * Whether the command has options that can run programs or write files (so
 * unknown arguments are a hazard).
 *
 * @example
 * hasOptionHazards('git') // true
 * hasOptionHazards('ls')  // false
 */
export function hasOptionHazards(name: string): boolean {
  const entry = optionsOf(name);
  return entry !== undefined && entry.customOnly !== true;
}

/**
 * The option hazards of one simple command: `words[0]` is the normalised
 * name, `end` (exclusive) stops before a wrapped command's words.
 *
 * @example
 * optionHazards({ name: 'rg', words: [rg, --pre, sh, x] }) // [{ index: 1, kind: 'exec', ... }]
 */
export function optionHazards(options: { name: string; words: readonly ShellWord[]; end?: number }): Hazard[] {
  const entry = optionsOf(options.name);
  if (entry === undefined) return [];
  const words = options.end === undefined ? options.words : options.words.slice(0, options.end);
  const hazards = entry.customOnly === true ? [] : scanOptions({ command: options.name, words, rules: entry.rules });
  // A word bash may expand into options (a glob, braces) is a hazard of scanOptions' own, whatever the custom checks make of it.
  if (entry.custom !== undefined) hazards.push(...entry.custom(words));
  return hazards;
}

/** `uniq input output` writes its second operand. */
function secondOperandWrites(words: readonly ShellWord[], name: string): Hazard[] {
  let operands = 0;
  for (let index = 1; index < words.length; index++) {
    const value = words[index]!.value;
    if (value.startsWith('-') && value !== '-') continue;
    operands++;
    if (operands === 2) return [hazardAt({ index, kind: 'write', reason: `${name} writes its output to ${value}` })];
  }
  return [];
}

function ddHazards(words: readonly ShellWord[]): Hazard[] {
  return indexesOf(words, (value) => value.startsWith('of=')).map((index) => hazardAt({ index, kind: 'write', reason: `dd ${words[index]!.value}: writes a file` }));
}

/** Subcommands of go that rewrite the project's files, its go.mod, the module cache or binaries. */
const GO_WRITERS: ReadonlyMap<string, string> = new Map([
  ['fmt', 'rewrites source files'],
  ['fix', 'rewrites source files'],
  ['get', 'changes go.mod and go.sum (and downloads modules)'],
  ['install', 'writes binaries'],
  ['clean', 'deletes build outputs and caches'],
  ['work', 'writes go.work'],
  ['build', 'writes the binary of a main package into the working directory'],
]);
/** go mod subcommands that only print or check. */
const GO_MOD_READERS = new Set(['graph', 'why', 'verify', 'help']);
/** Flags of build, test, run and vet whose value is a file written or a program run. */
const GO_OUTPUT_FLAGS = /^--?(o|coverprofile|cpuprofile|memprofile|blockprofile|mutexprofile|trace|outputdir|c|pgo-output|json-output)(=|$)/;
const GO_PROGRAM_FLAGS = /^--?(vettool|exec|toolexec|overlay-exec)(=|$)/;

/**
 * go: `generate` runs commands from source files; `fmt`, `fix`, `get`,
 * `mod tidy`/`vendor`/`edit`/`init`, `work`, `install`, `clean` and `build`
 * write; `env -w`/`-u` rewrite go's configuration; `-o` and the profile
 * flags write files, `-vettool` runs a program. A rule must name the word.
 */
function goHazards(words: readonly ShellWord[]): Hazard[] {
  const at = words.findIndex((word, index) => index > 0 && (word.kind !== 'static' || !word.value.startsWith('-')));
  if (at === -1) return [];
  const subcommand = words[at]!;
  if (subcommand.kind !== 'static') return [hazardAt({ index: at, kind: 'unknown', reason: `go ${subcommand.text}: the subcommand is only known at run time` })];
  const name = subcommand.value;
  const hazards: Hazard[] = [];
  if (name === 'generate') hazards.push(hazardAt({ index: at, kind: 'exec', reason: 'go generate runs the commands written in source files' }));
  const writes = GO_WRITERS.get(name);
  // `go build -o /dev/null ./...` only checks that it builds.
  const discarded = name === 'build' && words.some((word, index) => (word.value === '-o' && words[index + 1]?.value === '/dev/null') || word.value === '-o=/dev/null');
  if (writes !== undefined && !discarded) hazards.push(hazardAt({ index: at, kind: 'write', reason: `go ${name} ${writes}` }));
  if (name === 'mod') {
    const next = words[at + 1];
    if (next === undefined || next.kind !== 'static' || !GO_MOD_READERS.has(next.value)) hazards.push(hazardAt({ index: at + 1 < words.length ? at + 1 : at, kind: 'write', reason: `go mod ${next?.text ?? ''}: changes go.mod, go.sum or vendor/`.replace(' :', ':') }));
  }
  for (let index = at + 1; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind !== 'static') continue;
    if (name === 'env' && /^-[wu]$/.test(word.value)) hazards.push(hazardAt({ index, kind: 'write', reason: `go env ${word.value}: rewrites go's configuration file` }));
    else if (GO_PROGRAM_FLAGS.test(word.value)) hazards.push(hazardAt({ index, kind: 'exec', reason: `go ${name} ${word.value}: runs a program` }));
    else if (name !== 'env' && GO_OUTPUT_FLAGS.test(word.value) && !(word.value === '-o' && words[index + 1]?.value === '/dev/null') && word.value !== '-o=/dev/null') {
      hazards.push(hazardAt({ index, kind: 'write', reason: `go ${name} ${word.value}: writes a file` }));
    }
  }
  return hazards;
}

/** Dot-commands after the database name: `.shell`, `.system`, `.output`, `.load`... */
function sqliteHazards(words: readonly ShellWord[]): Hazard[] {
  const hazards: Hazard[] = [];
  let operands = 0;
  for (let index = 1; index < words.length; index++) {
    const value = words[index]!.value;
    if (value.startsWith('-')) continue;
    operands++;
    if (operands >= 2 && value.trimStart().startsWith('.')) hazards.push(hazardAt({ index, kind: 'exec', reason: `sqlite3 ${value.split(/\s/)[0]}: dot-commands can run programs and write files` }));
  }
  return hazards;
}


/** yq's own functions that read files (`load`, `load_str`...) or evaluate a string as an expression (`eval`), besides jq's directives (the Python yq runs jq). */
const YQ_FILE_ACCESS = /\b(?:import|include)\b|\b(?:load\w*|eval)\s*\(/;

/**
 * yq, xq and tomlq: every argument that is not an option is searched, since
 * the expression may follow a subcommand (`yq eval EXPR`); a file operand
 * whose name reads like a directive asks too. `--from-file` (a program from
 * a file) cannot be searched.
 */
function yqHazards(words: readonly ShellWord[]): Hazard[] {
  const name = words[0]!.value;
  const hazards: Hazard[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind === 'dynamic') return programTextHazards({ index, found: undefined, name, words });
    const value = word.value;
    if (namesProgramFile(value)) {
      hazards.push(hazardAt({ index, kind: 'read', reason: `${name} ${value}: the expression comes from a file, and can read any file` }));
    } else if (!value.startsWith('-')) {
      const found = YQ_FILE_ACCESS.exec(value);
      if (found !== null) hazards.push(hazardAt({ index, kind: 'read', reason: `${name}: the expression's ${found[0].replace(/\s*\($/, '()')} reads or evaluates beyond its input` }));
    }
  }
  return hazards;
}


