/**
 * Every write of the SQLite store, as plain data in and out: JSON is made
 * (and checked) by the caller, times are the caller's clock, and what comes
 * back is rows and ids. Each write runs inside the group commit's
 * transaction (`sqlite-group-commit.ts`) and must not await.
 */
import type Database from 'better-sqlite3';
import { preparedStatements } from './sqlite-statements.ts';
import type { RunRow } from './sqlite-rows.ts';
import { StoreError } from './sqlite-store-error.ts';
import type { DeliveryRow } from './sqlite-rows.ts';
import { STORE_SCHEMA_VERSION, type NewDelivery, type NewRun, type RunChange, type StoreOutbox, type TokenRole } from './store.ts';

/** An event to insert, its data already JSON text. */
export interface EventText {
  runId: string;
  owner: string;
  type: string;
  data: string;
}

/** An approval to insert, its request already JSON text. */
export interface ApprovalText {
  runId: string;
  toolCallId: string;
  owner: string;
  tool: string;
  groupId: string | null;
  request: string;
}

/** What each write takes; `at` is the time every record it writes gets. */
export interface WriteRequests {
  createRun: { run: NewRun; events: EventText[]; at: string };
  updateRun: { runId: string; revision: number; change: RunChange; events: EventText[]; approvals: ApprovalText[]; dropApprovals: boolean; at: string };
  decideApprovals: { runId: string; calls: Array<{ toolCallId: string; events: EventText[] }>; decision: string; resume?: { revision: number; events: EventText[] }; at: string };
  appendEvents: { events: EventText[]; at: string };
  beginCall: { runId: string; toolCallId: string; tool: string; input: string; at: string };
  finishCall: { runId: string; toolCallId: string; status: 'completed' | 'failed' | 'interrupted'; output: string | null; events: EventText[]; at: string };
  recordStep: { runId: string; seq: number; body: string; at: string };
  remember: { key: string; sessionId: string; chatId: string | null; decision: string; at: string };
  forgetChat: { sessionId: string; chatId: string | null };
  forgetRemembered: { key: string };
  createToken: { name: string; role: TokenRole; hash: string; at: string };
  revokeToken: { name: string; at: string };
  enqueueDeliveries: { deliveries: NewDelivery[]; at: string };
  claimDeliveries: { now: string; leaseUntil: string; limit: number };
  finishDelivery: { id: string; outcome: Parameters<StoreOutbox['finishDelivery']>[1] };
}

/** What each write answers: rows as read inside its transaction, and the ids its events got. */
export interface WriteResults {
  createRun: { run: RunRow; eventIds: number[] };
  updateRun: { run: RunRow; eventIds: number[] } | undefined;
  decideApprovals: { decided: string[]; waiting: string[]; eventIds: number[]; resumed?: { run: RunRow; eventIds: number[] } };
  appendEvents: number[];
  beginCall: boolean;
  finishCall: number[];
  recordStep: boolean;
  remember: void;
  forgetChat: number;
  forgetRemembered: boolean;
  createToken: boolean;
  revokeToken: boolean;
  enqueueDeliveries: number;
  claimDeliveries: DeliveryRow[];
  finishDelivery: void;
}

export type WriteKind = keyof WriteRequests;

export type SqliteWrites = { [Kind in WriteKind]: (request: WriteRequests[Kind]) => WriteResults[Kind] };

/**
 * The writes on one connection; each distinct statement is prepared once.
 *
 * @example
 * const writes = createSqliteWrites(database);
 * commits.write(() => writes.appendEvents({ events, at: new Date().toISOString() }));
 */
