/**
 * What one simple command does besides running its program: run other
 * commands (wrappers, `find -exec`), run code (`eval`, `bash -c`, `source`,
 * interpreters), change the shell (`export`, `set`, `alias`, `trap`...),
 * change directory, or use options that run programs or write files.
 * Pure: the analysis calls it for every simple command it finds, and again
 * for every command a wrapper runs.
 */
import type { InnerCommand } from './commands/command-model.ts';
import { commandModel } from './commands/command-models.ts';
import { hazardAt, type Hazard } from './hazard.ts';
import { optionHazards } from './option-hazards.ts';
import type { ShellWord } from './shell-word.ts';
import { workspaceCode } from './workspace-code-commands.ts';
import { isWrapper, unwrap } from './wrapper-commands.ts';

/**
 * `script`: a shell given a literal script and nothing else (`bash -lc 'ls &&
 * pwd'`), judged as the commands of the script, which are analysed as
 * commands of their own; `wrapper` and `code` commands need a rule that
 * names them.
 */
export type CommandRole = 'plain' | 'wrapper' | 'code' | 'script';

export interface CommandSemantics {
  /** `wrapper` and `code` commands need a rule that names them: the default never allows them. */
  role: CommandRole;
  /** Why the role is not `plain`. */
  roleReason: string | undefined;
  hazards: Hazard[];
  /** Commands this one runs from its own arguments. */
  inner: InnerCommand[];
  /** Shell code this one runs, to be parsed and analysed too. */
  payloads: { source: string; via: string }[];
  /** How it changes the working directory of the commands after it. */
  cwd: { kind: 'changed'; path: string } | { kind: 'unknown' } | undefined;
  /** Names it redefines (aliases), so later commands of that name are not what they seem. */
  defines: string[];
}

/**
 * Shells whose syntax the parser reads as its own (bash's): a literal script
 * given to one is judged as the script. zsh, fish and the others parse some
 * words differently (`=cmd`, glob qualifiers), so their scripts still ask.
 */
const SCRIPT_SHELLS = new Set(['bash', 'sh', 'dash']);
/** Options of a shell that change how a script fails or is traced, not what it runs (`-l` reads the user's own profile, as their terminal does). */
const SCRIPT_OPTION_LETTERS = /^[celuxv]*$/;
const SCRIPT_SET_OPTIONS = new Set(['pipefail', 'errexit', 'nounset', 'xtrace', 'verbose']);
const SCRIPT_LONG_OPTIONS = new Set(['--login', '--noprofile', '--norc']);
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'rbash', 'fish', 'csh', 'tcsh', 'pwsh', 'powershell', 'oksh', 'loksh']);
const INTERPRETER = /^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|irb|php[0-9.]*|lua[0-9.]*|luajit|Rscript|R|osascript|tclsh[0-9.]*|wish|expect|jshell|groovy|scala|julia|ghci|runghc|elixir|erl|escript|swift|dotnet|java|jrunscript|guile|racket|sbcl|clisp|gdb|lldb)$/;
const PACKAGE_RUNNERS = new Set(['npx', 'bunx', 'pnpx', 'uvx', 'tsx', 'ts-node']);
const PACKAGE_RUN_SUBCOMMANDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['pnpm', new Set(['dlx', 'exec'])],
  ['yarn', new Set(['dlx', 'exec'])],
  ['pipx', new Set(['run'])],
  ['uv', new Set(['run', 'tool'])],
]);
const SCHEDULERS = new Set(['at', 'batch', 'crontab', 'tmux', 'screen']);

/** Builtins that change the shell itself, or run code by another name. */
const SHELL_CHANGING: ReadonlyMap<string, string> = new Map([
  ['export', 'export changes the environment of every later command'],
  ['declare', 'declare can define functions, exports and attributes'],
  ['typeset', 'typeset can define functions, exports and attributes'],
  ['local', 'local changes variables (and evaluates array subscripts)'],
  ['readonly', 'readonly changes variables'],
  ['unset', 'unset can remove functions and variables such as PATH'],
  ['set', 'set changes shell options and positional parameters'],
  ['shopt', 'shopt changes shell options (expand_aliases, extdebug...)'],
  ['enable', 'enable can load builtins from shared libraries'],
  ['hash', 'hash can map a command name to any program'],
  ['let', 'let evaluates arithmetic, which can run commands through array subscripts'],
  ['fc', 'fc runs commands from the history'],
  ['bind', 'bind can bind keys to shell commands'],
  ['complete', 'complete can register commands to run'],
  ['compgen', 'compgen can run commands (-C, -F)'],
  ['unalias', 'unalias changes what command names mean'],
  ['source', 'source runs the code in a file'],
  ['.', '. (source) runs the code in a file'],
]);

