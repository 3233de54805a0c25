/**
 * The decisions on a paused run's calls, as the AI SDK adapter resumes it:
 * those of the pause the run is in (earlier pauses' decisions stay as history).
 */
import type { RunDecision } from '../../adapters/ai-sdk/run-decision.ts';
import type { StoredApprovalDecision } from '../../store/store.ts';
import { verifyDecision } from './decision-signature.ts';

/** What a decision that does not verify becomes: a denial the model reads, decided by nobody. */
export const REFUSED_DECISION_REASON = "its recorded decision does not carry this server's signature (written outside toolgate, or under another secret): refused, and the call did not run";

/**
 * The decisions of a pause as the adapter resumes them, each checked
 * against its signature first: one that does not verify (a forged row, a
 * signed one changed or moved, a decision from before decisions were signed)
 * becomes a denial toolgate makes itself, and is listed in `refused`;
 * nothing it would have approved runs.
 *
 * @example
 * const { decisions, refused } = verifiedDecisions({ key: runtime.recordKey, runId, approvals: ofThisPause(stored, state.pending) });
 */
export function verifiedDecisions(options: { key: Buffer; runId: string; approvals: StoredApprovalDecision[] }): { decisions: RunDecision[]; refused: StoredApprovalDecision[] } {
  const refused = options.approvals.filter(
    (approval) => approval.decision !== null && !verifyDecision({ key: options.key, runId: options.runId, toolCallId: approval.toolCallId, decision: approval.decision }),
  );
  const decisions = runDecisions(options.approvals).map((decision): RunDecision =>
    refused.some((approval) => approval.toolCallId === decision.toolCallId) ? { toolCallId: decision.toolCallId, approved: false, reason: REFUSED_DECISION_REASON, automatic: true } : decision,
  );
  return { decisions, refused };
}

/** The approvals of the pause a run is in (earlier pauses' decisions stay as history). */
export function ofThisPause<Approval extends StoredApprovalDecision>(approvals: Approval[], pending: ReadonlyArray<{ toolCallId: string }>): Approval[] {
  const ids = new Set(pending.map((call) => call.toolCallId));
  return approvals.filter((approval) => ids.has(approval.toolCallId));
}

/** The stored decisions as the adapter's, for a resume (also after a restart). */
export function runDecisions(approvals: StoredApprovalDecision[]): RunDecision[] {
  return approvals.map((approval) => {
    const decision = approval.decision!;
    return {
      toolCallId: approval.toolCallId,
      approved: decision.approved,
      ...(decision.reason === null ? {} : { reason: decision.reason }),
      scope: decision.approved ? decision.scope : decision.scope === 'session' ? 'session' : 'once',
      ...(decision.editedArgs === undefined ? {} : { args: decision.editedArgs }),
      ...(decision.alwaysScope === undefined || !decision.approved ? {} : { alwaysScope: decision.alwaysScope }),
      ...(decision.stop === undefined || decision.approved ? {} : { stop: decision.stop }),
      ...(decision.decidedBy === 'timeout' && !decision.approved ? { timedOut: true } : { by: decision.decidedBy }),
    };
  });
}
