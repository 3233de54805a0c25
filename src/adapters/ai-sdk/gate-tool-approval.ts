import type { ToolApprovalStatus } from 'ai';
import { presentRequest } from '../../core/approver.ts';
import { authorizeSoon } from '../../core/gate.ts';
import type { Authorization, Presentation, ToolCall } from '../../core/types.ts';
import { permitsRun, sameArguments } from './call-records.ts';
import type { ApprovalToolCall, GatedToolsState, GateToolApproval } from './gated-tools-state.ts';
import { isReplayedApproval } from './replayed-approval.ts';
import { withSdkApprovalInput } from './sdk-approval-input.ts';

/**
 * The gate as the SDK's generic `toolApproval` function. Every call the
 * model makes comes here first (the SDK runs nothing before its approval
 * status is known), and its decision is recorded for the wrapped `execute`:
 *
 * - allow → `not-applicable`: the SDK creates no approval id, signs nothing
 *   and adds no parts, so automatic decisions cost it nothing extra;
 * - approved (person, memory, mode) → `approved` with the reason;
 * - block, denied → `denied` with the reason: the model gets an
 *   `execution-denied` result saying why, and adapts (seed 002);
 * - ask, deferred → `user-approval`: the run pauses with a signed
 *   `tool-approval-request` (seed 004); ask, blocking, nobody to ask → denied.
 *
 * @example
 * const toolApproval = createGateToolApproval(state);
 * await generateText({ model, tools, toolApproval, experimental_toolApprovalSecret: state.secret });
 */
export function createGateToolApproval(state: GatedToolsState): GateToolApproval {
  const blocking = state.resolve === 'blocking';
  // Deferred runs ask nobody: the gate answers `ask`. Blocking runs with
  // nobody to ask deny through the gate (`runApprover`), so the audit log records why.
  const authorizeOptions = { approver: state.approver, signal: state.signal };
  // Not an async function: a decision the gate reaches without I/O (the allow path of every
  // automatic call) is answered without a promise, which the SDK awaits all the same.
  return ({ toolCall, messages, toolsContext }) => {
    try {
      const { toolCallId, toolName, input } = toolCall;
      if (isReplayedApproval({ messages, toolCallId })) return confirmReplayedApproval(state, toolCall);
      if (state.ledger?.recorded?.(toolCallId) === true) {
        // Begun before the run was recovered: never judged or run again; the ledger gives what came of it.
        state.records.set({ toolCallId, tool: toolName, modelArgs: input, authorization: recordedAuthorization(input) });
        return undefined;
      }
      const refused = state.ledger?.refused?.(toolCallId);
      if (refused !== undefined) return { type: 'denied', reason: refused };
      if (state.stoppedBy !== undefined) {
        // Nothing more runs in a run a denial stopped, even if the loop goes on.
        return { type: 'denied', reason: `not run: the run was stopped after ${state.stoppedBy.tool} was denied` };
      }
      const call: ToolCall = { tool: toolName, args: input, callId: toolCallId };
      // A tool's own needsApproval is asked with what the SDK would have given it (messages, tool context);
      // a tool without a check of its own has nobody to hand them to.
      const context =
        state.gate.tool(toolName)?.checkApproval === undefined ? state.context : withSdkApprovalInput(state.context, { kind: 'asked', messages, toolsContext, signal: state.signal });
      const authorization = authorizeSoon(state.gate, call, context, authorizeOptions);
      if (authorization instanceof Promise) return authorization.then((decided) => statusOf({ state, call, authorization: decided, blocking }));
      return statusOf({ state, call, authorization, blocking });
    } catch (error) {
      // As an async function would: a throw is a rejection, which the SDK reports as the run's error.
      return Promise.reject(error);
    }
  };
}

