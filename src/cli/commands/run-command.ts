/**
 * `toolgate run`: an agent in this terminal with the built-in tools, every
 * call gated. The command reads as its phases, each beside it: what it was
 * asked (run-arguments.ts), whom it asks (run-approver.ts), what it writes
 * while the agent works (run-transcript.ts) and how it ends (run-outcome.ts).
 */
import { randomUUID } from 'node:crypto';
import { announcePolicy } from '../../config/policy-discovery.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { resolveModelConnection } from '../../models/resolve-model.ts';
import { createBuiltinTools } from '../../runtime/create-builtin-tools.ts';
import { createRuntimeGate } from '../../runtime/create-runtime-gate.ts';
import { combineObservers, createDecisionTally } from '../../runtime/decision-tally.ts';
import { runAgent } from '../../runtime/run-agent.ts';
import type { StoppedBy } from '../../adapters/ai-sdk/gated-tools-state.ts';
import { createWorkerTool, WORKER_TOOL_NAME } from '../../runtime/worker-tool.ts';
import type { BuiltinTool } from '../../tools/builtin-tool.ts';
import { detectSandbox } from '../../sandbox/detect-sandbox.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { chooseModelOrExplain } from '../cli-support.ts';
import { chooseApprovalTerminal } from '../choose-approval-terminal.ts';
import { describeMissingSandbox } from '../describe-missing-sandbox.ts';
import { runModeHelp } from '../run-mode-options.ts';
import { createSpinner } from '../spinner.ts';
import { createRunApprover, validateToolArguments } from './run-approver.ts';
import { parseRunArguments, resolveRunTask } from './run-arguments.ts';
import { reportRunFailure, reportRunSummary } from './run-outcome.ts';
import { createRunTranscript, createSay } from './run-transcript.ts';

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
  const parsed = parseRunArguments(argv);
  if (parsed === 'help') {
    io.stdout.write(RUN_HELP);
    return EXIT.ok;
  }
  const { mode, maxSteps } = parsed;
  const { cwd, loaded, origin, task } = await resolveRunTask({ arguments: parsed, io });
  // Chosen before anything is announced or recorded: without a model there is nothing to run (and never the demo script here).
  const choice = chooseModelOrExplain({ flag: parsed.model, env: io.env, demo: parsed.demo });
  // Which file, and whether an earlier run's agent could have planted it (src/config/policy-discovery.ts).
  announcePolicy({ loaded, origin, cwd, env: io.env, write: (text) => io.stderr.write(text), record: true });

  // Decided on the terminal the prompt is shown on, not on stdin alone (src/cli/choose-approval-terminal.ts).
  const terminal = chooseApprovalTerminal(io);
  const { say, color } = createSay(io);

  // PATH decides where bwrap is found; an io.env without one (an embedding caller) means the process's.
  const detection = await detectSandbox({ environment: { PATH: io.env.PATH ?? process.env.PATH } });
  const builtins = await createBuiltinTools({ loaded, cwd, detection });
  const sandboxNotice = describeMissingSandbox({ decision: builtins.sandbox, detection, policyFile: loaded.path, origin });
  if (sandboxNotice !== undefined) say(sanitizeTerminalText(sandboxNotice, { keepNewlines: true }), 'yellow');
  const connection = await resolveModelConnection({ id: choice.id, env: io.env, cwd, ...(parsed.baseUrl === undefined ? {} : { baseUrl: parsed.baseUrl }) });
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
  const approver = createRunApprover({
    terminal,
    env: io.env,
    spinner,
    validateArgs: (name, args) => validateToolArguments([...tools, worker], name, args),
    onInterrupt: () => {
      interrupted = true;
    },
  });
  const tally = createDecisionTally();
  const transcript = createRunTranscript({ io, say, spinner, loaded });
  const gate = createRuntimeGate({ loaded, tools: builtins.tools, approver, observer: combineObservers(tally, transcript.observer), ...(mode === undefined ? {} : { mode }) });
  const context = { sessionId: parsed.session ?? `run-${randomUUID()}`, runId: randomUUID() };
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

  try {
    const summary = await runAgent({ model, task, gate, tools: [...tools, worker], context, approver, maxSteps, signal: controller.signal, ...transcript.events });
    spinner.stop();
    return reportRunSummary({ summary, counts: tally.counts, io, say, demo: parsed.demo, policyPath: loaded.path, interrupted });
  } catch (error) {
    spinner.stop();
    return reportRunFailure({
      error,
      io,
      say,
      stoppedInWorker,
      interrupted: interrupted || controller.signal.aborted,
      target: connection,
      wroteText: transcript.wroteText,
      debug: parsed.debug,
    });
  } finally {
    process.removeListener('SIGINT', onSignal);
    await gate.close();
    terminal?.close();
  }
}
