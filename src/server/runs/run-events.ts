/**
 * The events a run streams, in seed 004's names and wire form (`{type,
 * data}`), every one with `data.run_id`. Everything in them is redacted
 * (`redact.keys`), tool outputs are left out under `redact.outputs`, and a
 * pending call carries its presentation as the one presentation layer
 * builds it for every approver.
 */
import type { ModelMessage } from 'ai';
import type { PendingApproval } from '../../adapters/ai-sdk/pending-approvals.ts';
import type { PresentedRequest } from '../../core/approver.ts';
import type { Policy } from '../../core/policy/policy.ts';
import { redact } from '../../core/redact.ts';
import type { GateContext } from '../../core/types.ts';
import { approvalView } from '../../presentation/approval-view.ts';
import type { NewApproval, NewEvent, StoredDecision, StoredRun } from '../../store/store.ts';

/** Seed 004's approval schema: what `POST /runs/:id/approve` takes. */
export const APPROVAL_SCHEMA = {
  type: 'object',
  properties: {
    approved: { type: 'boolean', description: 'Whether to approve the tool execution' },
    reason: { type: 'string', description: 'Optional reason for the decision' },
    tool_call_id: { type: 'string', description: 'Which call, when several wait' },
    group_id: { type: 'string', description: 'Decide every waiting call of this group at once' },
    scope: { type: 'string', enum: ['once', 'session', 'always'], description: 'How long an approval holds' },
    edited_args: { description: 'Arguments to run instead (checked against the tool\'s schema)' },
    stop: { type: 'boolean', description: 'A denial that ends the run' },
  },
  required: ['approved'],
} as const;

export interface RunEventContext {
  run: Pick<StoredRun, 'runId' | 'owner'>;
  policy: Policy;
}

export function runEvent(context: RunEventContext, type: string, data: Record<string, unknown>): NewEvent {
  return { runId: context.run.runId, owner: context.run.owner, type, data: { run_id: context.run.runId, ...data } };
}

/** The arguments as shown anywhere but the deciding person's own view: redacted. */
export function shownArguments(policy: Policy, args: unknown): unknown {
  return redact(args, policy.redact.keys);
}

/** A tool's output as events show it: redacted, or left out under `redact.outputs`. */
export function shownOutput(policy: Policy, output: unknown): unknown {
  return policy.redact.outputs ? '[output hidden by redact.outputs]' : redact(output, policy.redact.keys);
}

/**
 * A pending call as `checkpoint_required` carries it and `GET /approvals`
 * lists it: seed 004's fields, then toolgate's presentation and group.
 */
export function checkpointData(options: { context: RunEventContext; pending: PendingApproval; gateContext: GateContext; args: unknown }): Record<string, unknown> {
  const { context, pending } = options;
  // A presentation is built from the arguments (a file's content, a diff): where one of them is a secret
  // (`redact.keys`), what is stored and streamed shows the arguments masked instead.
  const secret = JSON.stringify(shownArguments(context.policy, options.args) ?? null) !== JSON.stringify(options.args ?? null);
  const request: PresentedRequest = {
    tool: pending.tool,
    description: pending.description,
    payload: secret ? options.args : pending.payload,
    required: pending.required,
    ...(pending.groupId === undefined ? {} : { groupId: pending.groupId }),
    presentation: secret ? undefined : pending.presentation,
    call: { tool: pending.tool, args: options.args, callId: pending.toolCallId },
    context: options.gateContext,
    ...(pending.askedBy === undefined ? {} : { askedBy: pending.askedBy }),
    ...(pending.alwaysScopes === undefined ? {} : { alwaysScopes: pending.alwaysScopes }),
  };
  const reason = pending.reason;
  const prompt = `Do you approve executing '${pending.tool}'? ${pending.description}`;
  const asked = new Date();
  return {
    run_id: context.run.runId,
    tool_call_id: pending.toolCallId,
    tool_name: pending.tool,
    // The four fields that name the call come first: `GET /approvals` sends the stored text as it is (`pendingViewText`).
    group_id: pending.groupId ?? null,
    reason,
    prompt,
    tool_arguments: JSON.stringify(shownArguments(context.policy, pending.args) ?? null),
    approval_required: pending.required,
    approval_schema: APPROVAL_SCHEMA,
    description: pending.description,
    // Since when it waits, and when the policy's approval_timeout denies it: the inbox shows both.
    asked_at: asked.toISOString(),
    times_out_at: context.policy.approvalTimeoutMs === undefined ? null : new Date(asked.getTime() + context.policy.approvalTimeoutMs).toISOString(),
    presentation: approvalView(request, { reason, prompt, redactKeys: context.policy.redact.keys }),
    // The ids an approval's always_scope may name, with what each covers (the view has them made inert for people).
    always_scopes: (pending.alwaysScopes ?? []).map((scope) => ({ id: scope.id, text: scope.text, rule: scope.rule })),
  };
}

/** The approvals and events of a run that pauses. */
export function pauseRecords(options: {
  context: RunEventContext;
  pending: readonly PendingApproval[];
  /** The run's messages: the pending calls' own arguments (the pending list holds them redacted). */
  messages: readonly ModelMessage[];
  gateContext: GateContext;
  pauseId: string;
}): { approvals: NewApproval[]; events: NewEvent[] } {
  const { context } = options;
  const approvals: NewApproval[] = [];
  const events: NewEvent[] = [];
  // Calls that paused together in one step, with no group of their own, can be decided together (seed 001's batch).
  const ungrouped = options.pending.filter((pending) => pending.groupId === undefined).length;
  for (const original of options.pending) {
    const pending = original.groupId === undefined && ungrouped > 1 ? { ...original, groupId: options.pauseId } : original;
    const request = checkpointData({ context, pending, gateContext: options.gateContext, args: toolCallInput(options.messages, pending.toolCallId) ?? pending.args });
    approvals.push({ runId: context.run.runId, toolCallId: pending.toolCallId, owner: context.run.owner, tool: pending.tool, groupId: pending.groupId ?? null, request });
    events.push(runEvent(context, 'checkpoint_required', request));
  }
  events.push(
    runEvent(context, 'run_paused', {
      reason: 'tool_approval_required',
      status: 'paused_checkpoint',
      tool_name: options.pending[0]?.tool ?? null,
      waiting: options.pending.map((pending) => pending.toolCallId),
    }),
  );
  return { approvals, events };
}

/** The arguments a tool call of the messages was made with. */
export function toolCallInput(messages: readonly ModelMessage[], toolCallId: string): unknown {
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) if (part.type === 'tool-call' && part.toolCallId === toolCallId) return part.input;
  }
  return undefined;
}

/** How a decision was made: as recorded, or `timeout` for one nobody made (recorded before decisions said how). */
export function viaOf(decision: Pick<StoredDecision, 'via' | 'decidedBy'>): 'inbox' | 'api' | 'link' | 'slack' | 'timeout' | null {
  return decision.via ?? (decision.decidedBy === 'timeout' ? 'timeout' : null);
}

export function decisionEvent(context: RunEventContext, options: { toolCallId: string; tool: string; decision: StoredDecision }): NewEvent {
  const { decision } = options;
  return runEvent(context, 'approval_decided', {
    tool_call_id: options.toolCallId,
    tool_name: options.tool,
    approved: decision.approved,
    reason: decision.reason,
    scope: decision.scope,
    decided_by: decision.decidedBy,
    via: viaOf(decision),
    timed_out: decision.decidedBy === 'timeout',
  });
}