/** Records the gate's decision for the wrapped `execute` and says it in the SDK's terms. */
function statusOf(options: { state: GatedToolsState; call: ToolCall; authorization: Authorization; blocking: boolean }): ToolApprovalStatus | Promise<ToolApprovalStatus> {
  const { state, call, authorization } = options;
  const { callId: toolCallId, tool: toolName, args: input } = call;
  const record = { toolCallId, tool: toolName, modelArgs: input, authorization };
  switch (authorization.decision) {
    case 'allow':
      state.records.set(record);
      return undefined;
    case 'approved':
      state.records.set(record);
      return { type: 'approved', reason: authorization.reason };
    case 'ask': {
      if (!options.blocking) {
        const request = authorization.request;
        return Promise.all([presentationFor(authorization, call, state), request === undefined ? [] : state.gate.alwaysChoices(call, request)]).then(([presentation, alwaysScopes]) => {
          state.records.set({ ...record, ...(presentation === undefined ? {} : { presentation }), ...(alwaysScopes.length === 0 ? {} : { alwaysScopes }) });
          return { type: 'user-approval', reason: authorization.request?.description ?? authorization.reason };
        });
      }
      const reason = `${toolName} needs approval and nobody could be asked (${authorization.reason}); denied to fail closed`;
      state.records.set({ ...record, authorization: { ...authorization, decision: 'denied', reason } });
      return refused(state, { toolCallId, tool: toolName, outcome: 'denied', reason });
    }
    default:
      state.records.set(record);
      return refused(state, { toolCallId, tool: toolName, outcome: authorization.decision === 'block' ? 'blocked' : 'denied', reason: denialReason({ state, toolCallId, tool: toolName, authorization }) });
  }
}

/** A refusal, recorded in the ledger first when it keeps them (so a recovery replays it as refused). */
function refused(state: GatedToolsState, call: { toolCallId: string; tool: string; outcome: 'blocked' | 'denied'; reason: string }): ToolApprovalStatus | Promise<ToolApprovalStatus> {
  const status: ToolApprovalStatus = { type: 'denied', reason: call.reason };
  const refuse = state.ledger?.refuse;
  return refuse === undefined ? status : refuse.call(state.ledger, call).then(() => status);
}

/** The authorization of a call the ledger holds: it goes to the ledger, which never runs it again. */
function recordedAuthorization(args: unknown): Authorization {
  return { decision: 'allow', source: 'policy', rule: null, reason: 'recorded before the run was recovered: its recorded outcome stands and it is not run again', args, stop: false, trace: [] };
}

/**
 * The reason the model reads for a denial or a block; a denial that stops the
 * run marks the gated set as stopped and says so.
 *
 * @example
 * return { type: 'denied', reason: denialReason({ state, toolCallId, tool, authorization }) };
 */
export function denialReason(options: { state: GatedToolsState; toolCallId: string; tool: string; authorization: Authorization }): string {
  const { state, authorization } = options;
  if (!authorization.stop) return authorization.reason;
  const reason = `${authorization.reason}; the run was stopped by this denial`;
  state.stoppedBy ??= { toolCallId: options.toolCallId, tool: options.tool, reason };
  return reason;
}

/**
 * A resumed approval runs only if toolgate decided it (`resumeRun`) for this
 * very tool and these very arguments; otherwise it is denied, even when its
 * signature is valid (an approval response written without the gate).
 */
function confirmReplayedApproval(state: GatedToolsState, toolCall: ApprovalToolCall): ToolApprovalStatus {
  const record = state.records.get(toolCall.toolCallId);
  if (record === undefined || !permitsRun(record.authorization)) {
    return { type: 'denied', reason: `${toolCall.toolName} was not approved through toolgate for this call; it did not run` };
  }
  if (record.tool !== toolCall.toolName || !sameArguments(record.modelArgs, toolCall.input)) {
    return { type: 'denied', reason: `the approval of ${record.tool} was for another call; it did not run` };
  }
  if (state.stoppedBy !== undefined) return { type: 'denied', reason: `not run: the run was stopped after ${state.stoppedBy.tool} was denied` };
  return { type: 'approved', reason: record.authorization.reason };
}

/**
 * The presentation a person will be shown for a deferred ask, built now so a
 * UI can show it and the resume can check nothing changed since. A failure
 * leaves it out: the gate builds it again when the decision comes, and
 * denies then if it still cannot.
 */
async function presentationFor(authorization: Authorization, call: ToolCall, state: GatedToolsState): Promise<Presentation | undefined> {
  if (authorization.request === undefined) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    // Tool code gets the same deadline as the gate gives it.
    const deadline = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), state.gate.policy.checkTimeoutMs);
    });
    const presented = presentRequest({ request: authorization.request, call, context: state.context }).then(
      (request) => request.presentation,
      () => undefined,
    );
    return await Promise.race([presented, deadline]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
