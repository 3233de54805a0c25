import { openApprovalsFile, type ApprovalsFile } from '../approvals/approvals-file.ts';
import { createGate, type AlwaysApprovals, type Gate } from '../core/gate.ts';
import type { Approver } from '../core/approver.ts';
import type { AuditSink } from '../core/audit-entry.ts';
import { toolKey, type ApprovalMemory } from '../core/approval-memory.ts';
import type { ToolDeclaration } from '../core/tool-declaration.ts';
import type { RunMode } from '../core/types.ts';
import { resolvePolicyPath, type LoadedPolicy } from '../config/load-policy-file.ts';
import type { GateObserver } from '../core/gate.ts';

export interface RuntimeGateOptions {
  loaded: LoadedPolicy;
  tools?: Iterable<ToolDeclaration>;
  mode?: RunMode;
  approver?: Approver;
  audit?: AuditSink;
  observer?: GateObserver;
  memory?: ApprovalMemory;
  /**
   * The simulator's view: "approve always" is read but never written, and
   * tools the gate does not know are judged as tools that declare nothing.
   */
  simulate?: boolean;
}

/**
 * The gate as the CLI, the server and the gateway build it from a policy
 * file: the approvals file beside the policy, and the given tools.
 *
 * @example
 * const gate = createRuntimeGate({ loaded: await loadPolicyFile('toolgate.yaml'), approver });
 */
export function createRuntimeGate(options: RuntimeGateOptions): Gate {
  const { loaded } = options;
  const approvalsPath = resolvePolicyPath({ loaded, value: loaded.policy.document.approvals?.path, fallback: 'approvals.json' });
  const file = openApprovalsFile({ path: approvalsPath, redactKeys: loaded.policy.redact.keys });
  return createGate({
    policy: loaded.policy,
    tools: options.tools,
    openWorld: options.simulate === true,
    mode: options.mode,
    approver: options.approver,
    audit: options.audit,
    observer: options.observer,
    memory: options.memory,
    always: options.simulate === true ? readOnly(file) : file,
  });
}

/** Reads the file's approvals; remembers new ones only in memory. */
function readOnly(file: ApprovalsFile): AlwaysApprovals {
  const added = new Set<string>();
  return {
    has: (entry) => file.has(entry) || added.has(toolKey(entry)),
    add: async (entry) => void added.add(toolKey(entry)),
  };
}