/**
 * The semantics of one simple command whose (normalised) name is `name`.
 *
 * @example
 * commandSemantics({ name: 'sudo', words }).inner[0].words // the command sudo runs
 */
export function commandSemantics(options: { name: string; words: readonly ShellWord[] }): CommandSemantics {
  const { name, words } = options;
  const semantics: CommandSemantics = { role: 'plain', roleReason: undefined, hazards: [], inner: [], payloads: [], cwd: undefined, defines: [] };
  const code = (reason: string) => {
    semantics.role = 'code';
    semantics.roleReason = reason;
  };

  if (SHELLS.has(name)) {
    code(`${name} runs shell code`);
    if (shellPayload(name, words, semantics) === 'literal script' && SCRIPT_SHELLS.has(name)) {
      semantics.role = 'script';
      semantics.roleReason = `${name} runs the literal script it is given`;
    }
    return semantics;
  }
  if (INTERPRETER.test(name)) {
    code(`${name} runs code`);
    return semantics;
  }
  const workspace = workspaceCode({ name, words });
  if (workspace !== undefined) {
    code(workspace.reason);
    // On the subcommand's word: a rule naming only the tool (`npm`) does not reach `npm install`.
    if (workspace.index > 0) {
      const named = words.slice(0, workspace.index + 1).map((word) => word.text).join(' ');
      semantics.hazards.push(hazardAt({ index: workspace.index, kind: 'exec', reason: `a rule naming only "${words[0]!.text}" does not reach "${named}", which runs the project's code` }));
    }
    semantics.hazards.push(...optionHazards({ name, words }));
    return semantics;
  }
  if (PACKAGE_RUNNERS.has(name) || PACKAGE_RUN_SUBCOMMANDS.get(name)?.has(words[1]?.value ?? '') === true) {
    code(`${name} runs a package's code`);
    return semantics;
  }
  if (SCHEDULERS.has(name)) {
    code(`${name} runs commands later or elsewhere`);
    return semantics;
  }
  const changing = SHELL_CHANGING.get(name);
  if (changing !== undefined) {
    code(changing);
    return semantics;
  }
  const runs = commandModel(name)?.runs;
  if (runs !== undefined) {
    const ran = runs(words);
    semantics.hazards.push(...ran.hazards);
    semantics.inner.push(...ran.inner);
    if (ran.wrapper !== undefined) {
      semantics.role = 'wrapper';
      semantics.roleReason = ran.wrapper;
    }
    semantics.hazards.push(...optionHazards({ name, words }));
    return semantics;
  }
  switch (name) {
    case 'eval':
      code('eval runs its arguments as shell code');
      joinedPayload(words.slice(1), 'eval', semantics);
      return semantics;
    case 'alias':
      code('alias changes what command names mean');
      for (const word of words.slice(1)) {
        const equals = word.value.indexOf('=');
        if (equals <= 0) continue;
        semantics.defines.push(word.value.slice(0, equals));
        if (word.kind === 'dynamic') semantics.hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `alias: ${word.text} is only known at run time` }));
        else semantics.payloads.push({ source: word.value.slice(equals + 1), via: `the alias ${word.value.slice(0, equals)}` });
      }
      return semantics;
    case 'trap': {
      code('trap runs shell code when a signal arrives');
      const handler = words[1];
      if (handler !== undefined && !handler.value.startsWith('-')) joinedPayload([handler], 'trap', semantics);
      return semantics;
    }
    case 'mapfile':
    case 'readarray':
      if (words.some((word) => word.value.startsWith('-') && word.value.includes('C'))) code(`${name} -C runs a callback`);
      variableNames(words, 1, semantics);
      return semantics;
    case 'read':
    case 'getopts':
      variableNames(words, 1, semantics);
      return semantics;
    case 'printf':
    case 'wait':
    case 'test':
    case '[': {
      const flag = name === 'wait' ? '-p' : '-v';
      const at = words.findIndex((word) => word.value === flag);
      if (at > 0) variableNames(words, at + 1, semantics, at + 2);
      return semantics;
    }
    case 'cd':
      semantics.cwd = cdTarget(words);
      return semantics;
    case 'pushd':
    case 'popd':
      semantics.cwd = { kind: 'unknown' };
      return semantics;
    case 'parallel':
      parallel(words, semantics);
      return semantics;
    case 'watch':
      watch(words, semantics);
      return semantics;
  }
  if (isWrapper(name)) {
    const unwrapped = unwrap({ name, words })!;
    semantics.hazards.push(...unwrapped.hazards, ...optionHazards({ name, words, end: unwrapped.start ?? words.length }));
    for (const payload of unwrapped.payloads) semantics.payloads.push({ source: payload, via: `the code ${name} runs` });
    if (unwrapped.start !== undefined) {
      semantics.inner.push({
        words: words.slice(unwrapped.start),
        via: `run by ${name}`,
        appendsArguments: unwrapped.appendsArguments,
        appendedNames: unwrapped.appendedNames,
        changesDirectory: unwrapped.changesDirectory,
      });
    }
    if (semantics.inner.length > 0 || semantics.payloads.length > 0 || semantics.hazards.length > 0) {
      semantics.role = 'wrapper';
      semantics.roleReason = `${name} runs another command`;
    }
    return semantics;
  }
  semantics.hazards.push(...optionHazards({ name, words }));
  return semantics;
}

