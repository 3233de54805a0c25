/**
 * `POST /runs/:id/approve`: records a person's decision on the calls it
 * names (one call, a whole group, or the only one waiting), and when nothing
 * is left waiting, claims the run (compare-and-set: of two requests, one
 * resumes it) and drives it on with every decision.
 */
import { REDACTED } from '../../core/redact.ts';
import type { NewEvent, StoredApprovalDecision, StoredDecision, StoredRun } from '../../store/store.ts';
import { ApiError, type ApproveInput, type ApproveResult, type Principal } from '../run-service.ts';
import { signDecision } from './decision-signature.ts';
import { driveRun } from './drive-run.ts';
import { decisionEvent, runEvent, toolCallInput, viaOf } from './run-events.ts';
import { openEnvelope, type ServerRuntime } from './server-runtime.ts';

export const NOT_FOUND = 'run not found or not active';

/**
 * Decides calls of a paused run. `decidedBy` is the authenticated approver
 * (or `timeout` when nobody answered in time).
 */
export async function approveRun(options: { runtime: ServerRuntime; run: StoredRun; principal: Principal; input: ApproveInput; timedOut?: boolean }): Promise<ApproveResult> {
  const { runtime, run } = options;
  let input = options.input;
  if (run.status !== 'paused_checkpoint') throw new ApiError(400, `run is not paused for approval, current status: ${run.status}`, { current_status: run.status });
  const approvals = await runtime.store.listRunDecisions(run.runId);
  const pending = approvals.filter((approval) => approval.decision === null);
  if (pending.length === 0) {
    // Every call was decided but the run never resumed (the process stopped in between): resume it now.
    await resumeDecidedRun(runtime, run, approvals);
    throw new ApiError(400, 'run is not paused for approval, current status: running (its calls were already decided; it resumes now)', { current_status: 'running' });
  }
  const targets = chooseTargets(pending, input);
  // A call whose view says it cannot be undone is decided on its own: a group's approval never carries it unseen.
  if (input.approved && input.group_id !== undefined && targets.length > 1) {
    const requests = await runtime.store.listApprovals({ runId: run.runId });
    const dangerous = requests.filter((approval) => approval.groupId === input.group_id && approval.decision === null && (approval.request.presentation as { risk?: unknown } | undefined)?.risk === 'dangerous');
    if (dangerous.length > 0) {
      throw new ApiError(400, `the group holds ${dangerous.length === 1 ? 'a call that cannot be undone' : `${dangerous.length} calls that cannot be undone`} (${dangerous.map((approval) => approval.toolCallId).join(', ')}): approve each with tool_call_id, or deny the group`, { field: 'group_id', dangerous: dangerous.map((approval) => approval.toolCallId) });
    }
  }
  if (input.edited_args !== undefined) {
    if (!input.approved) throw new ApiError(400, 'edited_args edits an approval; a denial runs nothing', { field: 'edited_args' });
    if (targets.length !== 1) throw new ApiError(400, 'edited_args applies to one call: give tool_call_id', { field: 'edited_args' });
    // The gate remembers nothing for an edited call: a scope that says otherwise would be recorded and streamed untrue.
    if (input.scope === 'session' || input.scope === 'always') {
      throw new ApiError(400, `edited_args approves that one call once; scope "${input.scope}" cannot remember edited arguments (send scope "once", or approve without edits)`, { field: 'scope' });
    }
    input = { ...input, edited_args: restoreRedacted(input.edited_args, originalArgs(runtime, run, targets[0]!.toolCallId)) };
    checkEditedArgs(runtime, targets[0]!.tool, input.edited_args);
  }
  if (input.scope === 'always' && !input.approved) throw new ApiError(400, 'scope "always" applies to approvals only; a denial is once or session', { field: 'scope' });
  if (input.always_scope !== undefined) await checkAlwaysScope(runtime, run, targets, input);
  if (input.stop !== undefined && input.approved) throw new ApiError(400, 'stop applies to denials only', { field: 'stop' });

  const unsigned: StoredDecision = {
    approved: input.approved,
    reason: input.reason ?? null,
    scope: input.scope ?? 'once',
    ...(input.edited_args === undefined ? {} : { editedArgs: input.edited_args }),
    ...(input.always_scope === undefined ? {} : { alwaysScope: input.always_scope }),
    ...(options.timedOut === true ? {} : { via: input.via ?? 'api' }),
    ...(input.stop === undefined ? {} : { stop: input.stop }),
    decidedBy: options.timedOut === true ? 'timeout' : options.principal.name,
    decidedAt: new Date().toISOString(),
  };
  // Signed under the server's secret: the runner executes no decision it cannot verify (a row written straight into the database).
  const decision = signDecision({ key: runtime.recordKey, runId: run.runId, calls: targets.map((target) => target.toolCallId), decision: unsigned });
  const context = { run, policy: runtime.policy };
  // The approvals as they will stand if this decision is the one that leaves nothing waiting: then the same commit claims the run.
  const targetIds = new Set(targets.map((target) => target.toolCallId));
  let all = approvals.map((approval) => (targetIds.has(approval.toolCallId) ? { ...approval, decision } : approval));
  const calls = targets.map((target) => ({ toolCallId: target.toolCallId, events: [decisionEvent(context, { toolCallId: target.toolCallId, tool: target.tool, decision })] }));
  const resume = all.every((approval) => approval.decision !== null) ? { revision: run.revision, events: [resumeEvent(runtime, run, all)] } : undefined;
  const result = await runtime.store.decideApprovals(run.runId, calls, decision, resume);
  if (result.decided.length === 0) throw new ApiError(409, `${targets[0]!.toolCallId} was already decided`, { tool_call_id: targets[0]!.toolCallId });
  runtime.notify();
  // A person's decision (inbox, API, link, Slack) counts against their attention budget; a timeout is nobody's.
  if (options.timedOut !== true) runtime.attention.decided(options.principal.name);
  const { decided, waiting } = result;
  void runtime.onDecided?.(decided.map((toolCallId) => ({ runId: run.runId, toolCallId, approved: unsigned.approved, decidedBy: unsigned.decidedBy, via: viaOf(unsigned), reason: unsigned.reason })));
  const status = input.approved ? 'approved' : 'denied';
  if (waiting.length > 0) {
    return { status, message: `Decision recorded; the run resumes once ${waiting.length} more call${waiting.length === 1 ? ' is' : 's are'} decided`, decided, waiting, run_status: 'paused_checkpoint' };
  }
  if (result.resumed !== undefined) {
    void driveRun(runtime, result.resumed.run, { kind: 'decided', sealed: run.state!, approvals: all });
  } else {
    // Others decided the rest meanwhile (or a call named here was decided by another first): read what stands, and resume from it.
    all = await runtime.store.listRunDecisions(run.runId);
    await resumeDecidedRun(runtime, run, all);
  }
  // Earlier pauses' denials cannot stop it: one that did would have ended the run then.
  const stops = all.some((approval) => stopsRun(runtime, approval.decision));
  if (!input.approved) {
    return stops
      ? { status, message: 'Tool execution denied and run cancelled', decided, waiting, run_status: 'cancelled' }
      : { status, message: 'Tool execution denied; the run continues and the model is told why', decided, waiting, run_status: 'running' };
  }
  return stops
    ? { status, message: 'Tool execution approved, but another denial cancelled the run', decided, waiting, run_status: 'cancelled' }
    : { status, message: 'Tool execution approved and resumed', decided, waiting, run_status: 'running' };
}

