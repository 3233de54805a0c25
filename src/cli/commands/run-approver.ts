/**
 * Whom `toolgate run` asks: the person at the approval terminal (the
 * terminal approver, with edited arguments checked against the tool's
 * schema), or, with no terminal to ask on, nobody (every ask denied with a
 * message saying how a person could be reached). Either way the spinner
 * stops before anything is asked.
 */
import { createNonInteractiveApprover, type Approver } from '../../core/approver.ts';
import { createTerminalApprover } from '../../approvers/terminal/terminal-approver.ts';
import type { ValidateArguments } from '../../approvers/terminal/edit-arguments.ts';
import type { BuiltinTool } from '../../tools/builtin-tool.ts';
import type { ApprovalTerminal } from '../choose-approval-terminal.ts';

/**
 * The approver of a run.
 *
 * @example
 * const approver = createRunApprover({ terminal, env: io.env, spinner, validateArgs: (name, args) => validateToolArguments(tools, name, args), onInterrupt: () => (interrupted = true) });
 */
export function createRunApprover(options: {
  terminal: ApprovalTerminal | undefined;
  env: NodeJS.ProcessEnv;
  spinner: { stop(): void };
  validateArgs: ValidateArguments;
  onInterrupt: () => void;
}): Approver {
  const { terminal } = options;
  return withSpinnerPaused(
    terminal !== undefined
      ? createTerminalApprover({
          input: terminal.input as never,
          output: terminal.output as never,
          env: options.env,
          validateArgs: options.validateArgs,
          onInterrupt: options.onInterrupt,
        })
      : createNonInteractiveApprover({ hint: NOBODY_TO_ASK }),
    options.spinner,
  );
}

/**
 * Edited arguments checked against the schema of the tool they are for
 * (any arguments pass for a tool not among `tools`).
 *
 * @example
 * validateToolArguments(tools, 'read_file', { path: 1 }) // { ok: false, error: 'path: …' }
 */
export function validateToolArguments(tools: readonly BuiltinTool[], name: string, args: unknown): { ok: true; args: unknown } | { ok: false; error: string } {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) return { ok: true, args };
  const parsed = tool.inputSchema.safeParse(args);
  if (parsed.success) return { ok: true, args: parsed.data };
  return { ok: false, error: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; ') };
}

/**
 * What a denied ask says when nobody can be asked: the situation, and how a
 * person could be reached. Never a broader mode: whoever wrote the rule that
 * asked meant a person to decide.
 */
const NOBODY_TO_ASK =
  'nobody who can approve it is reachable here: toolgate run has no terminal to ask on (stdin and stderr are not one, and there is no /dev/tty), so it did not run. ' +
  'To be asked, start toolgate run from a terminal, or start the task as a run on toolgate serve and decide in its web inbox';

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
