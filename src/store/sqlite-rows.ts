/**
 * The rows of the SQLite store as better-sqlite3 returns them, and their
 * conversion to the records of `store.ts` (JSON columns parsed back to
 * objects), plus the opaque `listRuns` cursor.
 */
import type { RememberedShown } from '../core/approval-memory.ts';
import { StoreError } from './sqlite-store-error.ts';
import { jsonObjectText } from './store-records.ts';
import type { CallStatus, RememberedRecord, RunStatus, ServerRunMode, StoredApproval, StoredApprovalDecision, StoredApprovalText, StoredCall, StoredDecision, StoredDelivery, StoredEvent, StoredRun, StoredStep, StoredToken, TokenRole } from './store.ts';

export interface RunRow {
  seq: number;
  run_id: string;
  owner: string;
  status: string;
  mode: string;
  session_id: string;
  chat_id: string | null;
  model: string;
  input: string;
  state: string | null;
  text: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  revision: number;
  schema_version: number;
}

export interface DeliveryRow {
  seq: number;
  id: string;
  channel: string;
  run_id: string;
  tool_call_id: string;
  body: string;
  mac: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  leased_until: string | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  receipt: string | null;
  schema_version: number;
}

/** A row of the outbox as the store's record. */
export function deliveryFromRow(row: DeliveryRow): StoredDelivery {
  if (row.status !== 'pending' && row.status !== 'delivered' && row.status !== 'dead') {
    throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `outbox delivery ${row.id} has the unknown status ${JSON.stringify(row.status)}` });
  }
  return {
    id: row.id,
    channel: row.channel,
    runId: row.run_id,
    toolCallId: row.tool_call_id,
    body: row.body,
    mac: row.mac,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    receipt: row.receipt,
  };
}

export interface ApprovalRow {
  seq: number;
  run_id: string;
  tool_call_id: string;
  owner: string;
  tool: string;
  group_id: string | null;
  request: string;
  created_at: string;
  decision: string | null;
  schema_version: number;
}

export interface EventRow {
  id: number;
  run_id: string;
  owner: string;
  type: string;
  data: string;
  at: string;
}

export interface CallRow {
  run_id: string;
  tool_call_id: string;
  tool: string;
  input: string;
  status: string;
  output: string | null;
  started_at: string;
  finished_at: string | null;
}

export interface StepRow {
  run_id: string;
  seq: number;
  body: string;
  recorded_at: string;
  schema_version: number;
}

/**
 * @example
 * const steps = rows.map(stepFromRow);
 */
export function stepFromRow(row: StepRow): StoredStep {
  return { runId: row.run_id, seq: Number(row.seq), body: row.body, recordedAt: row.recorded_at, schemaVersion: Number(row.schema_version) };
}

export interface TokenRow {
  name: string;
  role: string;
  hash: string;
  created_at: string;
  revoked_at: string | null;
}

/**
 * The statuses, modes and roles below were checked by the tables' CHECK
 * constraints on the way in, so the casts from TEXT are safe.
 *
 * @example
 * const run = runFromRow(database.prepare('SELECT * FROM runs WHERE run_id = ?').get(runId) as RunRow);
 */
export function runFromRow(row: RunRow): StoredRun {
  return {
    runId: row.run_id,
    owner: row.owner,
    status: row.status as RunStatus,
    mode: row.mode as ServerRunMode,
    sessionId: row.session_id,
    chatId: row.chat_id,
    model: row.model,
    input: row.input,
    state: row.state,
    text: row.text,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    revision: row.revision,
    schemaVersion: row.schema_version,
  };
}

/**
 * An approval with its request and decision parsed back to objects.
 *
 * @example
 * const approvals = (statement.all(runId) as ApprovalRow[]).map(approvalFromRow);
 */
export function approvalFromRow(row: ApprovalRow): StoredApproval {
  return { ...approvalDecisionFromRow(row), request: parseJsonObject(row.request, 'approvals.request') };
}

/** The columns of an approval but its request. */
export const APPROVAL_DECISION_COLUMNS = 'seq, run_id, tool_call_id, owner, tool, group_id, created_at, decision, schema_version';

/**
 * An approval without its request, its decision parsed back to an object.
 *
 * @example
 * const decisions = (statement.all(runId) as Array<Omit<ApprovalRow, 'request'>>).map(approvalDecisionFromRow);
 */
