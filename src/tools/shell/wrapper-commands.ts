/**
 * Commands that run another command: `env`, `sudo`, `timeout`, `xargs`,
 * `nice`... Each one's options are read by its own grammar, so that the
 * wrapped command is found exactly (`timeout -s KILL 5 rm x` runs `rm x`).
 * An option the grammar does not know, or a word computed at run time,
 * makes the wrapped command uncertain: a hazard, never a guess that allows.
 */
import type { AppendedNames } from './commands/command-model.ts';
import { hazardAt, type Hazard } from './hazard.ts';
import { isSensitiveVariable } from './sensitive-variables.ts';
import type { ShellWord } from './shell-word.ts';

interface WrapperGrammar {
  /** Options without a value (an attached `=value` is accepted and ignored). */
  flags?: readonly string[];
  /** Options whose value is attached or the next word. */
  valued?: readonly string[];
  /** Options whose value can only be attached (`-i{}`, `--replace=R`). */
  optional?: readonly string[];
  /** Words between the options and the command (timeout's duration). */
  operands?: number;
  /** `NAME=VALUE` words before the command (env, sudo). */
  assignments?: boolean;
  /** Options whose value is shell code (`flock -c`, `su -c`). */
  payload?: readonly string[];
  /** Options after which no command runs (`command -v`, `ionice -p`). */
  noCommand?: readonly string[];
  /** Options that change the working directory of the wrapped command. */
  chdir?: readonly string[];
  /** Options that make the wrapped command run through a shell or edit files. */
  hazardous?: ReadonlyMap<string, string>;
  /** `nice -10`. */
  numeric?: boolean;
  /** The wrapped command gets more arguments than written (xargs). */
  appendsArguments?: boolean;
  /** Options that make it cut its input at NUL bytes only (xargs -0), that choose another cut (xargs -d), and that put the input in place of a string (xargs -I). */
  inputCut?: { nul: readonly string[]; other: readonly string[]; replace: readonly string[] };
  /** The grammar is only a sketch: the result always carries a hazard. */
  sketch?: boolean;
}

export interface Unwrapped {
  /** Where the wrapped command starts in `words`, if one runs. */
  start: number | undefined;
  hazards: Hazard[];
  /** Shell code given to the wrapper, to analyse like a `bash -c` payload. */
  payloads: string[];
  /** The wrapped command runs in another directory. */
  changesDirectory: boolean;
  /** The wrapped command receives arguments not written here. */
  appendsArguments: boolean;
  /** How those arguments arrive, when it receives any. */
  appendedNames: AppendedNames | undefined;
}


const SUDO_FLAGS = ['-A', '-b', '-E', '-e', '-H', '-i', '-K', '-k', '-l', '-n', '-P', '-S', '-s', '-V', '-v', '-B', '-N', '--askpass', '--background', '--bell', '--preserve-env', '--edit', '--set-home', '--login', '--remove-timestamp', '--reset-timestamp', '--list', '--non-interactive', '--preserve-groups', '--stdin', '--shell', '--version', '--validate', '--no-update', '--help'];
const SUDO_VALUED = ['-C', '--close-from', '-D', '--chdir', '-g', '--group', '--host', '-p', '--prompt', '-R', '--chroot', '-r', '--role', '-t', '--type', '-T', '--command-timeout', '-U', '--other-user', '-u', '--user'];
const SUDO_HAZARDS = new Map([
  ['-e', 'sudo -e edits files as another user'],
  ['--edit', 'sudo -e edits files as another user'],
  ['-s', 'sudo -s runs the command through a shell'],
  ['--shell', 'sudo -s runs the command through a shell'],
  ['-i', 'sudo -i runs a login shell'],
  ['--login', 'sudo -i runs a login shell'],
]);
const STRACE_FLAGS = ['-f', '-c', '-C', '-d', '-D', '-F', '-h', '-i', '-k', '-q', '-r', '-t', '-T', '-v', '-V', '-w', '-x', '-y', '-z', '-Z'];
const STRACE_VALUED = ['-o', '-e', '-p', '-s', '-u', '-E', '-a', '-b', '-I', '-O', '-S', '-X', '-P', '--output'];

