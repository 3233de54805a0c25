/**
 * The commands known to write or delete the files their arguments name
 * that have no model of their own yet: `touch`/`mkdir`/`chmod`... targets,
 * `tee` files, `dd of=`, `sort -o`, `patch`, `git clone DIR`, `socat`
 * addresses. Each returns what it reads and writes; undefined for any other
 * command. A command with a model (commands/: cp, rm, tar, curl, the
 * compressors...) declares its paths there.
 */
import { attachedWord, hasOption, optionValues, scanArguments, type ArgumentGrammar } from './argument-scan.ts';
import { GIT_GLOBAL_VALUED, gitSubcommand } from './git-subcommands.ts';
import { CURRENT_DIRECTORY, derivedWords, FOLLOWS_SYMLINKS, genericReads, isRemotePath, operandTargets, pathUses, reads, unknownOptionReads, type CommandPaths, type PathArgument, type PathHandler } from './path-argument.ts';
import type { ShellWord } from './shell-word.ts';


/**
 * What a writing command's words read, write and delete, or undefined when
 * `name` is not one toolgate knows here.
 *
 * @example
 * writerPaths('tee')?.([tee, -a, log.txt]) // { paths: [{ word: log.txt, use: 'write' }], unsure: [] }
 */
export function writerPaths(name: string): PathHandler | undefined {
  return WRITERS.get(name);
}

/** Each word written, and deleted too when the command removes it afterwards (`shred -u`, `gzip`). */
function writes(words: readonly ShellWord[], options: { deletes: boolean }): PathArgument[] {
  return words.flatMap((word): PathArgument[] => (options.deletes ? [{ word, use: 'write' }, { word, use: 'delete' }] : [{ word, use: 'write' }]));
}


/** A symbolic mode written like an option (`chmod -x file`) takes the mode's place. */
const MODE_AS_OPTION = /^-[rwxXstugoa,+=0-7-]+$/;

/** chmod MODE FILE..., chown OWNER FILE..., chgrp GROUP FILE... (none with --reference). */
function ownership(name: string): PathHandler {
  return (words) => {
    const scanned = scanArguments({ words, grammar: { longValued: ['reference', 'from'] } });
    const modeGiven = hasOption(scanned, ['--reference']) || (name === 'chmod' && words.some((word) => MODE_AS_OPTION.test(word.value)));
    const files = modeGiven ? scanned.operands : scanned.operands.slice(1);
    const unsure = hasOption(scanned, ['-L']) && hasOption(scanned, ['-R', '--recursive']) ? [`${name} -RL ${FOLLOWS_SYMLINKS}`] : [];
    return { paths: [...pathUses(files, 'write'), ...reads(optionValues(scanned, ['--reference']))], unsure };
  };
}

/** shred overwrites its files; `-u` / `--remove[=HOW]` (or an abbreviation) then deletes them. */
function shred(words: readonly ShellWord[]): CommandPaths {
  const scanned = scanArguments({ words, grammar: { shortValued: 'ns', longValued: ['iterations', 'size', 'random-source'], longOptional: ['remove'] } });
  const removes = hasOption(scanned, ['-u', '--remove']);
  return { paths: [...writes(scanned.operands, { deletes: removes }), ...reads(optionValues(scanned, ['--random-source'])), ...unknownOptionReads(words, scanned)], unsure: [] };
}

/** dd: `if=` is read, `of=` written. */
function dd(words: readonly ShellWord[]): CommandPaths {
  const paths: PathArgument[] = [];
  for (const word of words.slice(1)) {
    const match = /^(if|of)=(.*)$/.exec(word.value);
    if (match === null || word.kind === 'dynamic') {
      if (word.kind === 'dynamic') paths.push({ word, use: 'read' });
      continue;
    }
    paths.push({ word: { ...word, text: match[2]!, value: match[2]!, tilde: false }, use: match[1] === 'of' ? 'write' : 'read' });
  }
  return { paths, unsure: [] };
}

