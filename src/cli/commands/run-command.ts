import { randomUUID } from 'node:crypto';
import { styleText } from 'node:util';
import { createNonInteractiveApprover, type Approver } from '../../core/approver.ts';
import { loadPolicyFile, type LoadedPolicy } from '../../config/load-policy-file.ts';
import { createTerminalApprover } from '../../approvers/terminal/terminal-approver.ts';
import { redact, redactSecretsInText } from '../../core/redact.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { modelCallErrorFrom } from '../../models/model-call-error-from.ts';
import { resolveModelConnection } from '../../models/resolve-model.ts';
import { createBuiltinTools } from '../../runtime/create-builtin-tools.ts';
import { createRuntimeGate } from '../../runtime/create-runtime-gate.ts';
import { combineObservers, createDecisionTally } from '../../runtime/decision-tally.ts';
import { createDemoWorkspace } from '../../runtime/demo-workspace.ts';
import { brief, runAgent } from '../../runtime/run-agent.ts';
import type { StoppedBy } from '../../adapters/ai-sdk/gated-tools-state.ts';
import { createWorkerTool, WORKER_TOOL_NAME } from '../../runtime/worker-tool.ts';
import type { BuiltinTool } from '../../tools/builtin-tool.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { chooseModelOrExplain, policyForRun, UsageError } from '../cli-support.ts';
import { chooseApprovalTerminal } from '../choose-approval-terminal.ts';
import { describeMissingSandbox } from '../describe-missing-sandbox.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { readTaskFromStdin } from '../read-task-from-stdin.ts';
import { RUN_MODE_OPTIONS, runModeFrom, runModeHelp } from '../run-mode-options.ts';
import { detectSandbox } from '../../sandbox/detect-sandbox.ts';
import type { PolicyOrigin } from '../../config/policy-discovery.ts';
import { announcePolicy } from '../../config/policy-discovery.ts';
import { createSpinner } from '../spinner.ts';

export const RUN_HELP = `Usage: toolgate run "TASK" [options]
       echo "TASK" | toolgate run [options]
       toolgate run --demo

Runs an agent in this terminal with the built-in file and shell tools. Every
tool call goes through the policy; when a person must decide, the call is
shown (a diff for edits, the command and where it runs) and answered with one
key: [y] once, [s] for the session, [a] always, [n] deny (with a reason the
model sees), [v] view all, [e] edit the arguments.

Options:
  --policy FILE      the policy (default: ./toolgate.yaml, else a built-in policy
                     that confines the agent to this directory and asks before
                     every write and shell command; \`toolgate init\` writes it
                     out as a commented toolgate.yaml to change)
  --model ID         openai:MODEL | anthropic:MODEL | openai-compatible:MODEL |
                     script:FILE (default: $TOOLGATE_MODEL, else openai:gpt-4o
                     when OPENAI_API_KEY is set, else anthropic:claude-sonnet-4-5
                     when ANTHROPIC_API_KEY is set, else an error saying how to
                     choose; the demo script runs only with --demo)
  --base-url URL     the model's server: required for openai-compatible (Ollama:
                     http://localhost:11434/v1, vLLM, LM Studio); for openai and
                     anthropic, a proxy or gateway
  --debug            when the model fails, print the full error and stack trace
${runModeHelp(18)}
  --session ID       the session that "approve for session" applies to
  --max-steps N      stop after N model steps (default 30)
  --demo             run the demo agent in a fresh workspace (no key needed)
  -h, --help         this help

Environment: TOOLGATE_MODEL, OPENAI_API_KEY (and OPENAI_BASE_URL),
ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL), TOOLGATE_BASE_URL (or
OPENAI_COMPATIBLE_BASE_URL, and OPENAI_COMPATIBLE_API_KEY), NO_COLOR. Without a terminal and without a
mode flag, every ask is denied with a message saying how to approve.
Prompts go to the terminal: stdin and stderr when both are one, else the
controlling terminal (/dev/tty), so \`toolgate run 2>/dev/null\` and
\`echo TASK | toolgate run\` still ask the person at the keyboard.

Exit codes:
  0    the agent finished
  1    the run was stopped by a denial, or failed
  2    usage error
  3    the policy file is missing or invalid
  6    the model failed: unreachable, refused the request (key, model name),
       or broke off mid-answer (one line says which; --debug for the trace)
  130  interrupted (Ctrl-C)
`;

