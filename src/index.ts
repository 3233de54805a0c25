/**
 * toolgate's library entry: the gate, the policy, and the shapes they speak.
 * Node-only parts (audit log, approvals file, metrics, CLI) live behind their
 * own subpath exports.
 */
export { createGate } from './core/gate.ts';
export type { AlwaysApprovals, AuthorizeOptions, Gate, GateObserver, GateOptions } from './core/gate.ts';
export { parsePolicy } from './core/policy/parse-policy.ts';
export { normalizePolicy } from './core/policy/normalize-policy.ts';
export { policyJsonSchema, policySchema } from './core/policy/policy-schema.ts';
export type { PolicyDocument } from './core/policy/policy-schema.ts';
export type { Policy, ToolRule, ArgumentRule } from './core/policy/policy.ts';
export { allowCall, blockCall, requiresApproval } from './core/tool-declaration.ts';
export type {
  ApprovalCheckContext,
  ApprovalCheckResult,
  ApprovalRequestInit,
  BlockResult,
  RequiresApprovalOptions,
  ToolDeclaration,
} from './core/tool-declaration.ts';
export { createNonInteractiveApprover } from './core/approver.ts';
export type { Approver, PresentedRequest } from './core/approver.ts';
export { createInMemoryApprovalMemory } from './core/approval-memory.ts';
export type { ApprovalMemory, RememberedDecision } from './core/approval-memory.ts';
export { resolveMode } from './core/approval-controller.ts';
export { fingerprint, FingerprintError } from './core/fingerprint.ts';
export { compilePattern } from './core/pattern.ts';
export { redact, REDACTED } from './core/redact.ts';
export { ToolgateError } from './core/errors/toolgate-error.ts';
export type { ToolgateErrorCode } from './core/errors/toolgate-error.ts';
export { PolicyError } from './core/errors/policy-error.ts';
export type { PolicyIssue } from './core/errors/policy-error.ts';
export { AUDIT_SCHEMA_VERSION } from './core/audit-entry.ts';
export type { AuditEntry, AuditSink } from './core/audit-entry.ts';
export type {
  ApprovalDecision,
  ApprovalRequest,
  ApprovalScope,
  Authorization,
  Decision,
  DecisionSource,
  GateContext,
  MatchedRule,
  Presentation,
  PresentationType,
  RunMode,
  ToolCall,
  Verdict,
} from './core/types.ts';