/** Operands read; the values of `writeOptions` written. */
function withOutput(grammar: ArgumentGrammar, writeOptions: readonly string[], readOptions: readonly string[] = [], intoOptions: readonly string[] = []): PathHandler {
  return (words) => {
    const scanned = scanArguments({ words, grammar });
    const paths: PathArgument[] = [
      ...scanned.operands.flatMap((word) => reads(derivedWords(word, false))),
      ...pathUses(optionValues(scanned, writeOptions), 'write'),
      ...optionValues(scanned, intoOptions).map((word): PathArgument => ({ word, use: 'write', into: true })),
      ...reads(optionValues(scanned, readOptions)),
      ...unknownOptionReads(words, scanned),
    ];
    return { paths, unsure: [] };
  };
}

/** uniq INPUT OUTPUT. */
function uniq(words: readonly ShellWord[]): CommandPaths {
  const scanned = scanArguments({ words, grammar: { shortValued: 'fsw', longValued: ['skip-fields', 'skip-chars', 'check-chars'], longOptional: ['all-repeated', 'group'] } });
  const [input, output] = scanned.operands;
  return { paths: [...reads(input === undefined ? [] : [input]), ...pathUses(output === undefined ? [] : [output], 'write'), ...unknownOptionReads(words, scanned)], unsure: [] };
}

const PATCH: ArgumentGrammar = {
  shortValued: 'BDFgioprYzdV',
  longValued: ['prefix', 'ifdef', 'fuzz', 'get', 'input', 'output', 'strip', 'reject-file', 'basename-prefix', 'suffix', 'directory', 'version-control', 'quoting-style', 'reject-format', 'read-only'],
  longOptional: ['merge'],
};

/**
 * patch [ORIGINAL [PATCHFILE]]: without ORIGINAL it writes the files the
 * patch names, in its directory. It also deletes a file the patch empties
 * (`-E`), or says is gone (a git diff's "deleted file", a new name of
 * /dev/null): with `-E` that is a delete; without it, only the patch knows,
 * so where deletes are forbidden it asks.
 */
function patch(words: readonly ShellWord[]): CommandPaths {
  const scanned = scanArguments({ words, grammar: PATCH });
  const [original, patchFile] = scanned.operands;
  const output = optionValues(scanned, ['-o', '--output']);
  const directory = optionValues(scanned, ['-d', '--directory'])[0];
  const paths: PathArgument[] = [...reads(optionValues(scanned, ['-i', '--input'])), ...pathUses(optionValues(scanned, ['-r', '--reject-file']), 'write'), ...pathUses(output, 'write'), ...unknownOptionReads(words, scanned)];
  const base = directory === undefined ? {} : { base: directory };
  const removesEmpty = scanned.options.some((option) => option.name === '-E' || (option.name.startsWith('--rem') && '--remove-empty-files'.startsWith(option.name)));
  const dryRun = scanned.options.some((option) => option.name.startsWith('--dr') && '--dry-run'.startsWith(option.name));
  const deletion = output.length > 0 || dryRun ? undefined : removesEmpty ? {} : { presumed: 'the patch decides which files it removes' };
  if (patchFile !== undefined) paths.push({ word: patchFile, use: 'read' });
  if (original !== undefined) {
    paths.push({ word: original, use: output.length > 0 ? 'read' : 'write', ...base });
    if (deletion !== undefined) paths.push({ word: original, use: 'delete', ...base, ...deletion });
  } else if (output.length === 0) {
    paths.push({ word: directory ?? CURRENT_DIRECTORY, use: 'write', into: true });
    if (deletion !== undefined) paths.push({ word: directory ?? CURRENT_DIRECTORY, use: 'delete', into: true, ...deletion });
  }
  return { paths, unsure: [] };
}


