import { AiSdkRunStateError } from './errors/ai-sdk-run-state-error.ts';
import { stateOf, type GatedTools } from './gated-tools-state.ts';
import { openApprovals, type OpenApproval } from './open-approvals.ts';
import { runStateSignatureMatches } from './run-state-signature.ts';
import { approvalSignatureMatches } from './sdk-approval-signature.ts';
import { validateRunState, type RunState } from './run-state.ts';

/**
 * Checks a saved run state against a gated set before anything in it is
 * shown or resumed: its shape and schema version, its signature (made by
 * `createRunState` with this gated set's secret, over the session, chat and
 * run, the messages and every pending approval as a person is shown it), that
 * it belongs to this gated set's session, chat and run, that its pending
 * approvals are exactly the open approval requests in its messages, and that
 * each of those requests carries the SDK's valid signature. Throws
 * `AiSdkRunStateError` otherwise (`reason` says which), having decided and
 * run nothing. Show a person a saved state's `pending` only from the state
 * this returns.
 *
 * @example
 * const state = await verifyRunState({ gated, state: parseRunState(await store.load(runId)) });
 * for (const pending of state.pending) inbox.show(pending);
 */
export async function verifyRunState(options: { gated: GatedTools<any>; state: unknown }): Promise<RunState> {
  return (await verifiedRunState(options)).state;
}

/**
 * `verifyRunState`, also returning the open approval requests (the signed
 * calls a resume decides), in message order.
 *
 * @example
 * const { state, open } = await verifiedRunState({ gated, state: saved });
 */
export async function verifiedRunState(options: { gated: GatedTools<any>; state: unknown }): Promise<{ state: RunState; open: OpenApproval[] }> {
  const gatedState = stateOf(options.gated);
  // One copy, read once: what is verified is exactly what is then resumed (no getter can answer twice).
  let snapshot: unknown;
  try {
    snapshot = structuredClone(options.state);
  } catch (error) {
    throw new AiSdkRunStateError({ field: 'the state', problem: 'is not plain data', reason: 'malformed', cause: error });
  }
  const state = validateRunState(snapshot);
  if (!(await runStateSignatureMatches({ state, signature: state.signature, secret: gatedState.secret }))) {
    throw new AiSdkRunStateError({
      field: 'signature',
      problem: 'does not match the state: it was edited after createRunState signed it (its session, chat, messages or a pending approval), or it was signed with another secret',
      reason: 'tampered',
    });
  }
  const expected = gatedState.context;
  for (const key of ['sessionId', 'chatId', 'runId'] as const) {
    if ((state.context[key] ?? null) !== (expected[key] ?? null)) {
      throw new AiSdkRunStateError({ field: `context.${key}`, problem: 'belongs to another session, chat or run than this gated set', reason: 'other-context' });
    }
  }
  const open = openApprovals(state.messages);
  if (state.pending.length !== open.length) {
    throw new AiSdkRunStateError({ field: 'pending', problem: 'does not match the approval requests in the messages', reason: 'inconsistent' });
  }
  for (const [index, pending] of state.pending.entries()) {
    const approval = open.find((candidate) => candidate.toolCallId === pending.toolCallId);
    if (approval === undefined || approval.approvalId !== pending.approvalId || approval.tool !== pending.tool) {
      throw new AiSdkRunStateError({ field: `pending[${index}]`, problem: 'does not match the approval requests in the messages', reason: 'inconsistent' });
    }
  }
  for (const approval of open) await verifyApprovalSignature(approval, gatedState.secret);
  return { state, open };
}

/** The SDK's own check (as ai's `verifyToolApprovalSignature` makes it), before anything is recorded. */
async function verifyApprovalSignature(approval: OpenApproval, secret: string | Uint8Array): Promise<void> {
  const field = `the approval request for ${JSON.stringify(approval.toolCallId)}`;
  if (approval.signature === undefined) throw new AiSdkRunStateError({ field, problem: 'is not signed', reason: 'tampered' });
  const valid = await approvalSignatureMatches({ secret, signature: approval.signature, approvalId: approval.approvalId, toolCallId: approval.toolCallId, toolName: approval.tool, input: approval.input });
  if (!valid) throw new AiSdkRunStateError({ field, problem: 'has a signature that does not verify (tampered, or signed with another secret)', reason: 'tampered' });
}
