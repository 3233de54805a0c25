/** Stored runs as the API shows them, and who may see them. */
import type { StoredApproval, StoredEvent, StoredRun } from '../../store/store.ts';
import type { PendingView, Principal, RunSummaryView, RunView } from '../run-service.ts';

/**
 * Submitters see their own runs; approvers and admins see every run (they
 * decide them). A run a principal may not see does not exist for it (404).
 */
export function maySeeRun(principal: Principal, run: Pick<StoredRun, 'owner'>): boolean {
  return principal.role !== 'submitter' || run.owner === principal.name;
}

export function maySeeEvent(principal: Principal, event: Pick<StoredEvent, 'owner'>): boolean {
  return maySeeRun(principal, event);
}

export function summaryView(run: StoredRun, pending: number): RunSummaryView {
  return {
    run_id: run.runId,
    status: run.status,
    mode: run.mode,
    owner: run.owner,
    session_id: run.sessionId,
    chat_id: run.chatId,
    model: run.model,
    input: run.input,
    text: run.text,
    error: run.error,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    pending,
  };
}

export function pendingView(approval: StoredApproval): PendingView {
  return { ...approval.request, run_id: approval.runId, tool_call_id: approval.toolCallId, tool_name: approval.tool, group_id: approval.groupId };
}

export function runView(run: StoredRun, approvals: StoredApproval[]): RunView {
  const { pending: _count, ...summary } = summaryView(run, 0);
  return {
    ...summary,
    pending_approvals: run.status === 'paused_checkpoint' ? approvals.filter((approval) => approval.decision === null).map(pendingView) : [],
    decisions: approvals
      .filter((approval) => approval.decision !== null)
      .sort((a, b) => a.decision!.decidedAt.localeCompare(b.decision!.decidedAt))
      .map((approval) => ({
        tool_call_id: approval.toolCallId,
        tool_name: approval.tool,
        approved: approval.decision!.approved,
        reason: approval.decision!.reason,
        scope: approval.decision!.scope,
        decided_by: approval.decision!.decidedBy,
        decided_at: approval.decision!.decidedAt,
      })),
  };
}
