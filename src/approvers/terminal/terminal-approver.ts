/**
 * The terminal approver: seed 001's box on the person's terminal, answered
 * with one keypress. Everything shown from a request goes through the
 * renderer or `sanitizeTerminalText`; answers are only ever read from a
 * terminal, never from a pipe (a pipe could carry a model's own output).
 * Its phases live beside it: what a prompt asks (terminal-prompt-plan.ts),
 * one prompt at a time (prompt-queue.ts), and the conversation at a prompt
 * (terminal-conversation.ts).
 */
import { createNonInteractiveApprover, type Approver, type PresentedRequest } from '../../core/approver.ts';
import type { ApprovalDecision } from '../../core/types.ts';
import type { EditText, ValidateArguments } from './edit-arguments.ts';
import { editInEditor } from './edit-in-editor.ts';
import { openPromptInput, type TerminalInput, type TerminalOutput } from './prompt-input.ts';
import { createPromptQueue } from './prompt-queue.ts';
import { DEFAULT_APPROVAL_KEYS, DEFAULT_GROUP_APPROVAL_KEYS } from './render-approval.ts';
import { renderDecisionLine } from './render-decision-line.ts';
import { converse } from './terminal-conversation.ts';
import { GROUP_ACTIONS, groupPlan, singleRequestPlan, terminalLayout, type PromptPlan } from './terminal-prompt-plan.ts';
import { TerminalPromptError } from './terminal-prompt-error.ts';

export interface TerminalApproverOptions {
  /** Where answers come from; anything but a TTY makes every ask an automatic denial. */
  input: TerminalInput;
  output: TerminalOutput;
  /** Read for NO_COLOR, TERM, VISUAL/EDITOR and PAGER. */
  env: NodeJS.ProcessEnv;
  /** Checks edited arguments against the tool's schema. Without it, any valid JSON is accepted. */
  validateArgs?: ValidateArguments;
  /** Edits text; default: $VISUAL or $EDITOR on a temporary file, with the terminal handed over. */
  editor?: EditText;
  /** Called (after the terminal is restored) when the person presses Ctrl-C at a prompt; the denial still goes back to the gate. */
  onInterrupt?: () => void;
  /**
   * How long after a question is drawn keys are still dropped, so a key typed
   * ahead (a double `y`, a key pressed before the process started) never
   * answers a question nobody saw. Default 300.
   */
  settleMilliseconds?: number;
}

/** The key line of a single request. */
export const TERMINAL_APPROVAL_KEYS = DEFAULT_APPROVAL_KEYS;
/** The key line of a batch: one answer for every request in it. */
export const TERMINAL_GROUP_APPROVAL_KEYS = DEFAULT_GROUP_APPROVAL_KEYS;

/**
 * Creates the approver for a person at a terminal. Single keys in raw mode
 * (whole lines when the terminal cannot go raw): `y` once, `s` session, `a`
 * always, `n` deny with an optional reason, `v` view all, `e` edit the
 * arguments, `?` help. Ctrl-C denies and stops the run. Prompts never
 * overlap: a second ask waits for the first. When `input` is not a TTY,
 * every ask is denied at once (`automatic: true`) with a message saying how
 * to approve.
 *
 * @example
 * const approver = createTerminalApprover({ input: process.stdin, output: process.stdout, env: process.env, onInterrupt: () => (process.exitCode = 130) });
 * const gate = createGate({ policy, approver });
 */
export function createTerminalApprover(options: TerminalApproverOptions): Approver {
  const { output, env } = options;
  const editor: EditText = options.editor ?? ((text, signal) => editInEditor({ text, env, signal }));
  const nonInteractive = createNonInteractiveApprover({
    hint: 'nobody who can approve it is reachable here: the input is not an interactive terminal (answers are never read from a pipe), so it did not run. To be asked, run toolgate in a terminal',
  });
  const queue = createPromptQueue();
  // Keys pressed after one prompt's answer (the second `y` of a double press), reported by the next prompt.
  let strayKeys = 0;
  const layout = () => terminalLayout({ output, env });

  async function decide(plan: PromptPlan, first: PresentedRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    if (options.input.isTTY !== true) {
      // Never read answers from a pipe: whatever feeds it may be the model's own output.
      // "the batch of 2 requests (write_file, shell) needs approval": the model reads it as the denial's reason.
      const subject = plan.actions === GROUP_ACTIONS ? `the batch of ${plan.subject}` : plan.subject;
      // A batch's requests may have been asked by different rules: the first one's would not speak for all.
      const decision = await nonInteractive.ask(plan.actions === GROUP_ACTIONS ? { ...first, tool: subject, askedBy: undefined } : { ...first, tool: subject }, { signal });
      output.write(renderDecisionLine({ outcome: decision, color: layout().color }));
      return decision;
    }
    return queue.exclusive(signal, () => converseSafely(plan, signal));
  }

  async function converseSafely(plan: PromptPlan, signal: AbortSignal): Promise<ApprovalDecision> {
    const prompt = openPromptInput({ input: options.input, output, signal, settleMilliseconds: options.settleMilliseconds, droppedBefore: strayKeys });
    strayKeys = 0;
    try {
      return await converse({ plan, prompt, output, env, layout });
    } catch (error) {
      // The terminal comes back first: the interrupt handler may exit the process.
      prompt.close();
      const { color } = layout();
      if (error instanceof TerminalPromptError && error.code === 'TERMINAL_INTERRUPTED') {
        const decision: ApprovalDecision = { approved: false, scope: 'once', reason: 'interrupted', stop: true };
        output.write(`\n${renderDecisionLine({ outcome: decision, subject: plan.subject, color })}`);
        try {
          options.onInterrupt?.();
        } catch {
          // The denial stands whatever the handler does.
        }
        return decision;
      }
      if (signal.aborted) {
        output.write(`\n${renderDecisionLine({ outcome: isTimeout(signal.reason) ? 'timed out' : 'cancelled', subject: plan.subject, color })}`);
        throw new TerminalPromptError({ code: 'TERMINAL_ABORTED', message: 'the approval prompt was aborted before an answer', cause: signal.reason });
      }
      throw error;
    } finally {
      strayKeys += prompt.unreportedKeys;
      prompt.close();
    }
  }

  return {
    ask: async (request, { signal }) => decide(singleRequestPlan({ request, output, editor, validateArgs: options.validateArgs }), request, signal),
    askGroup: async (requests, { signal }) => {
      if (requests.length === 0) return { approved: false, scope: 'once', reason: 'the batch had no requests to approve' };
      return decide(groupPlan(requests), requests[0]!, signal);
    },
  };
}

function isTimeout(reason: unknown): boolean {
  return reason instanceof Error && (reason.name === 'TimeoutError' || /timed out|timeout/i.test(reason.message));
}