const GIT_MESSAGE = new Set(['commit', 'tag', 'merge', 'stash', 'notes', 'revert', 'cherry-pick']);
const CLONE: ArgumentGrammar = { shortValued: 'objuc', longValued: ['origin', 'branch', 'upload-pack', 'reference', 'reference-if-able', 'separate-git-dir', 'depth', 'shallow-since', 'shallow-exclude', 'config', 'template', 'jobs', 'filter', 'server-option', 'bundle-uri', 'ref-format', 'recurse-submodules'] };
/** Options whose value git writes, by subcommand (`-o` elsewhere is a flag: `ls-files -o`, `commit -o`). */
const GIT_OUTPUT: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  [
    ...['diff', 'log', 'show', 'whatchanged', 'range-diff', 'diff-tree', 'diff-index', 'diff-files'].map((name): [string, Set<string>] => [name, new Set(['--output'])]),
    ['format-patch', new Set(['-o', '--output-directory'])],
    ['archive', new Set(['-o', '--output'])],
  ],
);

/**
 * git: `-C DIR` moves the command; `clone REPO [DIR]` writes DIR (or a new
 * directory here). Every other subcommand is judged by what it does
 * (`git-subcommands.ts`): one that writes the repository or the work tree
 * writes into the working directory, one that can remove files also
 * deletes there, and its operands are read, written (`checkout -- a`) or
 * deleted (`rm a`). Lists of paths read from a file are not judged: unsure.
 */
function git(words: readonly ShellWord[]): CommandPaths {
  const paths: PathArgument[] = [];
  const unsure: string[] = [];
  let base: ShellWord | undefined;
  let index = 1;
  for (; index < words.length && words[index]!.kind !== 'dynamic' && words[index]!.value.startsWith('-'); index++) {
    const value = words[index]!.value;
    const equals = value.indexOf('=');
    const option = equals === -1 ? value : value.slice(0, equals);
    if (!GIT_GLOBAL_VALUED.has(option)) continue;
    const word = equals === -1 ? words[++index] : { ...words[index]!, text: value.slice(equals + 1), value: value.slice(equals + 1), tilde: false };
    if (word === undefined) break;
    // `git -C a -C b` works in a/b.
    if (option === '-C') base = base === undefined || word.value.startsWith('/') ? word : { ...word, text: `${base.value}/${word.value}`, value: `${base.value}/${word.value}` };
    if (['-C', '--git-dir', '--work-tree', '--exec-path'].includes(option)) paths.push({ word, use: 'read' });
    else paths.push(...genericReads([words[0]!, word]));
  }
  const subcommand = words[index]?.value;
  const at = (entry: PathArgument): PathArgument => (base === undefined ? entry : { ...entry, base });
  if (subcommand === 'clone') {
    const scanned = scanArguments({ words, grammar: CLONE, start: index + 1 });
    const [repository, directory] = scanned.operands;
    if (repository !== undefined && !isRemotePath(repository.value)) paths.push(at({ word: repository, use: 'read' }));
    paths.push(at(directory === undefined ? { word: CURRENT_DIRECTORY, use: 'write', into: true } : { word: directory, use: 'write', into: true }));
    paths.push(...reads(optionValues(scanned, ['--reference', '--reference-if-able', '--template'])).map(at));
    paths.push(...optionValues(scanned, ['--separate-git-dir']).map((word) => at({ word, use: 'write', into: true })), ...unknownOptionReads(words, scanned));
    return { paths, unsure };
  }
  const effect = gitSubcommand(words);
  const shown = `git ${subcommand ?? ''}`.trim();
  if (effect.effect !== 'read') paths.push(at({ word: CURRENT_DIRECTORY, use: 'write', into: true }));
  if (effect.effect === 'delete') paths.push(at({ word: CURRENT_DIRECTORY, use: 'delete', into: true }));
  let operandsOver = false;
  for (let next = index + 1; next < words.length; next++) {
    const word = words[next]!;
    const value = word.value;
    if (GIT_MESSAGE.has(subcommand ?? '') && ['-m', '--message'].includes(value)) {
      next++;
      continue;
    }
    if (GIT_MESSAGE.has(subcommand ?? '') && /^(-m.|--message=)/.test(value)) continue;
    if (word.kind !== 'dynamic' && !operandsOver && /^--pathspec-from-file(=|$)/.test(value)) {
      unsure.push(`${shown} ${value}: reads the paths it works on from a file, which this check cannot see`);
      if (value === '--pathspec-from-file') next++;
      continue;
    }
    const outputs = GIT_OUTPUT.get(subcommand ?? '');
    if (outputs !== undefined && word.kind !== 'dynamic' && !operandsOver && outputs.has(value) && words[next + 1] !== undefined) {
      paths.push(at({ word: words[++next]!, use: 'write' }));
      continue;
    }
    const equals = value.indexOf('=');
    if (outputs !== undefined && word.kind !== 'dynamic' && !operandsOver && equals > 0 && outputs.has(value.slice(0, equals))) {
      paths.push(at({ word: attachedWord(word, value.slice(equals + 1)), use: 'write' }));
      continue;
    }
    if (value === '--' && word.kind !== 'dynamic') {
      operandsOver = true;
      continue;
    }
    const isOption = word.kind !== 'dynamic' && !operandsOver && value.startsWith('-');
    paths.push(...genericReads(words, next, next + 1).map((entry) => at(isOption || effect.operands === 'read' ? entry : { ...entry, use: effect.operands })));
  }
  return { paths, unsure };
}