const GRAMMARS: ReadonlyMap<string, WrapperGrammar> = new Map<string, WrapperGrammar>([
  [
    'env',
    {
      flags: ['-i', '--ignore-environment', '-0', '--null', '-v', '--debug', '--block-signal', '--default-signal', '--ignore-signal', '--list-signal-handling'],
      valued: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string', '-a', '--argv0'],
      payload: ['-S', '--split-string'],
      chdir: ['-C', '--chdir'],
      assignments: true,
    },
  ],
  ['command', { flags: ['-p'], noCommand: ['-v', '-V'] }],
  ['builtin', {}],
  ['exec', { flags: ['-c', '-l'], valued: ['-a'] }],
  ['nice', { valued: ['-n', '--adjustment'], numeric: true }],
  ['nohup', {}],
  ['timeout', { flags: ['--preserve-status', '--foreground', '-v', '--verbose', '-p'], valued: ['-s', '--signal', '-k', '--kill-after'], operands: 1 }],
  ['stdbuf', { valued: ['-i', '-o', '-e', '--input', '--output', '--error'] }],
  ['sudo', { flags: SUDO_FLAGS, valued: SUDO_VALUED, chdir: ['-D', '--chdir', '-R', '--chroot'], hazardous: SUDO_HAZARDS, assignments: true }],
  ['doas', { flags: ['-L', '-n', '-s'], valued: ['-C', '-u'], noCommand: ['-C'], hazardous: new Map([['-s', 'doas -s runs a shell']]) }],
  [
    'xargs',
    {
      flags: ['-0', '--null', '-o', '--open-tty', '-p', '--interactive', '-r', '--no-run-if-empty', '-t', '--verbose', '-x', '--exit', '--help', '--version'],
      valued: ['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var'],
      optional: ['-e', '-i', '-l', '--eof', '--replace', '--max-lines'],
      appendsArguments: true,
      inputCut: { nul: ['-0', '--null'], other: ['-d', '--delimiter'], replace: ['-I', '-i', '--replace'] },
    },
  ],
  ['time', { flags: ['-p', '--portability', '-v', '--verbose', '-a', '--append', '-q', '--quiet'], valued: ['-f', '--format', '-o', '--output'] }],
  ['setsid', { flags: ['-c', '--ctty', '-f', '--fork', '-w', '--wait'] }],
  ['ionice', { flags: ['-t', '--ignore'], valued: ['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid'], noCommand: ['-p', '--pid', '-P', '--pgid', '-u', '--uid'] }],
  ['taskset', { flags: ['-a', '--all-tasks', '-c', '--cpu-list', '-p', '--pid'], noCommand: ['-p', '--pid'], operands: 1 }],
  [
    'flock',
    {
      flags: ['-s', '--shared', '-x', '-e', '--exclusive', '-u', '--unlock', '-n', '--nb', '--nonblock', '-o', '--close', '-F', '--no-fork', '--verbose'],
      valued: ['-w', '--wait', '--timeout', '-E', '--conflict-exit-code', '-c', '--command'],
      payload: ['-c', '--command'],
      operands: 1,
    },
  ],
  ['chroot', { flags: ['--userspec', '--groups', '--skip-chdir'], operands: 1, chdir: ['--skip-chdir'] }],
  ['unbuffer', { flags: ['-p'] }],
  ['fakeroot', { flags: ['-u', '--unknown-is-real'], valued: ['-l', '--lib', '--faked', '-s', '-i', '-b'] }],
  ['busybox', {}],
  ['toybox', {}],
  ['strace', { flags: STRACE_FLAGS, valued: STRACE_VALUED }],
  ['ltrace', { flags: STRACE_FLAGS, valued: STRACE_VALUED }],
  ['caffeinate', { flags: ['-d', '-i', '-m', '-s', '-u'], valued: ['-t', '-w'] }],
  ['ssh-agent', { flags: ['-c', '-s', '-D', '-d', '-k'], valued: ['-a', '-E', '-P', '-t', '-O'] }],
  ...['chrt', 'valgrind', 'xvfb-run', 'dbus-run-session', 'dbus-launch', 'firejail', 'proxychains', 'proxychains4', 'torsocks', 'pkexec', 'systemd-run', 'runuser', 'su', 'script', 'sg', 'nsenter', 'unshare', 'bwrap', 'sandbox-exec', 'numactl', 'cgexec', 'prlimit', 'catchsegv', 'perf', 'entr', 'direnv'].map((name): [string, WrapperGrammar] => [name, { payload: ['-c', '--command'], sketch: true }]),
]);

/**
 * Whether `name` runs another command given as its arguments.
 *
 * @example
 * isWrapper('timeout') // true
 */
export function isWrapper(name: string): boolean {
  return GRAMMARS.has(name);
}

/**
 * Finds the command a wrapper runs. `words[0]` is the wrapper's name.
 * Returns undefined when `name` is not a wrapper.
 *
 * @example
 * unwrap({ name: 'timeout', words: [timeout, -s, KILL, 5, rm, x] }) // { start: 4, ... }
 */
