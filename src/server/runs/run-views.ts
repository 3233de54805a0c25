/** Stored runs as the API shows them, and who may see them. */
import { parseJsonObject } from '../../store/sqlite-rows.ts';
import type { StoredApproval, StoredApprovalText, StoredEvent, StoredRun } from '../../store/store.ts';
import type { PendingView, Principal, RunSummaryView, RunView } from '../run-service.ts';
import { viaOf } from './run-events.ts';

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

/**
 * A pending call as the inbox shows it: the stored request (the
 * `checkpoint_required` data), its four identifying fields first and always
 * the approval's own.
 */
export function pendingView(approval: Pick<StoredApproval, 'runId' | 'toolCallId' | 'tool' | 'groupId' | 'request'>): PendingView {
  const identity = { run_id: approval.runId, tool_call_id: approval.toolCallId, tool_name: approval.tool, group_id: approval.groupId };
  // Spread twice: the first fixes the fields' place (first), the second their values (the approval's).
  return { ...identity, ...approval.request, ...identity };
}

/**
 * `JSON.stringify(pendingView(approval))`, from the stored text. A request
 * written by `checkpointData` is JSON.stringify's output of an object whose
 * first fields are exactly the approval's four, in this order: that text is
 * the view already, and is sent as stored (parsing and serialising 10,000
 * requests was half of what listing them took). Any other text (an older
 * field order, other values) is parsed and rebuilt.
 *
 * @example
 * const texts = page.approvals.map(pendingViewText); // each a JSON object text
 */
export function pendingViewText(approval: StoredApprovalText): string {
  const text = approval.requestText;
  const head = `{"run_id":${JSON.stringify(approval.runId)},"tool_call_id":${JSON.stringify(approval.toolCallId)},"tool_name":${JSON.stringify(approval.tool)},"group_id":${JSON.stringify(approval.groupId)}`;
  if (text.startsWith(head) && (text.charCodeAt(head.length) === COMMA || text.length === head.length + 1) && text.endsWith('}')) return text;
  return JSON.stringify(pendingView({ ...approval, request: parseJsonObject(text, 'approvals.request') }));
}

const COMMA = 0x2c;

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
        via: viaOf(approval.decision!),
      })),
  };
}