/**
 * Whether the command is an interpreter or a tool that runs the project's
 * code (its role is `code` by name alone).
 *
 * @example
 * runsCode({ name: 'python3', words }) // true
 * runsCode({ name: 'cat', words })     // false
 */
export function runsCode(options: { name: string; words: readonly ShellWord[] }): boolean {
  return SHELLS.has(options.name) || INTERPRETER.test(options.name) || PACKAGE_RUNNERS.has(options.name) || workspaceCode(options) !== undefined;
}

/**
 * `bash -c 'code'`, `bash -xec 'code'`, `bash -o pipefail -c 'code'`;
 * `--rcfile` runs a file. Says `literal script` when the shell gets a
 * literal script and nothing else: only options from SCRIPT_OPTION_LETTERS,
 * SCRIPT_SET_OPTIONS and SCRIPT_LONG_OPTIONS, and no arguments after the
 * script (they would become $0, $1... of it).
 */
function shellPayload(name: string, words: readonly ShellWord[], semantics: CommandSemantics): 'literal script' | undefined {
  let commandMode = false;
  let onlyScriptOptions = true;
  let index = 1;
  for (; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind !== 'static') {
      semantics.hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `${name}: the argument ${word.text} is only known at run time` }));
      return undefined;
    }
    const value = word.value;
    if (value === '--' || value === '-') {
      index++;
      break;
    }
    if (value.startsWith('--')) {
      if (!SCRIPT_LONG_OPTIONS.has(value)) onlyScriptOptions = false;
      if (value === '--rcfile' || value === '--init-file') index++;
      continue;
    }
    if (!value.startsWith('-') && !value.startsWith('+')) break;
    const cluster = value.slice(1);
    if (value.startsWith('+') || !SCRIPT_OPTION_LETTERS.test(cluster.replace(/o/g, ''))) onlyScriptOptions = false;
    if (cluster.includes('c')) commandMode = true;
    if (cluster.includes('o') || cluster.includes('O')) {
      index++;
      if (!cluster.includes('o') || cluster.includes('O') || !SCRIPT_SET_OPTIONS.has(words[index]?.value ?? '')) onlyScriptOptions = false;
    }
  }
  if (!commandMode) return undefined;
  const payload = words[index];
  if (payload === undefined) return undefined;
  if (payload.kind === 'dynamic') {
    semantics.hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `${name} -c: the code it runs (${payload.text}) is only known at run time` }));
    return undefined;
  }
  semantics.payloads.push({ source: payload.value, via: `the ${name} -c code${name === 'bash' || name === 'sh' ? '' : ' (read as bash)'}` });
  return onlyScriptOptions && index === words.length - 1 ? 'literal script' : undefined;
}

/** eval and trap join their arguments with spaces, as bash does, and run the result. */
function joinedPayload(words: readonly ShellWord[], via: string, semantics: CommandSemantics): void {
  if (words.length === 0) return;
  if (words.some((word) => word.kind !== 'static')) {
    semantics.hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `${via}: the code it runs is only known at run time` }));
    return;
  }
  semantics.payloads.push({ source: words.map((word) => word.value).join(' '), via: `the ${via} code` });
}

