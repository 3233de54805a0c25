/**
 * `toolgate/node`: the parts that touch the file system — policy files, the
 * audit log, the "approve always" file, metrics — and the gate assembled from
 * a policy file the way the CLI builds it.
 */
export { loadPolicyFile, findPolicyFile, resolvePolicyPath, DEFAULT_POLICY_NAMES } from './config/load-policy-file.ts';
export type { LoadedPolicy } from './config/load-policy-file.ts';
export { createAuditLog } from './audit/audit-log.ts';
export type { AuditLog, AuditLogOptions } from './audit/audit-log.ts';
export { readAuditLog, filterAuditEntries, auditEntryPredicate, DEFAULT_AUDIT_LOG_PATH } from './audit/read-audit-log.ts';
export type { AuditFilter, AuditLogItem } from './audit/read-audit-log.ts';
export { openApprovalsFile, APPROVALS_SCHEMA_VERSION } from './approvals/approvals-file.ts';
export type { ApprovalRecord, ApprovalsFile } from './approvals/approvals-file.ts';
export { createGateMetrics } from './metrics/create-metrics.ts';
export type { GateMetrics } from './metrics/create-metrics.ts';
export { createRuntimeGate } from './runtime/create-runtime-gate.ts';
export type { RuntimeGate, RuntimeGateOptions } from './runtime/create-runtime-gate.ts';
