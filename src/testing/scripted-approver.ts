import type { Approver, PresentedRequest } from '../core/approver.ts';
import type { ApprovalDecision } from '../core/types.ts';

/** A decision, or a shorthand: `approve` is approve once, `deny` is deny once. */
export type ScriptedAnswer = ApprovalDecision | 'approve' | 'deny';

/** What an answer function learns besides the request. */
export interface ScriptedAnswerContext {
  /** 0-based: how many times the approver was asked before (a group counts once). */
  index: number;
  /** For `askGroup`: every request of the group (the function gets the first as `request`). */
  group?: readonly PresentedRequest[];
  signal: AbortSignal;
}

export type ScriptedAnswerFunction = (request: PresentedRequest, context: ScriptedAnswerContext) => ScriptedAnswer | Promise<ScriptedAnswer>;

/** One time the approver was asked: one request, or a group decided together. */
export type ScriptedApproverCall = { kind: 'ask'; request: PresentedRequest } | { kind: 'group'; requests: readonly PresentedRequest[] };

export interface ScriptedApprover extends Approver {
  askGroup(requests: readonly PresentedRequest[], options: { signal: AbortSignal }): Promise<ApprovalDecision>;
  /** Every request it was asked, in order; a group's requests one after another. */
  readonly requests: readonly PresentedRequest[];
  /** Every time it was asked, in order, with the decision it gave. */
  readonly calls: readonly (ScriptedApproverCall & { decision: ApprovalDecision })[];
  /** How many times it was asked after its answers ran out (each one denied). */
  readonly unanswered: number;
}

/** The reason given when the listed answers are used up. */
export const OUT_OF_ANSWERS_REASON = 'scripted approver ran out of answers';

/**
 * An approver for tests: answers from a list, in order (a group decided with
 * `askGroup` uses one answer), or from a function. It records every request
 * it sees. When the list runs out it denies, with the reason
 * "scripted approver ran out of answers" — it never approves what nobody
 * scripted — and counts it in `unanswered`, so a test can assert on it.
 *
 * @example
 * const approver = createScriptedApprover(['approve', { approved: false, scope: 'once', reason: 'not now' }]);
 * const gate = createGate({ policy, approver });
 * // ... run ...
 * expect(approver.requests.map((request) => request.tool)).toEqual(['write_file', 'shell']);
 */
export function createScriptedApprover(answers: readonly ScriptedAnswer[] | ScriptedAnswerFunction): ScriptedApprover {
  const requests: PresentedRequest[] = [];
  const calls: (ScriptedApproverCall & { decision: ApprovalDecision })[] = [];
  let next = 0;
  let unanswered = 0;

  async function decide(request: PresentedRequest, context: ScriptedAnswerContext): Promise<ApprovalDecision> {
    if (typeof answers === 'function') return expand(await answers(request, context));
    const answer = answers[next];
    if (answer === undefined) {
      unanswered++;
      return { approved: false, scope: 'once', reason: OUT_OF_ANSWERS_REASON };
    }
    next++;
    return expand(answer);
  }

  return {
    async ask(request, options) {
      requests.push(request);
      const decision = await decide(request, { index: calls.length, signal: options.signal });
      calls.push({ kind: 'ask', request, decision });
      return decision;
    },
    async askGroup(group, options) {
      requests.push(...group);
      const first = group[0];
      // An empty group has nothing to approve; deny rather than invent an answer.
      const decision: ApprovalDecision =
        first === undefined ? { approved: false, scope: 'once', reason: 'an empty group has nothing to approve' } : await decide(first, { index: calls.length, group, signal: options.signal });
      calls.push({ kind: 'group', requests: group, decision });
      return decision;
    },
    get requests() {
      return requests;
    },
    get calls() {
      return calls;
    },
    get unanswered() {
      return unanswered;
    },
  };
}

function expand(answer: ScriptedAnswer): ApprovalDecision {
  if (answer === 'approve') return { approved: true, scope: 'once' };
  if (answer === 'deny') return { approved: false, scope: 'once' };
  return answer;
}
