import type { AuditEntry, AuditSink } from '../core/audit-entry.ts';

/** An upstream server changed a tool's definition after the gateway first saw it. */
export interface DefinitionChange {
  server: string;
  /** The tool's name on the server. */
  upstreamTool: string;
  /** The name clients see, when the tool is listed. */
  tool: string | undefined;
  /** In words: `description`, `input schema`, `annotations`, `title`. */
  changed: string[];
  previousHash: string;
  hash: string;
  previousIdentity: string;
  identity: string;
  /** When the previous definition was first seen (ISO 8601). */
  previousSeenAt: string;
  time: string;
}

/** The schema version of `definition_changed` audit lines. */
export const DEFINITION_CHANGED_SCHEMA_VERSION = 1;

/**
 * The audit line for a definition change. It sits in the audit log beside
 * the gate's `verdict` and `decision` lines, with its own `kind`:
 * `{"v":1,"kind":"definition_changed","time","server","tool","upstream_tool",
 *   "changed":[...],"previous_hash","hash","previous_identity","identity","previous_seen_at","reason"}`.
 *
 * @example
 * definitionChangedRecord(change).kind // 'definition_changed'
 */
export function definitionChangedRecord(change: DefinitionChange): Record<string, unknown> {
  return {
    v: DEFINITION_CHANGED_SCHEMA_VERSION,
    kind: 'definition_changed',
    time: change.time,
    server: change.server,
    tool: change.tool ?? null,
    upstream_tool: change.upstreamTool,
    changed: change.changed,
    previous_hash: change.previousHash,
    hash: change.hash,
    previous_identity: change.previousIdentity,
    identity: change.identity,
    previous_seen_at: change.previousSeenAt,
    reason: definitionChangeNote(change),
  };
}

/**
 * Writes definition changes to an audit sink as `definition_changed` lines.
 * The audit log writes any object it is given as one JSON line (with group
 * commit and fsync), so the record goes through it rather than beside it;
 * the cast (here and in `recordCallsNotRun`) is where a line that is not an
 * `AuditEntry` enters.
 *
 * @example
 * createMcpGateway({ loaded, onDefinitionChanged: recordDefinitionChanges(auditLog) });
 */
export function recordDefinitionChanges(sink: AuditSink): (change: DefinitionChange) => Promise<void> {
  return (change) => sink.record(definitionChangedRecord(change) as unknown as AuditEntry);
}

/** A call that was approved while its tool's definition changed, so it did not run. */
export interface CallNotRun {
  time: string;
  session: string;
  callId: string;
  server: string;
  tool: string;
  upstreamTool: string;
  /** The identity the person approved. */
  approvedIdentity: string;
  /** The identity the tool has now. */
  identity: string;
}

/**
 * The audit line of such a call, beside its `decision` line (which says it
 * was approved): `{"v":1,"kind":"call_not_run","time","session","call_id",
 * "server","tool","upstream_tool","approved_identity","identity","reason"}`.
 *
 * @example
 * callNotRunRecord(notRun).kind // 'call_not_run'
 */
export function callNotRunRecord(notRun: CallNotRun): Record<string, unknown> {
  return {
    v: DEFINITION_CHANGED_SCHEMA_VERSION,
    kind: 'call_not_run',
    time: notRun.time,
    session: notRun.session,
    call_id: notRun.callId,
    server: notRun.server,
    tool: notRun.tool,
    upstream_tool: notRun.upstreamTool,
    approved_identity: notRun.approvedIdentity,
    identity: notRun.identity,
    reason: `the definition of ${JSON.stringify(notRun.upstreamTool)} on MCP server ${JSON.stringify(notRun.server)} changed while the call was being approved, so it did not run`,
  };
}

/**
 * Writes calls that did not run to an audit sink as `call_not_run` lines (the same cast as `recordDefinitionChanges`).
 *
 * @example
 * const recordNotRun = recordCallsNotRun(auditLog);
 */
export function recordCallsNotRun(sink: AuditSink): (notRun: CallNotRun) => Promise<void> {
  return (notRun) => sink.record(callNotRunRecord(notRun) as unknown as AuditEntry);
}

/**
 * What a person reads in the next approval of the tool.
 *
 * @example
 * definitionChangeNote(change) // '⚠ The definition of "write_file" on MCP server "files" changed since 2026-…'
 */
export function definitionChangeNote(change: Pick<DefinitionChange, 'server' | 'upstreamTool' | 'changed' | 'previousSeenAt'>): string {
  return (
    `⚠ The definition of ${JSON.stringify(change.upstreamTool)} on MCP server ${JSON.stringify(change.server)} changed since ${change.previousSeenAt} ` +
    `(${change.changed.join(', ') || 'definition'}): earlier approvals of it no longer apply. Check that it still does what you expect.`
  );
}
