/**
 * Programs that read commands from their input. Codex hooks the command
 * that starts a program (`exec_command`) but not what the model then types
 * into it (`write_stdin`): once an interpreter, a shell, a database client or
 * a pager with a shell escape runs, whatever the model writes to it runs
 * unseen. So under such a host a call that starts one is asked, whatever
 * the shell analysis made of the words it was started with (toolgate's own
 * shell tool gives commands an empty input; a host that lets the model type
 * into them does not).
 */
import path from 'node:path';
import { analyzeCommand, type AnalyzedCommand } from '../tools/shell/analyze-command.ts';

/** Always read commands (or keystrokes that run commands) from their input. */
const ALWAYS = new Set([
  'less', 'more', 'most', 'pg', 'man', 'vi', 'vim', 'nvim', 'view', 'ex', 'ed', 'nano', 'emacs', 'pico', 'joe', 'mc', 'top', 'htop',
  'ssh', 'telnet', 'nc', 'ncat', 'netcat', 'socat', 'ftp', 'sftp', 'gdb', 'lldb', 'pdb', 'tclsh', 'wish', 'expect', 'script', 'screen', 'tmux', 'watch',
]);

/** Read a program from their input unless one is given as an operand or an option (-c, -e, -f...). */
const UNLESS_GIVEN: Readonly<Record<string, ReadonlySet<string>>> = {
  sh: new Set(['-c']), bash: new Set(['-c']), dash: new Set(['-c']), zsh: new Set(['-c']), ksh: new Set(['-c']), fish: new Set(['-c', '--command']), csh: new Set(['-c']), tcsh: new Set(['-c']),
  python: new Set(['-c', '-m']), python2: new Set(['-c', '-m']), python3: new Set(['-c', '-m']), pypy: new Set(['-c', '-m']), pypy3: new Set(['-c', '-m']),
  node: new Set(['-e', '--eval', '-p', '--print']), nodejs: new Set(['-e', '--eval', '-p', '--print']), deno: new Set(['eval', 'run', 'test', 'task', 'fmt', 'lint']), bun: new Set(['-e', '--eval', 'run', 'test', 'x', 'install', 'add']),
  ruby: new Set(['-e']), irb: new Set([]), perl: new Set(['-e', '-E']), php: new Set(['-r', '-f']), lua: new Set(['-e']), luajit: new Set(['-e']), R: new Set(['-e', '-f', '--file']), Rscript: new Set(['-e']), julia: new Set(['-e', '--eval']), ghci: new Set(['-e']), scala: new Set(['-e']), guile: new Set(['-c']), racket: new Set(['-e']), sbcl: new Set(['--eval', '--script']), erl: new Set(['-eval', '-noshell']), iex: new Set([]), dc: new Set(['-e', '-f']),
  tsx: new Set(['-e', '--eval', '-p', '--print']), 'ts-node': new Set(['-e', '--eval', '-p', '--print']), ipython: new Set(['-c', '-m']), bpython: new Set(['-c']), ptpython: new Set([]), jshell: new Set([]), clj: new Set(['-M', '-X', '-T', '-e']), clojure: new Set(['-M', '-X', '-T', '-e']),
  psql: new Set(['-c', '--command', '-f', '--file', '-l', '--list']), mysql: new Set(['-e', '--execute']), mariadb: new Set(['-e', '--execute']), sqlite3: new Set([]), duckdb: new Set(['-c']), mongo: new Set(['--eval']), mongosh: new Set(['--eval', '-f', '--file']), 'redis-cli': new Set([]), 'clickhouse-client': new Set(['-q', '--query']), cqlsh: new Set(['-e', '--execute', '-f', '--file']),
};

/** Options that make any of the above read their input anyway (an interactive session after the script, a program on stdin). */
const INTERACTIVE = new Set(['-i', '--interactive', '-s', '-', '--repl', '-it', '-ti']);

/**
 * How many operands come before the program or statement (`sqlite3 DB SQL`);
 * Infinity where no operand is one (`psql DBNAME`, `irb`): only an option
 * gives them something to run. 0 for the rest: the first operand is the script.
 */
const STATEMENT_AFTER: Readonly<Record<string, number>> = {
  sqlite3: 1, duckdb: 1, 'redis-cli': 0,
  psql: Number.POSITIVE_INFINITY, mysql: Number.POSITIVE_INFINITY, mariadb: Number.POSITIVE_INFINITY, mongo: Number.POSITIVE_INFINITY, mongosh: Number.POSITIVE_INFINITY, cqlsh: Number.POSITIVE_INFINITY, 'clickhouse-client': Number.POSITIVE_INFINITY, iex: Number.POSITIVE_INFINITY, irb: Number.POSITIVE_INFINITY,
};

/** Options that take a value, which is not the script: `python3 -W ignore`, `node -r ./hook.js`. */
const VALUE_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  python: new Set(['-W', '-X', '-Q']), pypy: new Set(['-W', '-X']),
  node: new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--title', '--input-type']), nodejs: new Set(['-r', '--require', '--import', '--loader']),
  ruby: new Set(['-I', '-r', '-E', '-C']), perl: new Set(['-I', '-M', '-m']),
  sh: new Set(['-o', '+o']), bash: new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']), zsh: new Set(['-o', '+o']), dash: new Set(['-o', '+o']), ksh: new Set(['-o', '+o']),
  sqlite3: new Set(['-cmd', '-init', '-separator', '-newline', '-nullvalue', '-vfs']),
  'redis-cli': new Set(['-h', '-p', '-a', '-n', '-u', '--user', '--pass']),
};

