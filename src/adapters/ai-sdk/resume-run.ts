import type { ModelMessage, ToolApprovalResponse, ToolResultPart } from 'ai';
import { verifyToolApprovalSignature } from 'ai/internal';
import type { Approver } from '../../core/approver.ts';
import type { Authorization, ToolCall } from '../../core/types.ts';
import { permitsRun } from './call-records.ts';
import { createDecisionApprover } from './decision-approver.ts';
import { AiSdkDecisionError } from './errors/ai-sdk-decision-error.ts';
import { AiSdkRunStateError } from './errors/ai-sdk-run-state-error.ts';
import { denialReason } from './gate-tool-approval.ts';
import { stateOf, type GatedTools, type StoppedBy } from './gated-tools-state.ts';
import { validateDecisions, type RunDecision } from './run-decision.ts';
import { validateRunState, type RunState } from './run-state.ts';
import { withSdkApprovalInput } from './sdk-approval-input.ts';

/** One pending call after its decision went through the gate. */
export interface DecidedCall {
  toolCallId: string;
  tool: string;
  authorization: Authorization;
}

export interface ResumedRun {
  /**
   * The state's messages plus one tool message answering every pending
   * approval: pass them to `generateText`/`streamText` with the same gated set.
   */
  messages: ModelMessage[];
  /** Set when a denial stopped the run (seed 004): do not continue it; the messages already record the denials. */
  stoppedBy: StoppedBy | undefined;
  decided: DecidedCall[];
}

/** An approval request in the messages that no response answers yet. */
interface OpenApproval {
  approvalId: string;
  toolCallId: string;
  tool: string;
  input: unknown;
  signature: string | undefined;
}

/**
 * Resumes a paused deferred run with people's decisions. Each decision goes
 * through the gate (as the answer of a scripted approver), so memory,
 * "approve always", edits and the audit log behave exactly as for a person
 * asked inline; then it becomes the SDK's `tool-approval-response`, which
 * the SDK accepts only against the signed request. Nothing is decided unless
 * every pending request verifies with this gated set's secret.
 *
 * @example
 * const gated = gateTools({ tools, gate, context, resolve: 'deferred', secret: process.env.TOOLGATE_APPROVAL_SECRET });
 * const resumed = await resumeRun({ gated, state: parseRunState(saved), decisions: [{ toolCallId: 'call-1', approved: true }] });
 * if (resumed.stoppedBy === undefined) await generateText({ model, messages: resumed.messages, ...gated });
 */