export function approvalDecisionFromRow(row: Omit<ApprovalRow, 'request'>): StoredApprovalDecision {
  return {
    ...approvalFields(row),
    decision: row.decision === null ? null : (parseJsonObject(row.decision, 'approvals.decision') as unknown as StoredDecision),
  };
}

/**
 * An undecided approval with its request left as the stored text.
 *
 * @example
 * const approvals = rows.map(approvalTextFromRow);
 */
export function approvalTextFromRow(row: ApprovalRow): StoredApprovalText {
  return { ...approvalFields(row), requestText: row.request };
}

/** What every form of an approval has: neither its request nor its decision. */
function approvalFields(row: Omit<ApprovalRow, 'request' | 'decision'>): Omit<StoredApprovalText, 'requestText'> {
  return {
    runId: row.run_id,
    toolCallId: row.tool_call_id,
    owner: row.owner,
    tool: row.tool,
    groupId: row.group_id,
    createdAt: row.created_at,
    schemaVersion: row.schema_version,
  };
}

/**
 * An event with its data parsed back to an object.
 *
 * @example
 * const events = (statement.all(afterId) as EventRow[]).map(eventFromRow);
 */
export function eventFromRow(row: EventRow): StoredEvent {
  return { id: row.id, runId: row.run_id, owner: row.owner, type: row.type, data: parseJsonObject(row.data, 'events.data'), at: row.at };
}

/**
 * A ledger record.
 *
 * @example
 * const call = callFromRow(statement.get(runId, toolCallId) as CallRow);
 */
export function callFromRow(row: CallRow): StoredCall {
  return {
    runId: row.run_id,
    toolCallId: row.tool_call_id,
    tool: row.tool,
    input: row.input,
    status: row.status as CallStatus,
    output: row.output,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/**
 * A token record (its hash, never the token).
 *
 * @example
 * const token = tokenFromRow(statement.get(hash) as TokenRow);
 */
export function tokenFromRow(row: TokenRow): StoredToken {
  return { name: row.name, role: row.role as TokenRole, hash: row.hash, createdAt: row.created_at, revokedAt: row.revoked_at };
}

/**
 * A remembered decision from its JSON column.
 *
 * @example
 * rememberedFromText('{"approved":false,"reason":"no"}'); // { approved: false, reason: 'no' }
 */
export function rememberedFromText(text: string): RememberedRecord {
  // Written by `remember` from a RememberedRecord; only its own fields are kept.
  const parsed = parseJsonObject(text, 'memory.decision');
  if (typeof parsed.approved !== 'boolean') throw new Error(`memory.decision holds ${text}, expected {"approved": boolean, ...}`);
  return {
    approved: parsed.approved,
    ...(typeof parsed.reason === 'string' ? { reason: parsed.reason } : {}),
    ...(typeof parsed.mac === 'string' ? { mac: parsed.mac } : {}),
    ...(isShown(parsed.shown) ? { shown: parsed.shown } : {}),
  };
}

/** A remembered decision's `shown`, as `remember` writes it; anything else is left out. */
function isShown(value: unknown): value is RememberedShown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const shown = value as Record<string, unknown>;
  return typeof shown.tool === 'string' && typeof shown.description === 'string' && typeof shown.at === 'string' && (shown.by === undefined || typeof shown.by === 'string');
}

/**
 * A remembered decision as its JSON column holds it: its own fields only.
 *
 * @example
 * rememberedText({ approved: true }, 'k'); // '{"approved":true}'
 */
export function rememberedText(decision: RememberedRecord, key: string): string {
  const own = {
    approved: decision.approved,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    ...(decision.mac === undefined ? {} : { mac: decision.mac }),
    ...(decision.shown === undefined ? {} : { shown: decision.shown }),
  };
  return jsonObjectText(own, `remembered decision ${key}`);
}

/**
 * A JSON column's object; throws naming the column for anything else.
 *
 * @example
 * parseJsonObject(row.request, 'approvals.request');
 */
export function parseJsonObject(text: string, column: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`the store's ${column} holds ${text.slice(0, 80)}, expected a JSON object`);
  return parsed as Record<string, unknown>;
}