/**
 * Builtins that assign to variable names evaluate array subscripts in them
 * (`read 'a[$(cmd)]'` runs cmd): a name computed at run time, or one with a
 * subscript, is a hazard.
 */
function variableNames(words: readonly ShellWord[], from: number, semantics: CommandSemantics, to = words.length): void {
  for (let index = from; index < Math.min(to, words.length); index++) {
    const word = words[index]!;
    if (word.kind === 'dynamic' || word.value.includes('[')) {
      semantics.hazards.push(hazardAt({ index: undefined, kind: 'exec', reason: `${words[0]!.value}: the variable name ${word.text} may hold an array subscript, which bash evaluates (running any command substitution in it)` }));
      return;
    }
  }
}

function cdTarget(words: readonly ShellWord[]): CommandSemantics['cwd'] {
  const target = words.slice(1).find((word) => !/^-[LPe@]+$/.test(word.value));
  if (target === undefined || target.kind !== 'static' || target.tilde || target.value === '-' || target.value === '') return { kind: 'unknown' };
  return { kind: 'changed', path: target.value };
}

const PARALLEL_VALUED = new Set(['-j', '-P', '-N', '-n', '-a', '-d', '-S', '-E', '-I', '-L', '-l', '--jobs', '--arg-file', '--delimiter', '--sshlogin', '--max-args', '--max-lines', '--colsep', '-C', '--results', '--joblog', '--tmpdir', '--workdir', '--timeout', '--delay']);

/** GNU parallel runs its command words (before `:::`) through a shell; its options are many, so any option is a hazard. */
function parallel(words: readonly ShellWord[], semantics: CommandSemantics): void {
  semantics.role = 'wrapper';
  semantics.roleReason = 'parallel runs other commands';
  let index = 1;
  for (; index < words.length; index++) {
    const value = words[index]!.value;
    if (!value.startsWith('-')) break;
    semantics.hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `parallel ${value}: its options are not checked (some run programs or write files)` }));
    if (PARALLEL_VALUED.has(value)) index++;
  }
  const command: ShellWord[] = [];
  for (; index < words.length && !/^::::?\+?$/.test(words[index]!.value); index++) command.push(words[index]!);
  if (command.length === 0) {
    semantics.hazards.push(hazardAt({ index: undefined, kind: 'exec', reason: 'parallel without a command runs the commands it reads from its input' }));
    return;
  }
  joinedPayload(command, 'parallel', semantics);
  // Like xargs, parallel appends arguments to the command: written after `:::` they are judged as paths;
  // read from its input (no `:::`) or from files (`::::`), they are names nobody can see here.
  const sources = words.slice(index).map((word) => word.value);
  if (sources.some((value) => /^::::\+?$/.test(value))) {
    semantics.hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: 'parallel :::: appends the lines of a file to the command as arguments, which this check cannot see' }));
  } else if (!sources.some((value) => /^:::\+?$/.test(value))) {
    semantics.hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: 'parallel appends the lines of its input to the command as arguments, which this check cannot see' }));
  }
}

/** watch runs its arguments through `sh -c` (or directly with -x). */
function watch(words: readonly ShellWord[], semantics: CommandSemantics): void {
  semantics.role = 'wrapper';
  semantics.roleReason = 'watch runs another command repeatedly';
  let direct = false;
  let index = 1;
  for (; index < words.length; index++) {
    const value = words[index]!.value;
    if (value === '--') {
      index++;
      break;
    }
    if (!value.startsWith('-')) break;
    if (value === '-x' || value === '--exec') direct = true;
    else if (['-n', '--interval', '-q', '--equexit'].includes(value)) index++;
    else if (!/^-[bcCdegtpwr]+$/.test(value) && !/^--(beep|color|no-color|differences(=.*)?|errexit|chgexit|no-title|precise|no-rerun|no-wrap|no-linewrap|interval=.*|equexit=.*)$/.test(value)) {
      semantics.hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `watch ${value}: an option this check does not know` }));
    }
  }
  const rest = words.slice(index);
  if (rest.length === 0) return;
  if (direct) semantics.inner.push({ words: rest, via: 'run by watch', appendsArguments: false, changesDirectory: false });
  else joinedPayload(rest, 'watch', semantics);
}
