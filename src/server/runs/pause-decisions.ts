/**
 * The decisions on a paused run's calls, as the AI SDK adapter resumes it:
 * those of the pause the run is in (earlier pauses' decisions stay as history).
 */
import type { RunDecision } from '../../adapters/ai-sdk/run-decision.ts';
import type { StoredApprovalDecision } from '../../store/store.ts';

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
      ...(decision.stop === undefined || decision.approved ? {} : { stop: decision.stop }),
      ...(decision.decidedBy === 'timeout' && !decision.approved ? { timedOut: true } : { by: decision.decidedBy }),
    };
  });
}