/** Whether a decision ends the run: a denial with `stop`, or any denial (a timeout too, as everywhere in toolgate) under `on_deny: stop`. */
function stopsRun(runtime: ServerRuntime, decision: StoredDecision | null): boolean {
  if (decision === null || decision.approved) return false;
  return decision.stop ?? runtime.policy.onDeny === 'stop';
}

/** Which waiting calls the request decides. */
function chooseTargets(pending: StoredApprovalDecision[], input: ApproveInput): StoredApprovalDecision[] {
  if (input.tool_call_id !== undefined && input.group_id !== undefined) throw new ApiError(400, 'give tool_call_id or group_id, not both', { field: 'group_id' });
  if (input.tool_call_id !== undefined) {
    const target = pending.find((approval) => approval.toolCallId === input.tool_call_id);
    if (target === undefined) throw new ApiError(400, `tool_call_id ${JSON.stringify(input.tool_call_id)} is not waiting for approval in this run`, { field: 'tool_call_id', waiting: pending.map((approval) => approval.toolCallId) });
    return [target];
  }
  if (input.group_id !== undefined) {
    const group = pending.filter((approval) => approval.groupId === input.group_id);
    if (group.length === 0) throw new ApiError(400, `group_id ${JSON.stringify(input.group_id)} has no call waiting for approval in this run`, { field: 'group_id' });
    return group;
  }
  if (pending.length === 1) return pending;
  throw new ApiError(400, `Missing required field: tool_call_id (${pending.length} calls wait: ${pending.map((approval) => approval.toolCallId).join(', ')}; or give group_id)`, {
    field: 'tool_call_id',
    waiting: pending.map((approval) => approval.toolCallId),
  });
}

/** The model's arguments of a waiting call, from the run's sealed state. */
function originalArgs(runtime: ServerRuntime, run: StoredRun, toolCallId: string): unknown {
  if (run.state === null) return undefined;
  const envelope = openEnvelope(runtime, run.state);
  if (envelope.kind === 'hook') return envelope.args;
  return envelope.kind === 'paused' ? toolCallInput(envelope.state.messages, toolCallId) : undefined;
}