/** socat's own options that take the next word as their value (socat reads `-lf FILE` as one option, not -l -f). */
const SOCAT_VALUED = new Set(['-t', '-T', '-b', '-L', '-W', '-lf', '-lp', '-R', '-r']);
/** ...of which these name a file it writes: its log (-lf), a lock file (-L, -W), a dump of the traffic (-r, -R). */
const SOCAT_WRITTEN = new Set(['-lf', '-L', '-W', '-r', '-R']);
/** Address types whose first parameter is a file or a socket's path (and their aliases), as socat(1) lists them. */
const SOCAT_PATH_TYPES = new Set([
  'OPEN', 'CREATE', 'CREAT', 'GOPEN', 'PIPE', 'NAMEDPIPE', 'UNIX-CONNECT', 'UNIX-LISTEN', 'UNIX-L', 'UNIX-SENDTO', 'UNIX-RECVFROM', 'UNIX-RECV',
  'UNIX-CLIENT', 'UNIX', 'LOCAL', 'POSIXMQ-READ', 'POSIXMQ-RECEIVE', 'POSIXMQ-SEND', 'POSIXMQ-BIDIRECTIONAL',
]);
/** Address types that name no file: the standard streams, and the network (judged by the network rules, as socat is a network command). */
const SOCAT_NO_PATH = /^(STDIN|STDOUT|STDERR|STDIO|-|FD|FDIN|FDOUT|TCP|TCP4|TCP6|TCP-\w+|TCP4-\w+|TCP6-\w+|UDP|UDP4|UDP6|UDP-\w+|UDP4-\w+|UDP6-\w+|SCTP\S*|DCCP\S*|UDPLITE\S*|OPENSSL|OPENSSL-\S+|SSL|SSL-L|SOCKS4|SOCKS4A|SOCKS5\S*|PROXY|PROXY-CONNECT|VSOCK\S*)$/;
/** Address options that name a file (certificates and keys read; a symlink, a lock file or a new root are files too). */
const SOCAT_PATH_OPTIONS = new Set(['cert', 'key', 'cafile', 'capath', 'dhparam', 'dhparams', 'egd', 'link', 'symbolic-link', 'lockfile', 'waitlock', 'chroot', 'chroot-early']);

/**
 * socat [OPTIONS] ADDRESS ADDRESS: each address is TYPE:PARAMETERS[,OPTIONS]
 * (a bare name is GOPEN of that file). A file or a socket it names is used
 * both ways (socat relays in both directions unless -u/-U): a write of that
 * path, so toolgate's own files and sockets are never reached through it. A
 * program (EXEC, SYSTEM), an abstract socket or a type toolgate does not know
 * cannot be judged by path: the command asks.
 */