export async function resumeRun(options: { gated: GatedTools<any>; state: RunState; decisions: readonly RunDecision[]; signal?: AbortSignal }): Promise<ResumedRun> {
  const state = stateOf(options.gated);
  const runState = validateRunState(options.state);
  if (runState.context.sessionId !== state.context.sessionId || (runState.context.chatId ?? null) !== (state.context.chatId ?? null)) {
    throw new AiSdkRunStateError({ field: 'context', problem: 'belongs to another session or chat than this gated set' });
  }
  const open = openApprovals(runState.messages);
  const pendingIds = runState.pending.map((pending) => pending.toolCallId);
  if (pendingIds.length !== open.length || !open.every((approval) => pendingIds.includes(approval.toolCallId))) {
    throw new AiSdkRunStateError({ field: 'pending', problem: 'does not match the approval requests in the messages' });
  }
  const decisions = validateDecisions({ decisions: options.decisions, pending: open.map((approval) => approval.toolCallId) });
  for (const approval of open) {
    // The same state resumed twice (a retried request) must not run a call twice.
    const earlier = state.records.get(approval.toolCallId);
    if (state.records.hasRun(approval.toolCallId) || (earlier !== undefined && earlier.authorization.decision !== 'ask')) {
      throw new AiSdkDecisionError({ field: 'decisions', problem: `cannot decide ${JSON.stringify(approval.toolCallId)} again: it was already decided in this run` });
    }
  }
  for (const approval of open) await verifySignature(approval, state.secret);

  const answers: { approval: OpenApproval; approved: boolean; reason: string }[] = [];
  const decided: DecidedCall[] = [];
  for (const approval of open) {
    const call: ToolCall = { tool: approval.tool, args: approval.input, callId: approval.toolCallId };
    const shown = runState.pending.find((pending) => pending.toolCallId === approval.toolCallId)?.presentation;
    const stopped = state.stoppedBy;
    // After a stopping denial the rest is denied too, through the gate so the audit says why.
    const decision = decisions.get(approval.toolCallId)!;
    const approver: Approver = stopped === undefined ? createDecisionApprover({ decision, shown }) : stoppedApprover(stopped);
    // The person decided this very call: their answer, not memory or the mode, decides it.
    // A tool's own needsApproval is not asked again: as in the SDK, it cannot lower a person's answer.
    const context = withSdkApprovalInput(state.context, { kind: 'resumed' });
    let authorization = await state.gate.authorize(call, context, { approver, signal: options.signal, personDecides: true });
    if (stopped !== undefined && permitsRun(authorization)) authorization = { ...authorization, decision: 'denied', reason: stoppedReason(stopped) };
    else if (!decision.approved && permitsRun(authorization)) {
      // The policy may allow the call by now (a rule changed since the pause), but a person said no to it: it does not run.
      authorization = { ...authorization, decision: 'denied', source: 'person', reason: denialOf(decision), stop: decision.stop ?? state.gate.policy.onDeny === 'stop' };
    }
    // Checked again after the await: a concurrent resume of the same state may have decided (or run) it meanwhile.
    const meanwhile = state.records.get(approval.toolCallId);
    if (state.records.hasRun(approval.toolCallId) || (meanwhile !== undefined && meanwhile.authorization.decision !== 'ask')) {
      throw new AiSdkDecisionError({ field: 'decisions', problem: `cannot decide ${JSON.stringify(approval.toolCallId)} again: it was decided concurrently` });
    }
    state.records.set({ toolCallId: approval.toolCallId, tool: approval.tool, modelArgs: approval.input, authorization });
    decided.push({ toolCallId: approval.toolCallId, tool: approval.tool, authorization });
    const approved = permitsRun(authorization);
    answers.push({ approval, approved, reason: approved ? authorization.reason : denialReason({ state, toolCallId: approval.toolCallId, tool: approval.tool, authorization }) });
  }
  const stoppedBy = state.stoppedBy;
  const content: Array<ToolApprovalResponse | ToolResultPart> = [];
  for (const { approval, approved, reason } of answers) {
    if (stoppedBy === undefined) {
      content.push({ type: 'tool-approval-response', approvalId: approval.approvalId, approved, reason });
      continue;
    }
    // A stopped run is not continued: nothing more runs (approved calls included), and
    // the denials are written out here, as the SDK would write them.
    const finalReason = approved ? stoppedReason(stoppedBy) : reason;
    content.push({ type: 'tool-approval-response', approvalId: approval.approvalId, approved: false, reason: finalReason });
    content.push({ type: 'tool-result', toolCallId: approval.toolCallId, toolName: approval.tool, output: { type: 'execution-denied', reason: finalReason } });
  }
  return { messages: [...runState.messages, { role: 'tool', content }], stoppedBy, decided };
}

function denialOf(decision: RunDecision): string {
  return decision.reason ? `denied by a person: ${decision.reason}` : 'denied by a person';
}

function stoppedReason(stopped: StoppedBy): string {
  return `not run: the run was stopped after ${stopped.tool} was denied`;
}

function stoppedApprover(stopped: StoppedBy): Approver {
  return { ask: async () => ({ approved: false, scope: 'once', automatic: true, reason: stoppedReason(stopped) }) };
}

/** Approval requests without a response, in message order, each with its tool call. */
function openApprovals(messages: readonly ModelMessage[]): OpenApproval[] {
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const requests: { approvalId: string; toolCallId: string; signature: string | undefined }[] = [];
  const answered = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    if (message.role === 'assistant') {
      for (const part of message.content) {
        if (part.type === 'tool-call') calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
        else if (part.type === 'tool-approval-request' && part.isAutomatic !== true) requests.push({ approvalId: part.approvalId, toolCallId: part.toolCallId, signature: part.signature });
      }
    } else if (message.role === 'tool') {
      for (const part of message.content) if (part.type === 'tool-approval-response') answered.add(part.approvalId);
    }
  }
  return requests
    .filter((request) => !answered.has(request.approvalId))
    .map((request) => {
      const call = calls.get(request.toolCallId);
      if (call === undefined) throw new AiSdkRunStateError({ field: 'messages', problem: `hold an approval request for ${JSON.stringify(request.toolCallId)} without its tool call` });
      return { ...request, tool: call.toolName, input: call.input };
    });
}

/** The SDK's own check (ai `verifyToolApprovalSignature`), before anything is recorded. */
async function verifySignature(approval: OpenApproval, secret: string | Uint8Array): Promise<void> {
  const field = `the approval request for ${JSON.stringify(approval.toolCallId)}`;
  if (approval.signature === undefined) throw new AiSdkRunStateError({ field, problem: 'is not signed' });
  let valid = false;
  try {
    valid = await verifyToolApprovalSignature({ secret, signature: approval.signature, approvalId: approval.approvalId, toolCallId: approval.toolCallId, toolName: approval.tool, input: approval.input });
  } catch {
    valid = false;
  }
  if (!valid) throw new AiSdkRunStateError({ field, problem: 'has a signature that does not verify (tampered, or signed with another secret)' });
}
