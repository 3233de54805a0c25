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
export { createBuiltinTools } from './runtime/create-builtin-tools.ts';
export type { BuiltinToolset } from './runtime/create-builtin-tools.ts';
export { runAgent } from './runtime/run-agent.ts';
export type { AgentRunSummary, RunAgentOptions } from './runtime/run-agent.ts';
export { createWorkerTool } from './runtime/worker-tool.ts';
export { createTerminalApprover } from './approvers/terminal/terminal-approver.ts';
export type { TerminalApproverOptions } from './approvers/terminal/terminal-approver.ts';
export { createFsTools } from './tools/fs/create-fs-tools.ts';
export { zonesFromPolicy } from './tools/fs/zones.ts';
export type { Zone } from './tools/fs/zones.ts';
export { createShellTool } from './tools/shell/create-shell-tool.ts';
export { detectSandbox } from './sandbox/detect-sandbox.ts';
export { resolveSandboxPolicy } from './sandbox/sandbox-policy.ts';
export { sandboxProfileFromPolicy } from './tools/shell/sandbox-profile-from-policy.ts';
export { createBwrapWrapper } from './sandbox/bwrap-sandbox.ts';
export { seatbeltProfile } from './sandbox/seatbelt-profile.ts';
export { resolveModel } from './models/resolve-model.ts';