export function createSqliteWrites(database: Database.Database): SqliteWrites {
  const statement = preparedStatements(database);
  const readRun = (runId: string): RunRow => statement('SELECT * FROM runs WHERE run_id = ?').get(runId) as RunRow;

  const insertEvents = (events: readonly EventText[], at: string): number[] => {
    const insert = statement('INSERT INTO events (run_id, owner, type, data, at, schema_version) VALUES (?, ?, ?, ?, ?, ?)');
    return events.map((event) => Number(insert.run(event.runId, event.owner, event.type, event.data, at, STORE_SCHEMA_VERSION).lastInsertRowid));
  };

  /** Compare-and-set: only the revision the caller read moves; the run as it now stands, or undefined (nothing written) when it does not. */
  const moveRun = (runId: string, revision: number, change: RunChange, at: string): RunRow | undefined =>
    statement(
      `UPDATE runs SET
         status = CASE WHEN @setStatus THEN @status ELSE status END,
         state = CASE WHEN @setState THEN @state ELSE state END,
         text = CASE WHEN @setText THEN @text ELSE text END,
         error = CASE WHEN @setError THEN @error ELSE error END,
         updated_at = @now, revision = revision + 1, schema_version = @schemaVersion
       WHERE run_id = @runId AND revision = @revision
       RETURNING *`,
    ).get({
      runId,
      revision,
      now: at,
      schemaVersion: STORE_SCHEMA_VERSION,
      setStatus: change.status === undefined ? 0 : 1,
      status: change.status ?? null,
      setState: change.state === undefined ? 0 : 1,
      state: change.state ?? null,
      setText: change.text === undefined ? 0 : 1,
      text: change.text ?? null,
      setError: change.error === undefined ? 0 : 1,
      error: change.error ?? null,
    }) as RunRow | undefined;

  return {
    createRun({ run, events, at }) {
      statement(
        `INSERT INTO runs (run_id, owner, status, mode, session_id, chat_id, model, input, state, text, error, created_at, updated_at, revision, schema_version)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, 1, ?)`,
      ).run(run.runId, run.owner, run.status, run.mode, run.sessionId, run.chatId, run.model, run.input, run.state, at, at, STORE_SCHEMA_VERSION);
      const eventIds = insertEvents(events, at);
      return { run: readRun(run.runId), eventIds };
    },

    updateRun({ runId, revision, change, events, approvals, dropApprovals, at }) {
      const moved = moveRun(runId, revision, change, at);
      if (moved === undefined) return undefined;
      if (dropApprovals) statement('DELETE FROM approvals WHERE run_id = ? AND decision IS NULL').run(runId);
      const insert = statement(
        `INSERT INTO approvals (run_id, tool_call_id, owner, tool, group_id, request, created_at, decision, schema_version)
         VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
      );
      for (const approval of approvals) insert.run(approval.runId, approval.toolCallId, approval.owner, approval.tool, approval.groupId, approval.request, at, STORE_SCHEMA_VERSION);
      // The rows added below do not change the run's own row.
      return { run: moved, eventIds: insertEvents(events, at) };
    },

    decideApprovals({ runId, calls, decision, resume, at }) {
      const decide = statement('UPDATE approvals SET decision = ? WHERE run_id = ? AND tool_call_id = ? AND decision IS NULL');
      const decided: string[] = [];
      const eventIds: number[] = [];
      for (const call of calls) {
        if (decide.run(decision, runId, call.toolCallId).changes === 0) continue;
        decided.push(call.toolCallId);
        eventIds.push(...insertEvents(call.events, at));
      }
      const waiting = statement('SELECT tool_call_id FROM approvals WHERE run_id = ? AND decision IS NULL ORDER BY seq').pluck().all(runId) as string[];
      const result: WriteResults['decideApprovals'] = { decided, waiting, eventIds };
      // The claim: only when this decision stands on every call named and nothing is left to decide.
      const resumed = resume !== undefined && decided.length === calls.length && waiting.length === 0 ? moveRun(runId, resume.revision, { status: 'running' }, at) : undefined;
      if (resumed !== undefined) result.resumed = { run: resumed, eventIds: insertEvents(resume!.events, at) };
      return result;
    },

    appendEvents({ events, at }) {
      return insertEvents(events, at);
    },

    beginCall({ runId, toolCallId, tool, input, at }) {
      // The UNIQUE (run_id, tool_call_id) decides between racing processes: exactly one insert lands.
      return (
        statement(
          `INSERT INTO calls (run_id, tool_call_id, tool, input, status, output, started_at, finished_at, schema_version)
           VALUES (?, ?, ?, ?, 'executing', NULL, ?, NULL, ?) ON CONFLICT (run_id, tool_call_id) DO NOTHING`,
        ).run(runId, toolCallId, tool, input, at, STORE_SCHEMA_VERSION).changes === 1
      );
    },

    finishCall({ runId, toolCallId, status, output, events, at }) {
      const ended = statement(`UPDATE calls SET status = ?, output = ?, finished_at = ? WHERE run_id = ? AND tool_call_id = ? AND status = 'executing'`).run(status, output, at, runId, toolCallId);
      if (ended.changes === 1) return insertEvents(events, at);
      if (statement('SELECT 1 FROM calls WHERE run_id = ? AND tool_call_id = ?').get(runId, toolCallId) === undefined) {
        throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `finishCall: no call ${toolCallId} of run ${runId} was begun (beginCall records it before it runs)` });
      }
      // Ended before: the first ending stands, with its events.
      return [];
    },

    recordStep({ runId, seq, body, at }) {
      // The primary key (run_id, seq) decides between two drives of one run: the first answer recorded stands.
      return (
        statement(`INSERT INTO steps (run_id, seq, body, recorded_at, schema_version) VALUES (?, ?, ?, ?, ?) ON CONFLICT (run_id, seq) DO NOTHING`).run(runId, seq, body, at, STORE_SCHEMA_VERSION)
          .changes === 1
      );
    },
    ...keptWrites(statement),
  };
}

/** The writes of remembered decisions, tokens and the outbox: single statements, no run moved. */
function keptWrites(statement: ReturnType<typeof preparedStatements>): Pick<SqliteWrites, 'remember' | 'forgetChat' | 'forgetRemembered' | 'createToken' | 'revokeToken' | 'enqueueDeliveries' | 'claimDeliveries' | 'finishDelivery'> {
  return {
    remember({ key, sessionId, chatId, decision, at }) {
      statement(
        `INSERT INTO memory (key, session_id, chat_id, decision, updated_at, schema_version) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET session_id = excluded.session_id, chat_id = excluded.chat_id, decision = excluded.decision,
           updated_at = excluded.updated_at, schema_version = excluded.schema_version`,
      ).run(key, sessionId, chatId, decision, at, STORE_SCHEMA_VERSION);
    },

    forgetChat({ sessionId, chatId }) {
      // IS, not =: the null chat is a chat of its own, forgotten only when asked for.
      return statement('DELETE FROM memory WHERE session_id = ? AND chat_id IS ?').run(sessionId, chatId).changes;
    },

    forgetRemembered({ key }) {
      return statement('DELETE FROM memory WHERE key = ?').run(key).changes === 1;
    },

    createToken({ name, role, hash, at }) {
      // A taken name (revoked or not) or, astronomically unlikely, a taken hash: nothing is written.
      return statement(`INSERT INTO tokens (name, role, hash, created_at, revoked_at, schema_version) VALUES (?, ?, ?, ?, NULL, ?) ON CONFLICT DO NOTHING`).run(name, role, hash, at, STORE_SCHEMA_VERSION).changes === 1;
    },

    revokeToken({ name, at }) {
      return statement('UPDATE tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL').run(at, name).changes === 1;
    },

    enqueueDeliveries({ deliveries, at }) {
      const insert = statement(
        `INSERT INTO outbox (id, channel, run_id, tool_call_id, body, mac, status, attempts, next_attempt_at, leased_until, last_error, created_at, delivered_at, schema_version)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, NULL, NULL, ?, NULL, ?) ON CONFLICT (id) DO NOTHING`,
      );
      return deliveries.reduce((added, delivery) => added + insert.run(delivery.id, delivery.channel, delivery.runId, delivery.toolCallId, delivery.body, delivery.mac, at, at, STORE_SCHEMA_VERSION).changes, 0);
    },

    claimDeliveries({ now, leaseUntil, limit }) {
      return statement(
        `UPDATE outbox SET leased_until = @leaseUntil, attempts = attempts + 1
         WHERE seq IN (
           SELECT seq FROM outbox WHERE status = 'pending' AND next_attempt_at <= @now AND (leased_until IS NULL OR leased_until <= @now)
           ORDER BY next_attempt_at, seq LIMIT @limit)
         RETURNING *`,
      )
        .all({ now, leaseUntil, limit })
        .sort((left, right) => (left as DeliveryRow).seq - (right as DeliveryRow).seq) as DeliveryRow[];
    },

    finishDelivery({ id, outcome }) {
      if (outcome.status === 'delivered') statement(`UPDATE outbox SET status = 'delivered', delivered_at = ?, receipt = ?, leased_until = NULL, last_error = NULL WHERE id = ?`).run(outcome.at, outcome.receipt ?? null, id);
      else if (outcome.status === 'pending') statement(`UPDATE outbox SET next_attempt_at = ?, leased_until = NULL, last_error = ? WHERE id = ? AND status = 'pending'`).run(outcome.retryAt, outcome.error, id);
      else statement(`UPDATE outbox SET status = 'dead', leased_until = NULL, last_error = ? WHERE id = ? AND status = 'pending'`).run(outcome.error, id);
    },
  };
}
