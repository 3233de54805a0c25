/**
 * `toolgate/ai-sdk`: toolgate's gate for the Vercel AI SDK (v7), as the
 * SDK's own `toolApproval`, with signed approvals, guarded `execute`s, and
 * deferred approvals that pause and resume a run (in another process too).
 */
export { gateTools } from './gate-tools.ts';
export type { GateToolsOptions } from './gate-tools.ts';
export type { ApprovalToolCall, GatedTools, GateToolApproval, ResolveMode, StoppedBy } from './gated-tools-state.ts';
export { pendingApprovals } from './pending-approvals.ts';
export type { PendingApproval } from './pending-approvals.ts';
export { createRunState, parseRunState, serializeRunState, validateRunState, RUN_STATE_SCHEMA_VERSION } from './run-state.ts';
export type { RunState } from './run-state.ts';
export { verifyRunState } from './verify-run-state.ts';
export { resumeRun } from './resume-run.ts';
export type { DecidedCall, ResumedRun } from './resume-run.ts';
export type { RunDecision } from './run-decision.ts';
export { runOutcome } from './run-outcome.ts';
export type { RunOutcome } from './run-outcome.ts';
export { EDITED_ARGUMENTS_NOTE } from './wrap-tool.ts';
export { AiSdkCallNotAuthorizedError } from './errors/ai-sdk-call-not-authorized-error.ts';
export { AiSdkRunStateError } from './errors/ai-sdk-run-state-error.ts';
export type { RunStateProblem } from './errors/ai-sdk-run-state-error.ts';
export { AiSdkDecisionError } from './errors/ai-sdk-decision-error.ts';
export { createInMemoryCallLedger } from './call-ledger.ts';
export type { CallLedger, EarlierRun, LedgerCall } from './call-ledger.ts';
export { AiSdkCallInterruptedError } from './errors/ai-sdk-call-interrupted-error.ts';
