import { filesystemPathForms } from '../filesystem/path-forms.ts';
import { openApprovalsFile } from '../approvals/approvals-file.ts';
import { createAuditLog } from '../audit/audit-log.ts';
import { createGate, type AlwaysApprovals, type Gate } from '../core/gate.ts';
import type { Approver } from '../core/approver.ts';
import type { AuditSink } from '../core/audit-entry.ts';
import { toolKey, type ApprovalMemory } from '../core/approval-memory.ts';
import type { ToolDeclaration } from '../core/tool-declaration.ts';
import type { PolicySection } from '../core/evaluate-call.ts';
import type { RunMode } from '../core/types.ts';
import { type LoadedPolicy, auditLogPath, approvalsFilePath } from '../config/load-policy-file.ts';
import type { GateObserver } from '../core/gate.ts';

export interface RuntimeGate extends Gate {
  /** Flushes and closes the audit log; call when the run ends. */
  close(): Promise<void>;
}

export interface RuntimeGateOptions {
  loaded: LoadedPolicy;
  tools?: Iterable<ToolDeclaration>;
  /** Parts of the policy beyond `tools` that speak about some tools (`GateOptions.sections`). */
  sections?: readonly PolicySection[];
  mode?: RunMode;
  approver?: Approver;
  /** Where audit records go; by default the policy's audit log (`audit.path`), unless `audit.enabled: false`. */
  audit?: AuditSink;
  observer?: GateObserver;
  memory?: ApprovalMemory;
  /** Where "approve always" is kept; by default the approvals file beside the policy (`approvals.path`). */
  always?: AlwaysApprovals;
  /**
   * The simulator's view: "approve always" is read but never written, nothing
   * is audited, and tools the gate does not know are judged as tools that
   * declare nothing.
   */
  simulate?: boolean;
  /** Tools the gate does not know are judged as tools that declare nothing (`unknown_tools`) instead of blocked: the calls of an agent host. */
  openWorld?: boolean;
}

/**
 * The gate as the CLI, the server and the gateway build it from a policy
 * file: the approvals file beside the policy, and the given tools.
 *
 * @example
 * const gate = createRuntimeGate({ loaded: await loadPolicyFile('toolgate.yaml'), approver });
 */
export function createRuntimeGate(options: RuntimeGateOptions): RuntimeGate {
  const { loaded } = options;
  const simulate = options.simulate === true;
  const auditLog =
    simulate || options.audit !== undefined || loaded.policy.document.audit?.enabled === false
      ? undefined
      : createAuditLog({ path: auditLogPath(loaded) });
  const always = options.always ?? openApprovalsFile({ path: approvalsFilePath(loaded), redactKeys: loaded.policy.redact.keys });
  const gate = createGate({
    policy: loaded.policy,
    tools: options.tools,
    openWorld: simulate || options.openWorld === true,
    sections: options.sections,
    pathForms: filesystemPathForms,
    mode: options.mode,
    approver: options.approver,
    audit: simulate ? undefined : (options.audit ?? auditLog),
    observer: options.observer,
    memory: options.memory,
    always: simulate ? readOnly(always) : always,
  });
  return { ...gate, close: async () => auditLog?.close() };
}

/** Reads the kept approvals; remembers new ones only in memory. */
function readOnly(kept: AlwaysApprovals): AlwaysApprovals {
  const added = new Set<string>();
  return {
    has: (entry) => kept.has(entry) || (added.size > 0 && added.has(toolKey(entry))),
    add: async (entry) => void added.add(toolKey(entry)),
  };
}
