/**
 * The gate's asking: the request as a person is shown it (the tool's own
 * presentation, built under the policy's check deadline; the "approve
 * always" choices; which rule asked and where it is written), and the
 * person asked under the approval timeout.
 */
import { offeredAlwaysScopes } from './always-scopes.ts';
import { presentRequest, type PresentedRequest } from './approver.ts';
import { askWithTimeout, type Answer } from './ask-with-timeout.ts';
import { sameFingerprint } from './fingerprint.ts';
import { denied, type PendingAsk } from './gate-outcomes.ts';
import { setLongTimeout } from './long-timeout.ts';
import type { Policy } from './policy/policy.ts';
import { errorMessage } from './run-tool-check.ts';
import type { ToolDeclaration } from './tool-declaration.ts';
import type { AlwaysScope, ApprovalDecision, ApprovalRequest, Authorization, ToolCall } from './types.ts';

/**
 * The request as the person will see it; a presentation that fails or
 * outlasts the check deadline denies (it is tool code too).
 *
 * @example
 * const presented = await presentStep(step, { policy, offersAlways: true });
 * if ('decision' in presented) return finish(step, presented);
 */
export async function presentStep(step: PendingAsk, options: { policy: Policy; offersAlways: boolean }): Promise<PresentedRequest | Authorization> {
  const { policy } = options;
  const deadline = new AbortController();
  const cancel = setLongTimeout(() => deadline.abort(), policy.checkTimeoutMs);
  try {
    const presented = await Promise.race([
      presentRequest({ request: step.verdict.request, call: step.call, context: step.context }),
      new Promise<never>((_resolve, reject) => {
        deadline.signal.addEventListener('abort', () => reject(new Error(`it took longer than ${policy.checkTimeoutMs} ms`)), { once: true });
      }),
    ]);
    // A call the policy judged dangerous (unknown_tools.dangerous_keywords) is shown as such, unless its tool said its risk itself.
    if (step.dangerous && presented.presentation !== undefined && presented.presentation.metadata?.risk === undefined) {
      presented.presentation = { ...presented.presentation, metadata: { ...presented.presentation.metadata, risk: 'dangerous' } };
    }
    step.presentation = presented.presentation;
    const scopes = options.offersAlways ? await alwaysChoices(step.tool, step.call, step.verdict.request) : [];
    if (scopes.length > 0) presented.alwaysScopes = scopes;
    // The person sees which rule asked, and where it is written.
    const rule = step.verdict.rule;
    if (rule !== null) {
      const at = policy.ruleAt?.(rule);
      presented.askedBy = at === undefined ? { rule } : { rule, at };
    }
    return presented;
  } catch (error) {
    return denied(step, 'policy', `the approval prompt for ${step.call.tool} could not be built (${errorMessage(error)}); denied to fail closed`, policy);
  } finally {
    cancel();
  }
}

/**
 * What "always" may cover for a call, as a person is shown it (without
 * what the tool matches). Empty when the choices cannot be built.
 *
 * @example
 * await alwaysChoices(tool, call, request) // [{ id: 'exact', rule: ..., text: ... }, ...]
 */
export async function alwaysChoices(tool: ToolDeclaration | undefined, call: ToolCall, request: Pick<ApprovalRequest, 'payload'>): Promise<Array<Omit<AlwaysScope, 'match'>>> {
  try {
    const scopes = await offeredAlwaysScopes({ tool, call, payload: request.payload, payloadIsArguments: sameFingerprint(request.payload, call.args) });
    return scopes.map(({ match: _match, ...shown }) => shown);
  } catch {
    return [];
  }
}

/**
 * Asks a person, under the policy's approval timeout and the caller's signal.
 *
 * @example
 * const answer = await askPerson({ request, ask: (signal) => approver.ask(presented, { signal }), signal, policy });
 */
export function askPerson(options: { request: ApprovalRequest; ask: (signal: AbortSignal) => Promise<ApprovalDecision>; signal: AbortSignal | undefined; policy: Policy }): Promise<Answer> {
  return askWithTimeout({ ask: options.ask, timeoutMs: options.policy.approvalTimeoutMs, signal: options.signal, tool: options.request.tool });
}