/**
 * A person edits the arguments as they were shown, with secrets as
 * `[REDACTED]`: where the edit keeps that marker, the original value stays
 * (they never saw it, so they cannot have meant to change it).
 */
export function restoreRedacted(edited: unknown, original: unknown): unknown {
  if (edited === REDACTED) return original === undefined ? edited : original;
  if (Array.isArray(edited)) return edited.map((value, index) => restoreRedacted(value, Array.isArray(original) ? original[index] : undefined));
  if (typeof edited === 'object' && edited !== null) {
    const source = typeof original === 'object' && original !== null && !Array.isArray(original) ? (original as Record<string, unknown>) : {};
    return Object.fromEntries(Object.entries(edited).map(([key, value]) => [key, restoreRedacted(value, Object.hasOwn(source, key) ? source[key] : undefined)]));
  }
  return edited;
}

function checkEditedArgs(runtime: ServerRuntime, toolName: string, args: unknown): void {
  const tool = runtime.tools.find((candidate) => candidate.name === toolName);
  if (tool === undefined) return;
  const parsed = tool.inputSchema.safeParse(args);
  if (parsed.success) return;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; ');
  throw new ApiError(400, `edited_args do not fit ${toolName}'s schema: ${problems}`, { field: 'edited_args' });
}

/**
 * Claims a paused run whose calls are all decided (one claimer wins) and
 * drives it on with the decisions of its pause. False when this server did
 * not claim it: another did, or cancelled it, or (on a shared store) this
 * server's lease had lapsed — then the lease's takeover resumes it
 * (`takeOverStrandedRuns`).
 */
export async function resumeDecidedRun(runtime: ServerRuntime, run: StoredRun, approvals: StoredApprovalDecision[]): Promise<boolean> {
  // Decisions do not move the run's revision: the run as read is current unless someone claimed or cancelled it, and then the claim below fails.
  if (run.status !== 'paused_checkpoint' || run.state === null || approvals.some((approval) => approval.decision === null)) return false;
  const claimed = await runtime.store.updateRun(run.runId, run.revision, { status: 'running' }, { events: [resumeEvent(runtime, run, approvals)] });
  if (claimed === undefined) return false;
  runtime.notify();
  void driveRun(runtime, claimed.run, { kind: 'decided', sealed: run.state, approvals });
  return true;
}

function resumeEvent(runtime: ServerRuntime, run: StoredRun, approvals: StoredApprovalDecision[]): NewEvent {
  return runEvent({ run, policy: runtime.policy }, 'run_resumed', { reason: resumeReason(approvals), status: 'running' });
}

function resumeReason(approvals: StoredApprovalDecision[]): string {
  return approvals.every((approval) => approval.decision?.approved === true) ? 'tool_approved' : approvals.some((approval) => approval.decision?.approved) ? 'tools_decided' : 'tool_denied';
}

/**
 * `always_scope` names one of the choices the call's card offered: one
 * call, approved always. The gate finds the choice again from the call when
 * the run resumes; this only refuses an answer that could not mean anything.
 */
async function checkAlwaysScope(runtime: ServerRuntime, run: StoredRun, targets: ReadonlyArray<{ toolCallId: string }>, input: ApproveInput): Promise<void> {
  if (!input.approved || input.scope !== 'always') throw new ApiError(400, 'always_scope chooses what an approval with scope "always" covers: send approved true and scope "always"', { field: 'always_scope' });
  if (targets.length !== 1) throw new ApiError(400, 'always_scope applies to one call (each call offers its own choices): give tool_call_id', { field: 'always_scope' });
  const approval = (await runtime.store.listApprovals({ runId: run.runId })).find((candidate) => candidate.toolCallId === targets[0]!.toolCallId);
  const offered = offeredScopeIds(approval?.request);
  if (!offered.includes(input.always_scope!)) {
    const choices = offered.length === 0 ? 'this call offers none (approve "always" without always_scope)' : `this call offers ${offered.map((id) => JSON.stringify(id)).join(', ')}`;
    throw new ApiError(400, `always_scope ${JSON.stringify(input.always_scope)} is not a choice of ${targets[0]!.toolCallId}: ${choices}`, { field: 'always_scope', offered });
  }
}

function offeredScopeIds(request: unknown): string[] {
  const scopes = (request as { always_scopes?: unknown } | undefined)?.always_scopes;
  if (!Array.isArray(scopes)) return [];
  return scopes.flatMap((scope) => (typeof scope === 'object' && scope !== null && typeof (scope as { id?: unknown }).id === 'string' ? [(scope as { id: string }).id] : []));
}
