/**
 * What `toolgate run` was asked on its command line: the options read and
 * checked (a usage error says what is wrong), and what the run works on,
 * the demo's fresh workspace and policy, or a task from the argument or
 * stdin under the policy found or named.
 */
import { loadPolicyFile, type LoadedPolicy } from '../../config/load-policy-file.ts';
import type { PolicyOrigin } from '../../config/policy-discovery.ts';
import type { RunMode } from '../../core/types.ts';
import { createDemoWorkspace } from '../../runtime/demo-workspace.ts';
import type { CliIo } from '../cli-io.ts';
import { policyForRun, UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { readTaskFromStdin } from '../read-task-from-stdin.ts';
import { RUN_MODE_OPTIONS, runModeFrom } from '../run-mode-options.ts';

/** The options of `toolgate run`. */
export interface RunArguments {
  /** The task argument, `-` for stdin; undefined when none was given. */
  task: string | undefined;
  policy: string | undefined;
  model: string | undefined;
  baseUrl: string | undefined;
  session: string | undefined;
  mode: RunMode | undefined;
  maxSteps: number;
  demo: boolean;
  debug: boolean;
}

/**
 * The options of `toolgate run`, or `'help'` for `--help`. Throws a
 * `UsageError` for options that do not go together or are out of range.
 *
 * @example
 * const parsed = parseRunArguments(['--demo']); // { demo: true, maxSteps: 30, ... }
 */
export function parseRunArguments(argv: string[]): RunArguments | 'help' {
  const { values, positionals } = parseCommandLine({
    argv,
    allowPositionals: true,
    options: {
      policy: { type: 'string' },
      model: { type: 'string' },
      'base-url': { type: 'string' },
      ...RUN_MODE_OPTIONS,
      session: { type: 'string' },
      'max-steps': { type: 'string' },
      demo: { type: 'boolean' },
      debug: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const mode = runModeFrom(values);
  const maxSteps = values['max-steps'] === undefined ? 30 : Number(values['max-steps']);
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new UsageError(`--max-steps must be a positive integer, not ${JSON.stringify(values['max-steps'])}`);
  if (positionals.length > 1) throw new UsageError('give the task as one argument, in quotes');
  if (values.demo === true && values.policy !== undefined) throw new UsageError('--demo brings its own workspace and policy; leave out --policy');
  return {
    task: positionals[0],
    policy: values.policy,
    model: values.model,
    baseUrl: values['base-url'],
    session: values.session,
    mode,
    maxSteps,
    demo: values.demo === true,
    debug: values.debug === true,
  };
}

/** What a run works on: its directory, policy and task. */
export interface RunTask {
  cwd: string;
  loaded: LoadedPolicy;
  origin: PolicyOrigin;
  task: string;
}

/**
 * What the run works on. `--demo`: a fresh demo workspace, its policy and
 * (unless one was given) its task. Otherwise the task from the argument or,
 * for `-` or no argument without a terminal, from stdin (seed 003), under
 * the policy named or found. Throws a `UsageError` when there is no task.
 *
 * @example
 * const { cwd, loaded, origin, task } = await resolveRunTask({ arguments: parsed, io });
 */
export async function resolveRunTask(options: { arguments: RunArguments; io: CliIo }): Promise<RunTask> {
  const { arguments: parsed, io } = options;
  let task = parsed.task;
  if (parsed.demo) {
    const workspace = createDemoWorkspace();
    const loaded = await loadPolicyFile(workspace.policyFile);
    task ??= 'Work through the open tasks in ws/notes.txt.';
    io.stderr.write(`toolgate demo: a fresh workspace in ${workspace.root}\n`);
    return { cwd: workspace.root, loaded, origin: 'demo', task };
  }
  // Pipeline mode (seed 003): `echo "task" | toolgate run`, or `-` for stdin.
  if (task === '-' || (task === undefined && io.stdin.isTTY !== true)) task = await readTaskFromStdin(io.stdin);
  if (task === undefined || task.trim() === '') throw new UsageError('give a task: toolgate run "what the agent should do", or on stdin: echo "what the agent should do" | toolgate run (or --demo)');
  const cwd = io.cwd;
  const { loaded, origin } = await policyForRun({ policy: parsed.policy, cwd });
  return { cwd, loaded, origin, task };
}