function socat(words: readonly ShellWord[]): CommandPaths {
  const paths: PathArgument[] = [];
  const unsure: string[] = [];
  const addresses: ShellWord[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind !== 'dynamic' && word.value.startsWith('-') && word.value !== '-' && addresses.length === 0) {
      const value = words[index + 1];
      if (SOCAT_VALUED.has(word.value) && value !== undefined) {
        if (SOCAT_WRITTEN.has(word.value)) paths.push({ word: value, use: 'write' });
        index += 1;
      } else if (word.value.startsWith('-lf') && word.value.length > 3) {
        // Attached: -lf/tmp/socat.log.
        paths.push({ word: { ...word, text: word.value.slice(3), value: word.value.slice(3), tilde: false }, use: 'write' });
      }
      continue;
    }
    addresses.push(word);
  }
  const part = (word: ShellWord, text: string): ShellWord => ({ ...word, text, value: text, tilde: false });
  for (const word of addresses) {
    if (word.kind === 'dynamic') {
      unsure.push(`socat ${word.text}: an address only known when the command runs`);
      continue;
    }
    const [head = '', ...options] = word.value.split(',');
    const colon = head.indexOf(':');
    const type = (colon < 0 ? head : head.slice(0, colon)).toUpperCase();
    const parameter = colon < 0 ? undefined : head.slice(colon + 1);
    if (colon < 0 && !SOCAT_NO_PATH.test(type)) paths.push({ word: part(word, head), use: 'write' });
    else if (SOCAT_PATH_TYPES.has(type) && parameter !== undefined && parameter !== '') paths.push({ word: part(word, parameter), use: 'write' });
    else if (!SOCAT_NO_PATH.test(type)) unsure.push(`socat ${word.value}: a ${type} address ${/^(EXEC|SYSTEM|SHELL)$/.test(type) ? 'runs a program' : 'is not one toolgate can judge by its path'}`);
    for (const option of options) {
      const equals = option.indexOf('=');
      if (equals > 0 && SOCAT_PATH_OPTIONS.has(option.slice(0, equals).toLowerCase())) paths.push({ word: part(word, option.slice(equals + 1)), use: 'write' });
    }
  }
  return { paths, unsure };
}


const SORT: ArgumentGrammar = { shortValued: 'kotST', longValued: ['key', 'output', 'field-separator', 'buffer-size', 'temporary-directory', 'parallel', 'batch-size', 'compress-program', 'random-source', 'sort', 'files0-from'] };

/** xxd [INFILE [OUTFILE]]: the second operand is written (also with -r, which turns a dump back into bytes). */
function xxd(words: readonly ShellWord[]): CommandPaths {
  const scanned = scanArguments({ words, grammar: { shortValued: 'cglnosR', longValued: [] } });
  const [input, output] = scanned.operands;
  return { paths: [...reads(input === undefined ? [] : [input]), ...(output === undefined ? [] : [{ word: output, use: 'write' as const }]), ...unknownOptionReads(words, scanned)], unsure: [] };
}

/** The directory a prefix's files land in: `out/part-` → `out`, `x` → the working directory. */
function prefixDirectory(prefix: ShellWord | undefined): ShellWord {
  if (prefix === undefined || prefix.kind === 'dynamic') return prefix ?? CURRENT_DIRECTORY;
  const slash = prefix.value.lastIndexOf('/');
  if (slash === -1) return CURRENT_DIRECTORY;
  const directory = slash === 0 ? '/' : prefix.value.slice(0, slash);
  return { ...prefix, text: directory, value: directory };
}

