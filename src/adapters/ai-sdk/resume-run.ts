import type { ModelMessage, ToolApprovalResponse, ToolResultPart } from 'ai';
import type { Approver } from '../../core/approver.ts';
import type { Authorization, ToolCall } from '../../core/types.ts';
import { permitsRun } from './call-records.ts';
import { createDecisionApprover } from './decision-approver.ts';
import { AiSdkDecisionError } from './errors/ai-sdk-decision-error.ts';
import { denialReason } from './gate-tool-approval.ts';
import { stateOf, type GatedTools, type StoppedBy } from './gated-tools-state.ts';
import { validateDecisions, type RunDecision } from './run-decision.ts';
import type { OpenApproval } from './open-approvals.ts';
import type { RunState } from './run-state.ts';
import { withSdkApprovalInput } from './sdk-approval-input.ts';
import { verifiedRunState } from './verify-run-state.ts';

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

/**
 * Resumes a paused deferred run with people's decisions. Each decision goes
 * through the gate (as the answer of a scripted approver), so memory,
 * "approve always", edits and the audit log behave exactly as for a person
 * asked inline; then it becomes the SDK's `tool-approval-response`, which
 * the SDK accepts only against the signed request. Nothing is decided unless
 * the state verifies (`verifyRunState`: its own signature, this gated set's
 * session, chat and run, and every pending request's SDK signature). A
 * person's denial stands even where the policy would allow the call by now,
 * and a tool's own `needsApproval` is not asked again: it cannot lower an
 * answer a person gave.
 *
 * @example
 * const gated = gateTools({ tools, gate, context, resolve: 'deferred', secret: process.env.TOOLGATE_APPROVAL_SECRET });
 * const resumed = await resumeRun({ gated, state: parseRunState(saved), decisions: [{ toolCallId: 'call-1', approved: true }] });
 * if (resumed.stoppedBy === undefined) await generateText({ model, messages: resumed.messages, ...gated });
 */
export async function resumeRun(options: { gated: GatedTools<any>; state: RunState; decisions: readonly RunDecision[]; signal?: AbortSignal }): Promise<ResumedRun> {
  const state = stateOf(options.gated);
  // Everything checked (signature, session, pending against messages, the SDK's signatures) before anything is decided.
  const { state: runState, open } = await verifiedRunState({ gated: options.gated, state: options.state });
  const decisions = validateDecisions({ decisions: options.decisions, pending: open.map((approval) => approval.toolCallId) });
  for (const approval of open) {
    // The same state resumed twice (a retried request) must not run a call twice.
    const earlier = state.records.get(approval.toolCallId);
    if (state.records.hasRun(approval.toolCallId) || (earlier !== undefined && earlier.authorization.decision !== 'ask')) {
      throw new AiSdkDecisionError({ field: 'decisions', problem: `cannot decide ${JSON.stringify(approval.toolCallId)} again: it was already decided in this run` });
    }
  }

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
      authorization =
        decision.timedOut === true
          ? { ...authorization, decision: 'denied', source: 'timeout', reason: decision.reason ?? 'timed out', stop: state.gate.policy.onDeny === 'stop' }
          : decision.automatic === true
            ? { ...authorization, decision: 'denied', source: 'mode', reason: decision.reason ?? 'denied by toolgate', stop: false }
            : { ...authorization, decision: 'denied', source: 'person', reason: denialOf(decision), stop: decision.stop ?? state.gate.policy.onDeny === 'stop', ...(decision.by === undefined ? {} : { approver: decision.by }) };
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
