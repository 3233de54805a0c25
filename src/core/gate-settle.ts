/**
 * The gate's settling: what a person's answer comes to. A denial (kept for
 * the session when they say so), an approval once, for the session or
 * always (the scope they chose found again from the call, never taken from
 * the answer), or an approval of edited arguments, which go through the
 * policy again. What to remember comes back beside the outcome: the gate
 * remembers it only once the decision is recorded.
 */
import { ALWAYS_SCOPE_KEY, offeredAlwaysScopes, posesAsScope, scopedPayload } from './always-scopes.ts';
import type { ApprovalMemory, RememberedShown } from './approval-memory.ts';
import type { Answer } from './ask-with-timeout.ts';
import type { CallEvaluator } from './evaluate-call.ts';
import { safeFingerprint, sameFingerprint } from './fingerprint.ts';
import { approved, denied, type PendingAsk } from './gate-outcomes.ts';
import type { AlwaysApprovals } from './gate-remembered.ts';
import type { Policy } from './policy/policy.ts';
import type { Authorization } from './types.ts';

/** An outcome, and what to remember of it once it is recorded. */
export interface Settled {
  outcome: Authorization;
  remember?: () => void | Promise<void>;
}

/**
 * What a person's answer (or its absence: a timeout, a failure) comes to.
 * `step.approver` is set to who answered, when the answer says.
 *
 * @example
 * const { outcome, remember } = await settleAnswer(step, answer, { policy, evaluator, memory, always });
 */
export async function settleAnswer(step: PendingAsk, answer: Answer, parts: { policy: Policy; evaluator: CallEvaluator; memory: ApprovalMemory; always: AlwaysApprovals | undefined }): Promise<Settled> {
  const { policy, memory } = parts;
  if (answer.kind === 'timeout') return { outcome: denied(step, 'timeout', 'timed out', policy) };
  if (answer.kind === 'failed') return { outcome: denied(step, 'policy', answer.reason, policy) };
  const decision = answer.decision;
  if (typeof decision.by === 'string' && decision.by !== '') step.approver = decision.by;
  if (!decision.approved) {
    if (decision.timedOut === true) return { outcome: denied(step, 'timeout', decision.reason ?? 'timed out', policy) };
    if (decision.automatic === true) return { outcome: denied(step, 'mode', decision.reason ?? 'denied: nobody can approve it here', policy) };
    const reason = decision.reason ? `denied by a person: ${decision.reason}` : 'denied by a person';
    const remember = decision.scope === 'session' ? () => memory.store(step.key, { approved: false, reason: decision.reason, shown: shownOf(step) }) : undefined;
    return { outcome: { ...denied(step, 'person', reason, policy), stop: decision.stop ?? policy.onDeny === 'stop' }, remember };
  }
  const editedPrint = decision.args === undefined ? undefined : safeFingerprint(decision.args);
  if (decision.args !== undefined && editedPrint === undefined) {
    return { outcome: denied(step, 'policy', 'the edited arguments are not plain data (they cannot be fingerprinted); denied to fail closed', policy) };
  }
  if (decision.args !== undefined && editedPrint !== safeFingerprint(step.call.args)) {
    // What runs is what was approved: the edited call goes through the policy again.
    const edited = { ...step.call, args: decision.args };
    const verdict = await parts.evaluator.evaluate(edited, step.context, step.tool);
    if (verdict.kind === 'block') {
      return { outcome: { ...denied(step, 'person', `the edited arguments are blocked: ${verdict.reason}`, policy), decision: 'block', rule: verdict.rule, args: decision.args } };
    }
    // The person approved the arguments they typed, not the prompt built
    // for the model's: that prompt must not vouch for the edited call.
    const { presentation: _shown, ...outcome } = approved(step, 'person', 'approved by a person with edited arguments (once)', decision.args);
    return { outcome };
  }
  const note = decision.note ? `: ${decision.note}` : '';
  const always = parts.always;
  const scope = decision.scope === 'once' ? '' : decision.scope === 'session' ? ' for this session' : always === undefined ? ' (once: no approvals file to keep "always" in)' : ' always';
  const outcome = approved(step, 'person', `approved by a person${scope}${note}`, step.call.args);
  if (decision.scope === 'session') return { outcome, remember: () => memory.store(step.key, { approved: true, shown: shownOf(step) }) };
  if (decision.scope !== 'always' || always === undefined) return { outcome };
  const payload = step.verdict.request.payload;
  if (decision.alwaysScope !== undefined) {
    // The scope is found again from the call, never taken from the answer: an answer names a choice, it cannot write one.
    const offered = await offeredAlwaysScopes({ tool: step.tool, call: step.call, payload, payloadIsArguments: sameFingerprint(payload, step.call.args) });
    const chosen = offered.find((offer) => offer.id === decision.alwaysScope);
    if (chosen === undefined) {
      return { outcome: approved(step, 'person', `approved by a person (once: "always" for ${JSON.stringify(decision.alwaysScope)} is not a choice this call offers)${note}`, step.call.args) };
    }
    const entry = { tool: step.call.tool, identity: step.tool?.identity, payload: scopedPayload(chosen), description: chosen.text, scoped: true };
    return { outcome: approved(step, 'person', `approved by a person always: ${chosen.rule}${note}`, step.call.args), remember: () => always.add(entry) };
  }
  if (posesAsScope(payload)) {
    return { outcome: approved(step, 'person', `approved by a person (once: the call's approval payload carries ${ALWAYS_SCOPE_KEY}, which "always" cannot keep)${note}`, step.call.args) };
  }
  const entry = { tool: step.call.tool, identity: step.tool?.identity, payload, description: step.verdict.request.description };
  // A failure to save only means asking again next time: the safe direction.
  return { outcome, remember: () => always.add(entry) };
}

/** What a list of session approvals shows of this one. */
function shownOf(step: PendingAsk): RememberedShown {
  const description = step.verdict.request.description;
  return {
    tool: step.call.tool,
    description: description.length > 500 ? `${description.slice(0, 499)}…` : description,
    at: new Date().toISOString(),
    ...(step.approver === undefined ? {} : { by: step.approver }),
  };
}