export function unwrap(options: { name: string; words: readonly ShellWord[] }): Unwrapped | undefined {
  const grammar = GRAMMARS.get(options.name);
  if (grammar === undefined) return undefined;
  const { name, words } = options;
  const result: Unwrapped = {
    start: undefined,
    hazards: [],
    payloads: [],
    changesDirectory: false,
    appendsArguments: grammar.appendsArguments === true,
    appendedNames: grammar.appendsArguments === true ? { cut: 'split', atEnd: true } : undefined,
  };
  const uncertain = (index: number | undefined, why: string): Unwrapped => {
    result.hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `${name}: cannot tell which command it runs (${why})` }));
    result.start = grammar.sketch === true ? firstOperand(words, index ?? 1) : undefined;
    return result;
  };
  let index = 1;
  let runsNothing = false;
  const takeValue = (option: string, value: ShellWord | string | undefined, at: number): void => {
    if (grammar.payload?.includes(option) === true && value !== undefined) {
      if (typeof value !== 'string' && value.kind === 'dynamic') {
        result.hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `${name} ${option}: the code it runs (${value.text}) is only known at run time` }));
      } else {
        result.payloads.push(typeof value === 'string' ? value : value.value);
      }
    }
    if (grammar.chdir?.includes(option) === true) result.changesDirectory = true;
    if (grammar.noCommand?.includes(option) === true) runsNothing = true;
    // The last cut given wins, as in GNU xargs.
    const names = result.appendedNames;
    if (names !== undefined && grammar.inputCut !== undefined) {
      if (grammar.inputCut.nul.includes(option)) names.cut = 'nul';
      if (grammar.inputCut.other.includes(option)) names.cut = 'split';
      if (grammar.inputCut.replace.includes(option)) names.atEnd = false;
    }
    const hazard = grammar.hazardous?.get(option);
    if (hazard !== undefined) result.hazards.push(hazardAt({ index: at, kind: 'exec', reason: hazard }));
  };
  for (; index < words.length; index++) {
    const word = words[index]!;
    if (word.kind !== 'static') return uncertain(index, `${word.text} is only known at run time`);
    const value = word.value;
    if (value === '--') {
      index++;
      break;
    }
    if (!value.startsWith('-') || value === '-') break;
    if (grammar.sketch === true) {
      if (grammar.payload?.includes(value) === true) {
        const at = index;
        index++;
        takeValue(value, words[index], at);
      }
      continue;
    }
    if (grammar.numeric === true && /^-\d+$/.test(value)) continue;
    if (value.startsWith('--')) {
      const equals = value.indexOf('=');
      const option = equals === -1 ? value : value.slice(0, equals);
      const attached = equals === -1 ? undefined : value.slice(equals + 1);
      if (grammar.flags?.includes(option) === true || grammar.optional?.includes(option) === true) {
        takeValue(option, attached, index);
        continue;
      }
      if (grammar.valued?.includes(option) === true) {
        const at = index;
        if (attached === undefined) index++;
        takeValue(option, attached ?? words[index], at);
        continue;
      }
      return uncertain(index, `the option ${option} is not known to this check`);
    }
    for (let position = 1; position < value.length; position++) {
      const option = `-${value[position]}`;
      const rest = value.slice(position + 1);
      if (grammar.optional?.includes(option) === true) {
        takeValue(option, rest, index);
        break;
      }
      if (grammar.flags?.includes(option) === true) {
        takeValue(option, undefined, index);
        continue;
      }
      if (grammar.valued?.includes(option) === true) {
        const at = index;
        if (rest === '') index++;
        takeValue(option, rest !== '' ? rest : words[index], at);
        break;
      }
      return uncertain(index, `the option ${option} is not known to this check`);
    }
  }
  if (runsNothing) return result;
  if (grammar.assignments === true) {
    for (; index < words.length; index++) {
      const value = words[index]!.value;
      const equals = value.indexOf('=');
      if (words[index]!.kind !== 'static' || equals <= 0) break;
      const variable = value.slice(0, equals);
      if (isSensitiveVariable(variable)) {
        result.hazards.push(hazardAt({ index: undefined, kind: 'environment', reason: `${name} sets ${variable}, which can change what the command runs or loads` }));
      }
    }
  }
  index += grammar.operands ?? 0;
  if (name === 'flock' && (words[index]?.value === '-c' || words[index]?.value === '--command')) {
    takeValue('-c', words[index + 1], index);
    return result;
  }
  if (grammar.sketch === true) result.hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: `${name}: its options are not fully known to this check, so the command it runs is a best guess` }));
  if (result.payloads.length > 0) {
    // The code given as a string is what runs (env -S, su -c): the remaining words are its arguments.
    if (name === 'env') result.hazards.push(hazardAt({ index: undefined, kind: 'unknown', reason: 'env -S splits a string into the command it runs' }));
    return result;
  }
  if (index < words.length) result.start = index;
  else if (STARTS_A_SHELL.has(name)) result.hazards.push(hazardAt({ index: undefined, kind: 'exec', reason: `${name} without a command starts a shell` }));
  return result;
}

/** Wrappers that start an interactive shell when given no command. */
const STARTS_A_SHELL = new Set(['sudo', 'doas', 'chroot', 'su', 'runuser', 'script', 'sg', 'nsenter', 'unshare', 'firejail', 'pkexec', 'systemd-run', 'fakeroot', 'ssh-agent']);

function firstOperand(words: readonly ShellWord[], from: number): number | undefined {
  for (let index = from; index < words.length; index++) {
    const value = words[index]!.value;
    if (!value.startsWith('-') || value === '-') return index;
  }
  return undefined;
}