/**
 * `toolgate run`: an agent in the terminal, every tool call gated.
 *
 * @example
 * process.exitCode = await runRunCommand(['--demo'], processIo());
 */
export async function runRunCommand(argv: string[], io: CliIo): Promise<number> {
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
  if (values.help) {
    io.stdout.write(RUN_HELP);
    return EXIT.ok;
  }
  const mode = runModeFrom(values);
  const maxSteps = values['max-steps'] === undefined ? 30 : Number(values['max-steps']);
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new UsageError(`--max-steps must be a positive integer, not ${JSON.stringify(values['max-steps'])}`);
  if (positionals.length > 1) throw new UsageError('give the task as one argument, in quotes');
  if (values.demo === true && values.policy !== undefined) throw new UsageError('--demo brings its own workspace and policy; leave out --policy');

  let cwd = io.cwd;
  let loaded: LoadedPolicy;
  let task = positionals[0];
  let origin: PolicyOrigin = 'demo';
  if (values.demo === true) {
    const workspace = createDemoWorkspace();
    cwd = workspace.root;
    loaded = await loadPolicyFile(workspace.policyFile);
    task ??= 'Work through the open tasks in ws/notes.txt.';
    io.stderr.write(`toolgate demo: a fresh workspace in ${workspace.root}\n`);
  } else {
    // Pipeline mode (seed 003): `echo "task" | toolgate run`, or `-` for stdin.
    if (task === '-' || (task === undefined && io.stdin.isTTY !== true)) task = await readTaskFromStdin(io.stdin);
    if (task === undefined || task.trim() === '') throw new UsageError('give a task: toolgate run "what the agent should do", or on stdin: echo "what the agent should do" | toolgate run (or --demo)');
    ({ loaded, origin } = await policyForRun({ policy: values.policy, cwd }));
  }
  // Chosen before anything is announced or recorded: without a model there is nothing to run (and never the demo script here).
  const choice = chooseModelOrExplain({ flag: values.model, env: io.env, demo: values.demo === true });
  // Which file, and whether an earlier run's agent could have planted it (src/config/policy-discovery.ts).
  announcePolicy({ loaded, origin, cwd, env: io.env, write: (text) => io.stderr.write(text), record: true });

  // Decided on the terminal the prompt is shown on, not on stdin alone (src/cli/choose-approval-terminal.ts).
  const terminal = chooseApprovalTerminal(io);
  const color = io.stderr.isTTY === true && io.env.NO_COLOR === undefined;
  const say = (text: string, style?: Parameters<typeof styleText>[0]) => io.stderr.write(color && style !== undefined ? styleText(style, text) : text);

  // PATH decides where bwrap is found; an io.env without one (an embedding caller) means the process's.
  const detection = await detectSandbox({ environment: { PATH: io.env.PATH ?? process.env.PATH } });
  const builtins = await createBuiltinTools({ loaded, cwd, detection });
  const sandboxNotice = describeMissingSandbox({ decision: builtins.sandbox, detection, policyFile: loaded.path, origin });
  if (sandboxNotice !== undefined) say(sanitizeTerminalText(sandboxNotice, { keepNewlines: true }), 'yellow');
  const connection = await resolveModelConnection({ id: choice.id, env: io.env, cwd, ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }) });
  const model = connection.model;
  if (choice.notice !== undefined) say(sanitizeTerminalText(choice.notice, { keepNewlines: true }));

  const controller = new AbortController();
  let interrupted = false;
  let stoppedInWorker: StoppedBy | undefined;
  const onSignal = () => {
    interrupted = true;
    controller.abort(new Error('interrupted'));
  };
  process.once('SIGINT', onSignal);
  const spinner = createSpinner({ output: io.stderr, enabled: io.stderr.isTTY === true && color });
  const tools = builtins.tools.filter((tool): tool is BuiltinTool => 'execute' in tool && typeof tool.execute === 'function');
  const approver = withSpinnerPaused(
    terminal !== undefined
      ? createTerminalApprover({
          input: terminal.input as never,
          output: terminal.output as never,
          env: io.env,
          validateArgs: (name, args) => validateWith([...tools, worker], name, args),
          onInterrupt: () => {
            interrupted = true;
          },
        })
      : createNonInteractiveApprover({ hint: NOBODY_TO_ASK }),
    spinner,
  );
  const tally = createDecisionTally();
  // Why each call that did not run was stopped, to show next to it.
  const refusals = new Map<string, string>();
  const observer = combineObservers(tally, {
    authorized: ({ call, authorization }) => {
      if (authorization.decision === 'block' || authorization.decision === 'denied') {
        refusals.set(call.callId, `${authorization.decision === 'block' ? 'blocked' : 'denied'}: ${authorization.reason}`);
      }
    },
  });
  const gate = createRuntimeGate({ loaded, tools: builtins.tools, approver, observer, ...(mode === undefined ? {} : { mode }) });
  const context = { sessionId: values.session ?? `run-${randomUUID()}`, runId: randomUUID() };
  const worker = createWorkerTool({
    askFirst: loaded.policy.tools.get(WORKER_TOOL_NAME)?.decision !== 'allow',
    runChild: async (childTask, signal) => {
      const child = await runAgent({
        model,
        task: childTask,
        gate,
        tools,
        context: { ...context, caller: WORKER_TOOL_NAME },
        approver,
        maxSteps,
        ...(signal === undefined ? {} : { signal }),
      });
      if (child.stoppedBy !== undefined) {
        // A denial that stops the run stops it all, not just the worker.
        stoppedInWorker = child.stoppedBy;
        controller.abort(new Error('stopped by a denial in a worker'));
      }
      return child.text;
    },
  });

  let wroteText = false;
  // Each call's arguments until its result is printed, to keep their secrets out of an error message that quotes them.
  const argumentsById = new Map<string, unknown>();
  try {
    const summary = await runAgent({
      model,
      task,
      gate,
      tools: [...tools, worker],
      context,
      approver,
      maxSteps,
      signal: controller.signal,
      onThinking: () => spinner.start('thinking'),
      onText: (delta) => {
        spinner.stop();
        wroteText = true;
        io.stdout.write(sanitizeTerminalText(delta, { keepNewlines: true, keepTabs: true }));
      },
      onStepEnd: () => {
        if (wroteText) io.stdout.write('\n');
        wroteText = false;
      },
      onToolCall: ({ toolCallId, tool, args }) => {
        spinner.stop();
        argumentsById.set(toolCallId, args);
        // The transcript is a stream like the audit log: secrets stay [REDACTED] here; the prompt masks them and [v] reveals them.
        say(`\n→ ${sanitizeTerminalText(tool)} ${sanitizeTerminalText(brief(redact(args, loaded.policy.redact.keys), 120))}\n`, 'cyan');
      },
      onToolResult: ({ toolCallId, tool, outcome, detail }) => {
        spinner.stop();
        if (outcome === 'ran') say(`  ✓ ${sanitizeTerminalText(tool)} ran\n`, 'green');
        // A failure message may quote the call's arguments (a validation error does): their secrets stay hidden there too.
        else if (outcome === 'failed') say(`  ✗ ${sanitizeTerminalText(tool)} failed: ${sanitizeTerminalText(redactSecretsInText({ text: detail, value: argumentsById.get(toolCallId), keys: loaded.policy.redact.keys }))}\n`, 'red');
        else say(`  ✗ ${sanitizeTerminalText(tool)} ${sanitizeTerminalText(refusals.get(toolCallId) ?? 'did not run')}\n`, 'red');
      },
    });
    spinner.stop();
    const { counts } = tally;
    io.stdout.write('\n');
    say(
      `\n${summary.toolCalls} tool calls: ${counts.allowed} allowed, ${counts.approved} approved, ${counts.denied} denied${counts.timedOut > 0 ? ` (${counts.timedOut} timed out)` : ''}, ${counts.blocked} blocked\n`,
      'bold',
    );
    if (values.demo === true) {
      say(`every decision is in the audit log: toolgate audit --policy ${sanitizeTerminalText(loaded.path)}\n`);
    }
    if (summary.stoppedBy !== undefined) {
      say(`stopped by the denial of ${sanitizeTerminalText(summary.stoppedBy.tool)}: ${sanitizeTerminalText(summary.stoppedBy.reason)}\n`, 'red');
      return interrupted ? EXIT.interrupted : EXIT.blockedOrDenied;
    }
    return interrupted ? EXIT.interrupted : EXIT.ok;
  } catch (error) {
    spinner.stop();
    if (stoppedInWorker !== undefined) {
      say(`\nstopped by the denial of ${sanitizeTerminalText(stoppedInWorker.tool)} in a worker: ${sanitizeTerminalText(stoppedInWorker.reason)}\n`, 'red');
      return EXIT.blockedOrDenied;
    }
    if (interrupted || controller.signal.aborted) {
      say('\ninterrupted\n', 'red');
      return EXIT.interrupted;
    }
    // A model that cannot be reached or breaks off: one line of what failed, one of what to do; the trace only with --debug.
    const failure = modelCallErrorFrom({ error, target: connection });
    if (failure === undefined) throw error;
    // The model's last words may have stopped mid-line.
    if (wroteText) io.stdout.write('\n');
    io.stderr.write(`toolgate run: ${sanitizeTerminalText(failure.message)} [${failure.code}]\n${sanitizeTerminalText(failure.hint)}\n`);
    if (values.debug === true) io.stderr.write(`${debugTrace(error)}\n`);
    return EXIT.model;
  } finally {
    process.removeListener('SIGINT', onSignal);
    await gate.close();
    terminal?.close();
  }
}

