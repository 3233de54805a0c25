import type { Authorization, Decision, DecisionSource } from './types.ts';

/** The schema version of audit records; readers accept this and older versions. */
export const AUDIT_SCHEMA_VERSION = 1;

/**
 * One line of the audit log. A call that asks produces two: its verdict
 * (`kind: 'verdict'`, `verdict: 'ask'`) and the decision that followed
 * (`kind: 'decision'`). Arguments are always redacted.
 */
export interface AuditEntry {
  v: typeof AUDIT_SCHEMA_VERSION;
  kind: 'verdict' | 'decision';
  time: string;
  session: string;
  chat: string | null;
  run: string | null;
  caller: string | null;
  call_id: string;
  tool: string;
  args: unknown;
  verdict: Decision;
  decision: Authorization['decision'];
  source: DecisionSource;
  rule: string | null;
  reason: string;
  latency_ms: number;
  /** The MCP server the tool is offered by (the gateway's calls). */
  server?: string;
  /** The tool's identity when it declares one: for an MCP tool, `mcp:<server>:<server identity>:<definition hash>`. */
  identity?: string;
  /** Where the rule that decided was written in the policy file: `toolgate.yaml:14`. */
  rule_at?: string;
  /** Who decided, on a person's decision whose approver says so (`toolgate serve`: the approver's token name). */
  approver?: string;
  /** On the server, an entry an agent host's hook decided on its own and reported: the name of the token that reported it. */
  reported_by?: string;
}

/** Where audit entries go. `record` resolves once the entry is durable. */
export interface AuditSink {
  record(entry: AuditEntry): Promise<void>;
}