/** split [FILE [PREFIX]]: writes PREFIXaa, PREFIXab... (default prefix `x`) next to the prefix. */
function split(words: readonly ShellWord[]): CommandPaths {
  const scanned = scanArguments({ words, grammar: { shortValued: 'abClnt', longValued: ['suffix-length', 'additional-suffix', 'bytes', 'line-bytes', 'lines', 'number', 'separator', 'filter'], longOptional: ['numeric-suffixes', 'hex-suffixes'] } });
  const [input, prefix] = scanned.operands;
  return { paths: [...reads(input === undefined || input.value === '-' ? [] : [input]), { word: prefixDirectory(prefix), use: 'write', into: true }, ...unknownOptionReads(words, scanned)], unsure: [] };
}

/** csplit FILE PATTERN...: writes xx00, xx01... (or `-f PREFIX`) next to the prefix; the patterns are not paths. */
function csplit(words: readonly ShellWord[]): CommandPaths {
  const scanned = scanArguments({ words, grammar: { shortValued: 'bfn', longValued: ['suffix-format', 'prefix', 'digits'] } });
  const [input] = scanned.operands;
  const prefix = optionValues(scanned, ['-f', '--prefix'])[0];
  return { paths: [...reads(input === undefined || input.value === '-' ? [] : [input]), { word: prefixDirectory(prefix), use: 'write', into: true }, ...unknownOptionReads(words, scanned)], unsure: [] };
}

const WRITERS: ReadonlyMap<string, PathHandler> = new Map<string, PathHandler>([
  ['xxd', xxd],
  ['split', split],
  ['csplit', csplit],
  ['iconv', withOutput({ shortValued: 'fto', longValued: ['from-code', 'to-code', 'output'] }, ['-o', '--output'])],
  ['base64', withOutput({ shortValued: 'wio', longValued: ['wrap', 'input', 'output'] }, ['-o', '--output'], ['-i', '--input'])],
  ['base32', withOutput({ shortValued: 'w', longValued: ['wrap'] }, [])],
  ['sdiff', withOutput({ shortValued: 'oIw', longValued: ['output', 'ignore-matching-lines', 'width', 'diff-program', 'tabsize'] }, ['-o', '--output'])],
  ['mknod', (words) => {
    const scanned = scanArguments({ words, grammar: { shortValued: 'm', longValued: ['mode'], longOptional: ['context'] } });
    return { paths: pathUses(scanned.operands.slice(0, 1), 'write'), unsure: [] };
  }],
  ['shred', shred],
  ['truncate', operandTargets({ grammar: { shortValued: 'sr', longValued: ['size', 'reference'] }, use: 'write', readOptions: ['-r', '--reference'] })],
  ['touch', operandTargets({ grammar: { shortValued: 'drt', longValued: ['date', 'reference', 'time'] }, use: 'write', readOptions: ['-r', '--reference'] })],
  ['mkdir', operandTargets({ grammar: { shortValued: 'm', longValued: ['mode'], longOptional: ['context'] }, use: 'write' })],
  ['mkfifo', operandTargets({ grammar: { shortValued: 'm', longValued: ['mode'], longOptional: ['context'] }, use: 'write' })],
  ['chmod', ownership('chmod')],
  ['chown', ownership('chown')],
  ['chgrp', ownership('chgrp')],
  ['setfacl', operandTargets({ grammar: { shortValued: 'mxMX', longValued: ['modify', 'remove', 'set', 'modify-file', 'remove-file', 'set-file', 'restore'] }, use: 'write', readOptions: ['-M', '-X', '--modify-file', '--remove-file', '--set-file', '--restore'] })],
  ['tee', operandTargets({ grammar: { longOptional: ['output-error'] }, use: 'write' })],
  ['dd', dd],
  ['sort', withOutput(SORT, ['-o', '--output'], ['--random-source', '--files0-from'], ['-T', '--temporary-directory'])],
  ['shuf', withOutput({ shortValued: 'noi', longValued: ['output', 'head-count', 'input-range', 'random-source'] }, ['-o', '--output'], ['--random-source'])],
  ['uniq', uniq],
  ['patch', patch],
  ['git', git],
  ['socat', socat],
]);
