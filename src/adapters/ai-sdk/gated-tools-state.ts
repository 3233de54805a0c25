/**
 * The state behind a gated tool set. It stays out of the object users spread
 * into `generateText` (only SDK settings go there) and is found again by
 * identity: `pendingApprovals`, `resumeRun` and `runOutcome` take the gated
 * set and look its state up here.
 */
import type { ModelMessage, StopCondition, ToolApprovalStatus, ToolSet } from 'ai';
import { ToolgateError } from '../../core/errors/toolgate-error.ts';
import type { Gate } from '../../core/gate.ts';
import type { Approver } from '../../core/approver.ts';
import type { GateContext } from '../../core/types.ts';
import type { CallLedger } from './call-ledger.ts';
import type { CallRecords } from './call-records.ts';

/** How asks are resolved: a person inline (seed 002), or a pause and a later resume (seed 004). */
export type ResolveMode = 'blocking' | 'deferred';

/** The denial that stopped a run (`on_deny: stop`, or a decision's `stop: true`). */
export interface StoppedBy {
  toolCallId: string;
  tool: string;
  reason: string;
}

/** The tool call as the SDK hands it to `toolApproval`: only these fields are read. */
export interface ApprovalToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** toolgate's gate as the SDK's `toolApproval` function: the status, or a promise of it when the gate had to wait (a check, the audit log, a person). */
export type GateToolApproval = (options: { toolCall: ApprovalToolCall; messages: ModelMessage[]; toolsContext?: unknown }) => ToolApprovalStatus | Promise<ToolApprovalStatus>;

/**
 * What `gateTools` returns: exactly the settings to spread into
 * `generateText`, `streamText` or `new ToolLoopAgent(...)`.
 */
export interface GatedTools<TOOLS extends ToolSet = ToolSet> {
  /** The tools the model may see, each `execute` guarded by the gate's per-call decision. */
  readonly tools: TOOLS;
  /** The gate, as the SDK's approval function: automatic decisions cost the SDK nothing extra. */
  readonly toolApproval: GateToolApproval;
  /** Signs every approval request, so forged or edited approvals are rejected. */
  readonly experimental_toolApprovalSecret: string | Uint8Array;
  /** The run's own stop conditions plus "a denial stopped the run". */
  readonly stopWhen: Array<StopCondition<any, any>>;
}

/** Everything a gated set knows; one per `gateTools` call. */
export interface GatedToolsState {
  gate: Gate;
  context: GateContext;
  resolve: ResolveMode;
  /** Who is asked inline, settled by `gateTools` (`runApprover`); null in deferred runs: asks pause. */
  approver: Approver | null;
  signal: AbortSignal | undefined;
  secret: string | Uint8Array;
  records: CallRecords;
  /** At most once across processes: every run of a tool goes through it. */
  ledger: CallLedger | undefined;
  stoppedBy: StoppedBy | undefined;
}

const states = new WeakMap<object, GatedToolsState>();

/**
 * Links a gated set to its state.
 *
 * @example
 * attachState(gated, state);
 */
export function attachState(gated: GatedTools<any>, state: GatedToolsState): void {
  states.set(gated, state);
}

/**
 * The state of a gated set made by `gateTools`; throws for anything else
 * (a copy made by spreading has no state: pass the object `gateTools` returned).
 *
 * @example
 * const state = stateOf(gated);
 */
export function stateOf(gated: GatedTools<any>): GatedToolsState {
  const state = typeof gated === 'object' && gated !== null ? states.get(gated) : undefined;
  if (state === undefined) {
    throw new ToolgateError({ code: 'USAGE', message: 'expected the object gateTools returned (a spread copy of it has no gate state); pass that object itself' });
  }
  return state;
}