/** The error, its stack and its causes (a retry's last error, the socket's), for --debug. */
function debugTrace(error: unknown): string {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    lines.push(depth === 0 ? '' : 'caused by:');
    if (current instanceof Error) {
      lines.push(current.stack ?? `${current.name}: ${current.message}`);
      const extra = current as { url?: unknown; statusCode?: unknown; responseBody?: unknown };
      if (typeof extra.url === 'string') lines.push(`  url: ${extra.url}`);
      if (typeof extra.statusCode === 'number') lines.push(`  status: ${extra.statusCode}`);
      if (typeof extra.responseBody === 'string') lines.push(`  response: ${extra.responseBody.slice(0, 2000)}`);
      current = (current as { lastError?: unknown }).lastError ?? current.cause;
    } else {
      lines.push(brief(current, 2000));
      current = undefined;
    }
  }
  return sanitizeTerminalText(lines.join('\n'), { keepNewlines: true, keepTabs: true });
}

/**
 * What a denied ask says when nobody can be asked: the situation, and how a
 * person could be reached. Never a broader mode: whoever wrote the rule that
 * asked meant a person to decide.
 */
const NOBODY_TO_ASK =
  'nobody who can approve it is reachable here: toolgate run has no terminal to ask on (stdin and stderr are not one, and there is no /dev/tty), so it did not run. ' +
  'To be asked, start toolgate run from a terminal, or start the task as a run on toolgate serve and decide in its web inbox';

function validateWith(tools: readonly BuiltinTool[], name: string, args: unknown): { ok: true; args: unknown } | { ok: false; error: string } {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) return { ok: true, args };
  const parsed = tool.inputSchema.safeParse(args);
  if (parsed.success) return { ok: true, args: parsed.data };
  return { ok: false, error: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; ') };
}

function withSpinnerPaused(approver: Approver, spinner: { stop(): void }): Approver {
  return {
    ask: (request, options) => {
      spinner.stop();
      return approver.ask(request, options);
    },
    ...(approver.askGroup === undefined
      ? {}
      : {
          askGroup: (requests, options) => {
            spinner.stop();
            return approver.askGroup!(requests, options);
          },
        }),
  };
}