/** Container and cluster tools that attach the model to a program inside when given -i / --stdin. */
const ATTACHES = new Set(['docker', 'docker-compose', 'podman', 'podman-compose', 'kubectl', 'oc', 'nerdctl', 'lxc']);

/**
 * Why a command starts a program that reads commands from its input, or
 * undefined when none of its commands does.
 *
 * @example
 * programReadingInput('python3')            // 'python3 reads a program from its input ...'
 * programReadingInput('python3 script.py')  // undefined
 */
export function programReadingInput(command: string, options: { terminal?: boolean } = {}): string | undefined {
  // A program Codex gives a terminal (tty) reads whatever the model types: a prompt, a pager, an editor — any of them can run a command.
  if (options.terminal === true) return `Codex gives this command a terminal (tty), and a program with a terminal reads whatever the model types into it later (Codex's write_stdin), which runs with no hook`;
  for (const analyzed of analyzeCommand(command).commands) {
    const reason = readsInput(analyzed);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

/** Paths that are the program's own input, or its terminal. */
const INPUT_PATHS = /^\/dev\/(stdin|tty|fd\/0)$|^\/proc\/[^/]+\/fd\/0$/;

/** Interpreters whose REPL or debugger is a module (`python3 -m code`). */
const REPL_MODULES = new Set(['code', 'pdb', 'IPython', 'idlelib', 'asyncio', 'bpython', 'ptpython', 'jupyter', 'jupyter_console']);

/** Short options spelled together (`-ic`) as the ones they are (`-i`, `-c`). */
function splitShortOptions(args: readonly string[]): string[] {
  return args.flatMap((arg) => (/^-[A-Za-z]{2,}$/.test(arg) ? [...arg.slice(1)].map((letter) => `-${letter}`) : [arg]));
}

function readsInput(command: AnalyzedCommand): string | undefined {
  const runs = "whatever the model types into it later (Codex's write_stdin) runs with no hook";
  // The command xargs (or parallel) runs with arguments read from the host's input: the model types them.
  if (command.appendsArguments && command.appendedFrom === 'empty-input') return `${command.name ?? 'a command'} ${command.via ?? ''} takes its arguments from its input: ${runs}`.replace('  ', ' ');
  const words = command.words.slice(1).map((word) => word.value);
  const shown = `${command.name}`;
  // Its own input or terminal named as a file (`python3 /dev/stdin`, `bash < /dev/stdin`).
  const named = [...words, ...command.inputs.map((word) => word.value)].find((word) => INPUT_PATHS.test(word));
  if (named !== undefined) return `${shown} reads ${named}, its own input: ${runs}`;
  // Its input is a file (`< file`): not the host's.
  if (command.inputs.length > 0) return undefined;
  const name = command.name === undefined ? undefined : path.basename(command.name).replace(/^(python|pypy)\d+(\.\d+)*$/, '$1');
  if (name === undefined) return undefined;
  const args = splitShortOptions(words);
  if (ALWAYS.has(name)) return `${shown} reads commands from its input (or runs them from keystrokes): ${runs}`;
  if (ATTACHES.has(name)) {
    const attaches =
      args.includes('attach') ||
      (args.includes('compose') && args.includes('exec') && !args.includes('-T') && !args.includes('--no-TTY')) ||
      (args.some((arg) => arg === '-i' || arg === '--interactive' || arg === '--stdin' || arg === '-t' || arg === '--tty') && args.some((arg) => ['exec', 'run', 'start', 'debug'].includes(arg)));
    return attaches ? `${shown} attaches the model to a program in a container: ${runs}` : undefined;
  }
  if ((name === 'python' || name === 'pypy') && REPL_MODULES.has(args[args.indexOf('-m') + 1] ?? '')) return `${shown} -m ${args[args.indexOf('-m') + 1]} is an interactive interpreter or debugger: ${runs}`;
  if (name === 'perl' && args.includes('-d')) return `${shown} -d is perl's debugger, which reads commands from its input: ${runs}`;
  if ((name === 'sed' || name === 'awk' || name === 'gawk') && args.some((arg, index) => arg === '-f' && args[index + 1] === '-')) return `${shown} -f - reads its program from its input: ${runs}`;
  const given = UNLESS_GIVEN[name];
  if (given === undefined) return undefined;
  if (args.some((arg) => INTERACTIVE.has(arg))) return `${shown} ${args.find((arg) => INTERACTIVE.has(arg))} reads a program from its input: ${runs}`;
  if (args.some((arg) => given.has(arg) || [...given].some((option) => option.startsWith('--') && arg.startsWith(`${option}=`)))) return undefined;
  const takesValue = VALUE_OPTIONS[name] ?? new Set<string>();
  const operands = args.filter((arg, index) => !arg.startsWith('-') && !arg.startsWith('+') && !takesValue.has(args[index - 1] ?? ''));
  const needed = STATEMENT_AFTER[name] ?? 0;
  if (operands.length > needed) return undefined;
  return `${shown}${operands.length === 0 ? ' with no program to run' : ` ${operands.join(' ')}`} reads ${name === 'sqlite3' || name === 'psql' || name === 'mysql' || name === 'mariadb' || name === 'duckdb' ? 'statements' : 'a program'} from its input: ${runs}`;
}
