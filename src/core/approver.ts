import { isPresentation } from './run-tool-check.ts';
import type { ApprovalDecision, ApprovalRequest, GateContext, Presentation, ToolCall } from './types.ts';

/** A request as a person sees it: the presentation is built, the call attached. */
export interface PresentedRequest extends Omit<ApprovalRequest, 'presentation'> {
  presentation: Presentation | undefined;
  call: ToolCall;
  context: GateContext;
  /** The rule that asked (`shell.default (ask)`) and where it was written (`toolgate.yaml:6`), as the gate knows it. */
  askedBy?: { rule: string; at?: string };
}

/**
 * How a person is asked: a terminal prompt, the web inbox, MCP elicitation
 * or a callback. It receives the whole request and answers with a decision.
 * `signal` aborts when the approval times out or the run is cancelled.
 */
export interface Approver {
  ask(request: PresentedRequest, options: { signal: AbortSignal }): Promise<ApprovalDecision>;
  /** Decides several requests sharing a `groupId` at once (batch approval). */
  askGroup?(requests: readonly PresentedRequest[], options: { signal: AbortSignal }): Promise<ApprovalDecision>;
}

/**
 * The approver for a run with nobody to ask (no terminal, no mode): it denies
 * and says how to approve instead (seed 003's pipeline mode). The hint may
 * be written for each request (naming the rule that would allow it).
 *
 * @example
 * createGate({ policy, approver: process.stdin.isTTY ? terminalApprover : createNonInteractiveApprover() })
 */
export function createNonInteractiveApprover(options: { hint?: string | ((request: PresentedRequest) => string) } = {}): Approver {
  const fallback =
    'no one is here to approve it (no interactive terminal). Run in a terminal, or choose a mode: --approve-all, --strict or --auto-deny, or `mode:` in the policy';
  return {
    ask: async (request) => {
      const hint = typeof options.hint === 'function' ? options.hint(request) : (options.hint ?? fallback);
      return { approved: false, scope: 'once', automatic: true, reason: `${request.tool} needs approval, but ${hint}` };
    },
  };
}

/**
 * Builds a request's presentation (it may be lazy) and attaches the call.
 * Throws when the presentation cannot be built or is malformed: callers deny.
 *
 * @example
 * const presented = await presentRequest({ request: authorization.request, call, context });
 */
export async function presentRequest(options: { request: ApprovalRequest; call: ToolCall; context: GateContext }): Promise<PresentedRequest> {
  const { request } = options;
  const presentation = typeof request.presentation === 'function' ? await request.presentation() : request.presentation;
  if (presentation !== undefined && !isPresentation(presentation)) throw new Error('the presentation is malformed');
  const { presentation: _unused, ...rest } = request;
  return { ...rest, presentation, call: options.call, context: options.context };
}
