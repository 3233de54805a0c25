import { isPresentation } from './run-tool-check.ts';
import type { AlwaysScope, ApprovalDecision, ApprovalRequest, GateContext, Presentation, ToolCall } from './types.ts';

/** A request as a person sees it: the presentation is built, the call attached. */
export interface PresentedRequest extends Omit<ApprovalRequest, 'presentation'> {
  presentation: Presentation | undefined;
  call: ToolCall;
  context: GateContext;
  /** The rule that asked (`shell.default (ask)`) and where it was written (`toolgate.yaml:6`), as the gate knows it. */
  askedBy?: { rule: string; at?: string };
  /** Narrower or wider choices for "approve always" than the payload, each checked to cover this call (the tool's `alwaysScopes`). */
  alwaysScopes?: ReadonlyArray<Omit<AlwaysScope, 'match'>>;
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

/** What a denial says when nobody said more: the situation, and where a person can be reached. */
const NOBODY_REACHABLE =
  'nobody who can approve it is reachable here, so it did not run. A person can approve it where toolgate can reach them: ' +
  "an interactive terminal, an MCP client that supports elicitation, or toolgate serve's web inbox";

/**
 * The approver for a run where nobody who can approve is reachable (no
 * terminal, an MCP client without elicitation, a hook that cannot ask): it
 * denies, names the rule that asked, and says how a person could be reached
 * instead. The hint describes that situation; it may be written for each
 * request. It never advises a broader mode or a rule that allows the call:
 * whoever wrote the rule meant a person to decide.
 *
 * @example
 * createGate({ policy, approver: process.stdin.isTTY ? terminalApprover : createNonInteractiveApprover() })
 * // denied: "send_email needs approval (asked by tools.send_email (ask) — toolgate.yaml:4), but nobody who can approve it is reachable here…"
 */
export function createNonInteractiveApprover(options: { hint?: string | ((request: PresentedRequest) => string) } = {}): Approver {
  return {
    ask: async (request) => {
      const hint = typeof options.hint === 'function' ? options.hint(request) : (options.hint ?? NOBODY_REACHABLE);
      return { approved: false, scope: 'once', automatic: true, reason: `${request.tool} needs approval${askedByText(request)}, but ${hint}` };
    },
  };
}

/**
 * ` (asked by RULE — FILE:LINE)`: which rule asked for the approval, as the
 * gate knows it; empty when it does not.
 *
 * @example
 * askedByText({ askedBy: { rule: 'shell.rules[2] (match: rm)', at: 'toolgate.yaml:14' } }) // ' (asked by shell.rules[2] (match: rm) — toolgate.yaml:14)'
 */
export function askedByText(request: Pick<PresentedRequest, 'askedBy'>): string {
  const asked = request.askedBy;
  if (asked === undefined || asked.rule === '') return '';
  return ` (asked by ${asked.rule}${asked.at === undefined ? '' : ` — ${asked.at}`})`;
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
