/**
 * The gate's outcomes: what a verdict comes to when nobody needs to be
 * asked, and, for a call that waits for a person (a `PendingAsk`), what
 * approving, denying or leaving it pending comes to. Pure: no I/O.
 */
import type { EvaluatedVerdict } from './evaluate-call.ts';
import type { Policy } from './policy/policy.ts';
import { errorMessage } from './run-tool-check.ts';
import type { ToolDeclaration } from './tool-declaration.ts';
import type { Authorization, DecisionSource, GateContext, Presentation, ToolCall, Verdict } from './types.ts';

/** A call waiting for a person, with everything needed to finish it. */
export interface PendingAsk {
  call: ToolCall;
  context: GateContext;
  verdict: Extract<Verdict, { kind: 'ask' }>;
  /** Its key in session memory (empty until the payload is fingerprinted). */
  key: string;
  started: number;
  dangerous: boolean;
  /** The declaration the verdict was reached with: approvals bind to its identity, not to a later one. */
  tool: ToolDeclaration | undefined;
  /** Set once a person has been shown the request. */
  presentation?: Presentation;
  /** Who answered, when the approver says (an authenticated approver). */
  approver?: string;
}

/**
 * What a verdict comes to by itself: allow, block, or ask (with the request).
 *
 * @example
 * verdictOutcome({ kind: 'allow', rule: 'tools.read_file', reason: 'allowed', trace: [] }, call).decision // 'allow'
 */
export function verdictOutcome(verdict: Verdict, call: ToolCall): Authorization {
  const outcome: Authorization = {
    decision: verdict.kind === 'allow' ? 'allow' : verdict.kind === 'block' ? 'block' : 'ask',
    source: 'policy',
    rule: verdict.rule,
    reason: verdict.reason,
    args: call?.args,
    stop: false,
    trace: verdict.trace,
  };
  // Set, not spread in: the allow path (every automatic call) builds one object.
  if (verdict.kind === 'ask') outcome.request = verdict.request;
  return outcome;
}

/**
 * An ask left for a person who is not here now (a deferred run).
 *
 * @example
 * pendingOutcome(step).decision // 'ask'
 */
export function pendingOutcome(step: PendingAsk): Authorization {
  return { decision: 'ask', source: 'policy', rule: step.verdict.rule, reason: `waiting for approval: ${step.verdict.reason}`, args: step.call.args, request: step.verdict.request, stop: false, trace: step.verdict.trace };
}

/**
 * An asked call approved, running with `args`; a person's approval carries what they were shown.
 *
 * @example
 * approved(step, 'memory', 'approved earlier for this session', step.call.args).decision // 'approved'
 */
export function approved(step: PendingAsk, source: DecisionSource, reason: string, args: unknown): Authorization {
  const authorization: Authorization = { decision: 'approved', source, rule: step.verdict.rule, reason, args, request: step.verdict.request, stop: false, trace: step.verdict.trace };
  if (source === 'person' && step.presentation !== undefined) authorization.presentation = step.presentation;
  return authorization;
}

/**
 * An asked call denied; the run stops where the policy says so (`on_deny: stop`).
 *
 * @example
 * denied(step, 'timeout', 'timed out', policy).decision // 'denied'
 */
export function denied(step: PendingAsk, source: DecisionSource, reason: string, policy: Pick<Policy, 'onDeny'>): Authorization {
  return { decision: 'denied', source, rule: step.verdict.rule, reason, args: step.call.args, request: step.verdict.request, stop: policy.onDeny === 'stop', trace: step.verdict.trace };
}

/**
 * What any error inside the approval path comes to: a denial that says so.
 *
 * @example
 * failedClosed(call, new Error('disk full')).reason // 'the approval path failed (disk full); denied to fail closed'
 */
export function failedClosed(call: ToolCall, error: unknown): Authorization {
  const reason = `the approval path failed (${errorMessage(error)}); denied to fail closed`;
  return { decision: 'denied', source: 'policy', rule: null, reason, args: call?.args, stop: false, trace: [{ rule: 'gate', decision: 'block', reason }] };
}

/**
 * A verdict as callers see it: the evaluator's internal `dangerous` flag left out (built field by field: cheaper than a rest spread).
 *
 * @example
 * 'dangerous' in publicVerdict(verdict) // false
 */
export function publicVerdict(verdict: EvaluatedVerdict): Verdict {
  const { rule, reason, trace } = verdict;
  return verdict.kind === 'ask' ? { kind: 'ask', request: verdict.request, rule, reason, trace } : { kind: verdict.kind, rule, reason, trace };
}
