/**
 * The embedded store of `toolgate serve`: one SQLite file (better-sqlite3,
 * WAL, every commit synced), shared safely by several processes. Writes are
 * group-committed (`sqlite-group-commit.ts`): those queued in one turn of the
 * event loop share one IMMEDIATE transaction and its one fsync, each inside
 * its own savepoint, so a write that fails or loses a compare-and-set changes
 * nothing and leaves the others alone. IMMEDIATE takes SQLite's single write
 * lock at the start: writers of other processes queue (up to the busy
 * timeout) instead of failing half way, and events get their ids in commit
 * order. A write's promise resolves only once its commit is durable; reads
 * run at once and see every write whose promise has resolved.
 */
import type Database from 'better-sqlite3';
import { createGroupCommit, type GroupCommit, type GroupCommitHooks } from './sqlite-group-commit.ts';
import { openSqliteDatabase } from './sqlite-schema.ts';
import {
  type ApprovalRow,
  type CallRow,
  type EventRow,
  type RunRow,
  type TokenRow,
  approvalFromRow,
  callFromRow,
  checkLimit,
  decodeRunCursor,
  eventFromRow,
  jsonObjectText,
  rememberedFromText,
  runFromRow,
  pageOf,
  tokenFromRow,
} from './sqlite-rows.ts';
import { StoreError } from './sqlite-store-error.ts';
import { RUN_STATUSES, STORE_SCHEMA_VERSION } from './store.ts';
import type { DecideResult, NewApproval, NewEvent, RunChange, RunStatus, StoredEvent, StoredRun, ToolgateStore } from './store.ts';

export interface SqliteStoreOptions {
  /** The database file; its directory is created when missing. */
  file: string;
  /** How long a writer waits for another process's write lock before failing. Default 10 s. */
  busyTimeoutMs?: number;
  /** The clock for every stored time. Default `new Date()`. */
  now?: () => Date;
  /** A batch commits as soon as it holds this many writes. Default 256. */
  maxBatch?: number;
  /** What tests watch of the batches (how many commits, a COMMIT made to fail). */
  hooks?: GroupCommitHooks;
}

/**
 * Opens the SQLite store at `file`, creating it (mode 0600) when missing.
 * Throws a `StoreError` when the file is not a SQLite database, belongs to
 * another program, or was written by a newer toolgate.
 *
 * @example
 * const store = openSqliteStore({ file: '.toolgate/toolgate.db' });
 * const { run } = await store.createRun(newRun, [{ runId: newRun.runId, owner: newRun.owner, type: 'run_started', data: {} }]);
 * await store.close();
 */
export function openSqliteStore(options: SqliteStoreOptions): ToolgateStore {
  const database = openSqliteDatabase({ file: options.file, busyTimeoutMs: options.busyTimeoutMs ?? 10_000 });
  const now = () => (options.now ?? (() => new Date()))().toISOString();

  // Each distinct SQL text is prepared once, on first use.
  const prepared = new Map<string, Database.Statement>();
  const statement = (sql: string): Database.Statement => {
    let found = prepared.get(sql);
    if (found === undefined) {
      found = database.prepare(sql);
      prepared.set(sql, found);
    }
    return found;
  };
  let commits: GroupCommit;
  try {
    commits = createGroupCommit({ database, ...(options.maxBatch === undefined ? {} : { maxBatch: options.maxBatch }), ...(options.hooks === undefined ? {} : { hooks: options.hooks }) });
  } catch (error) {
    database.close();
    throw error;
  }
  /** Queues a write: it runs in the next batch, inside its own savepoint, and resolves once that batch's commit is durable. */
  const batchedWrite = <Result>(work: () => Result): Promise<Result> => commits.write(work);

  const readRun = (runId: string): StoredRun | undefined => {
    const row = statement('SELECT * FROM runs WHERE run_id = ?').get(runId) as RunRow | undefined;
    return row === undefined ? undefined : runFromRow(row);
  };

  const insertEvents = (events: readonly NewEvent[]): StoredEvent[] => {
    const insert = statement('INSERT INTO events (run_id, owner, type, data, at, schema_version) VALUES (?, ?, ?, ?, ?, ?)');
    return events.map((event) => {
      const at = now();
      const data = jsonObjectText(event.data, `event ${event.type} data`);
      const id = Number(insert.run(event.runId, event.owner, event.type, data, at, STORE_SCHEMA_VERSION).lastInsertRowid);
      return { id, runId: event.runId, owner: event.owner, type: event.type, data: JSON.parse(data) as Record<string, unknown>, at };
    });
  };

  const insertApprovals = (approvals: readonly NewApproval[]): void => {
    const insert = statement(
      `INSERT INTO approvals (run_id, tool_call_id, owner, tool, group_id, request, created_at, decision, schema_version)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
    );
    for (const approval of approvals) {
      const request = jsonObjectText(approval.request, `approval ${approval.toolCallId} request`);
      insert.run(approval.runId, approval.toolCallId, approval.owner, approval.tool, approval.groupId, request, now(), STORE_SCHEMA_VERSION);
    }
  };

  /** Compare-and-set: only the revision the caller read moves; false (nothing written) when it does not. */
  const moveRun = (runId: string, revision: number, change: RunChange): boolean => {
    const moved = statement(
      `UPDATE runs SET
         status = CASE WHEN @setStatus THEN @status ELSE status END,
         state = CASE WHEN @setState THEN @state ELSE state END,
         text = CASE WHEN @setText THEN @text ELSE text END,
         error = CASE WHEN @setError THEN @error ELSE error END,
         updated_at = @now, revision = revision + 1, schema_version = @schemaVersion
       WHERE run_id = @runId AND revision = @revision`,
    ).run({
      runId,
      revision,
      now: now(),
      schemaVersion: STORE_SCHEMA_VERSION,
      setStatus: change.status === undefined ? 0 : 1,
      status: change.status ?? null,
      setState: change.state === undefined ? 0 : 1,
      state: change.state ?? null,
      setText: change.text === undefined ? 0 : 1,
      text: change.text ?? null,
      setError: change.error === undefined ? 0 : 1,
      error: change.error ?? null,
    });
    return moved.changes === 1;
  };

  const store: ToolgateStore = {
    kind: 'sqlite',

    async createRun(run, events) {
      if (run.status !== 'running') {
        throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `createRun: a new run's status must be "running", got ${JSON.stringify(run.status)}` });
      }
      return batchedWrite(() => {
        const at = now();
        statement(
          `INSERT INTO runs (run_id, owner, status, mode, session_id, chat_id, model, input, state, text, error, created_at, updated_at, revision, schema_version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, 1, ?)`,
        ).run(run.runId, run.owner, run.status, run.mode, run.sessionId, run.chatId, run.model, run.input, run.state, at, at, STORE_SCHEMA_VERSION);
        const stored = insertEvents(events);
        return { run: readRun(run.runId) as StoredRun, events: stored };
      });
    },

    async getRun(runId) {
      return readRun(runId);
    },

    async listRuns(query) {
      const limit = checkLimit(query.limit, 'listRuns limit');
      const conditions: string[] = [];
      const parameters: Record<string, string | number> = { limit: limit + 1 };
      if (query.owner !== undefined) {
        conditions.push('owner = @owner');
        parameters.owner = query.owner;
      }
      if (query.status !== undefined) {
        conditions.push('status = @status');
        parameters.status = query.status;
      }
      if (query.before !== undefined) {
        conditions.push('seq < @before');
        parameters.before = decodeRunCursor(query.before);
      }
      const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
      const rows = statement(`SELECT * FROM runs ${where} ORDER BY seq DESC LIMIT @limit`).all(parameters) as RunRow[];
      const { items, next } = pageOf({ rows, limit, map: runFromRow });
      return { runs: items, next };
    },

    async decidedPausedRuns() {
      const rows = statement(
        `SELECT * FROM runs WHERE status = 'paused_checkpoint' AND NOT EXISTS (SELECT 1 FROM approvals WHERE approvals.run_id = runs.run_id AND approvals.decision IS NULL) ORDER BY seq`,
      ).all() as RunRow[];
      return rows.map(runFromRow);
    },

    async countRuns() {
      const counts = Object.fromEntries(RUN_STATUSES.map((status) => [status, 0])) as Record<RunStatus, number>;
      const rows = statement('SELECT status, count(*) AS count FROM runs GROUP BY status').all() as Array<{ status: RunStatus; count: number }>;
      for (const row of rows) counts[row.status] = row.count;
      return counts;
    },

    async updateRun(runId, revision, change, extra = {}) {
      return batchedWrite(() => {
        if (!moveRun(runId, revision, change)) return undefined;
        if (extra.dropApprovals === true) statement('DELETE FROM approvals WHERE run_id = ? AND decision IS NULL').run(runId);
        insertApprovals(extra.approvals ?? []);
        const events = insertEvents(extra.events ?? []);
        return { run: readRun(runId) as StoredRun, events };
      });
    },

    async listApprovals(query) {
      const conditions: string[] = [];
      const parameters: Record<string, string> = {};
      if (query.runId !== undefined) {
        conditions.push('run_id = @runId');
        parameters.runId = query.runId;
      }
      if (query.owner !== undefined) {
        conditions.push('owner = @owner');
        parameters.owner = query.owner;
      }
      if (query.includeDecided !== true) conditions.push('decision IS NULL');
      const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
      const rows = statement(`SELECT * FROM approvals ${where} ORDER BY seq`).all(parameters) as ApprovalRow[];
      return rows.map(approvalFromRow);
    },

    async listPendingApprovals(query) {
      const limit = checkLimit(query.limit, 'listPendingApprovals limit');
      const conditions = ['decision IS NULL'];
      const parameters: Record<string, string | number> = { limit: limit + 1 };
      if (query.owner !== undefined) {
        conditions.push('owner = @owner');
        parameters.owner = query.owner;
      }
      if (query.after !== undefined) {
        conditions.push('seq > @after');
        parameters.after = decodeRunCursor(query.after);
      }
      const rows = statement(`SELECT * FROM approvals WHERE ${conditions.join(' AND ')} ORDER BY seq LIMIT @limit`).all(parameters) as ApprovalRow[];
      const { items, next } = pageOf({ rows, limit, map: approvalFromRow });
      return { approvals: items, next };
    },

    async decideApprovals(runId, calls, decision, resume) {
      const text = jsonObjectText(decision, `decision on ${calls.map((call) => call.toolCallId).join(', ')}`);
      return batchedWrite(() => {
        const decide = statement('UPDATE approvals SET decision = ? WHERE run_id = ? AND tool_call_id = ? AND decision IS NULL');
        const decided: string[] = [];
        const events: StoredEvent[] = [];
        for (const call of calls) {
          if (decide.run(text, runId, call.toolCallId).changes === 0) continue;
          decided.push(call.toolCallId);
          events.push(...insertEvents(call.events ?? []));
        }
        const waiting = statement('SELECT tool_call_id FROM approvals WHERE run_id = ? AND decision IS NULL ORDER BY seq').pluck().all(runId) as string[];
        const result: DecideResult = { decided, waiting, events };
        if (resume !== undefined && decided.length === calls.length && waiting.length === 0 && moveRun(runId, resume.revision, { status: 'running' })) {
          result.resumed = { run: readRun(runId) as StoredRun, events: insertEvents(resume.events) };
        }
        return result;
      });
    },

    async appendEvents(events) {
      return batchedWrite(() => insertEvents(events));
    },

    async readEvents(query) {
      const limit = checkLimit(query.limit, 'readEvents limit');
      if (!Number.isSafeInteger(query.afterId) || query.afterId < 0) {
        throw new StoreError({ code: 'STORE_INVALID_QUERY', message: `readEvents afterId must be an integer >= 0, got ${JSON.stringify(query.afterId)}` });
      }
      const conditions = ['id > @afterId'];
      const parameters: Record<string, string | number> = { afterId: query.afterId, limit };
      if (query.runId !== undefined) {
        conditions.push('run_id = @runId');
        parameters.runId = query.runId;
      }
      if (query.owner !== undefined) {
        conditions.push('owner = @owner');
        parameters.owner = query.owner;
      }
      const rows = statement(`SELECT id, run_id, owner, type, data, at FROM events WHERE ${conditions.join(' AND ')} ORDER BY id LIMIT @limit`).all(parameters) as EventRow[];
      return rows.map(eventFromRow);
    },

    async lastEventId() {
      return statement('SELECT coalesce(max(id), 0) FROM events').pluck().get() as number;
    },

    async beginCall(call) {
      // The UNIQUE (run_id, tool_call_id) decides between racing processes: exactly one insert lands.
      const insert = statement(
        `INSERT INTO calls (run_id, tool_call_id, tool, input, status, output, started_at, finished_at, schema_version)
         VALUES (?, ?, ?, ?, 'executing', NULL, ?, NULL, ?) ON CONFLICT (run_id, tool_call_id) DO NOTHING`,
      );
      return batchedWrite(() => insert.run(call.runId, call.toolCallId, call.tool, call.input, now(), STORE_SCHEMA_VERSION).changes === 1);
    },

    async finishCall(runId, toolCallId, status, output) {
      if (status !== 'completed' && status !== 'failed' && status !== 'interrupted') {
        throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `finishCall: status must be completed, failed or interrupted, got ${JSON.stringify(status)}` });
      }
      await batchedWrite(() => {
        const ended = statement(`UPDATE calls SET status = ?, output = ?, finished_at = ? WHERE run_id = ? AND tool_call_id = ? AND status = 'executing'`).run(
          status,
          output,
          now(),
          runId,
          toolCallId,
        );
        if (ended.changes === 0 && statement('SELECT 1 FROM calls WHERE run_id = ? AND tool_call_id = ?').get(runId, toolCallId) === undefined) {
          throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `finishCall: no call ${toolCallId} of run ${runId} was begun (beginCall records it before it runs)` });
        }
      });
    },

    async getCall(runId, toolCallId) {
      const row = statement('SELECT * FROM calls WHERE run_id = ? AND tool_call_id = ?').get(runId, toolCallId) as CallRow | undefined;
      return row === undefined ? undefined : callFromRow(row);
    },

    async listCalls(runId) {
      return (statement('SELECT * FROM calls WHERE run_id = ? ORDER BY seq').all(runId) as CallRow[]).map(callFromRow);
    },

    async remember(entry) {
      const decision = jsonObjectText(
        entry.decision.reason === undefined ? { approved: entry.decision.approved } : { approved: entry.decision.approved, reason: entry.decision.reason },
        `remembered decision ${entry.key}`,
      );
      const upsert = statement(
        `INSERT INTO memory (key, session_id, chat_id, decision, updated_at, schema_version) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET session_id = excluded.session_id, chat_id = excluded.chat_id, decision = excluded.decision,
           updated_at = excluded.updated_at, schema_version = excluded.schema_version`,
      );
      await batchedWrite(() => upsert.run(entry.key, entry.sessionId, entry.chatId, decision, now(), STORE_SCHEMA_VERSION));
    },

    async recall(key) {
      const text = statement('SELECT decision FROM memory WHERE key = ?').pluck().get(key) as string | undefined;
      return text === undefined ? undefined : rememberedFromText(text);
    },

    async allRemembered() {
      const rows = statement('SELECT key, decision FROM memory ORDER BY key').all() as Array<{ key: string; decision: string }>;
      return rows.map((row) => ({ key: row.key, decision: rememberedFromText(row.decision) }));
    },

    async forgetChat(sessionId, chatId) {
      // IS, not =: the null chat is a chat of its own, forgotten only when asked for.
      return batchedWrite(() => statement('DELETE FROM memory WHERE session_id = ? AND chat_id IS ?').run(sessionId, chatId).changes);
    },

    async createToken(token) {
      // A taken name (revoked or not) or, astronomically unlikely, a taken hash: nothing is written.
      const insert = statement(`INSERT INTO tokens (name, role, hash, created_at, revoked_at, schema_version) VALUES (?, ?, ?, ?, NULL, ?) ON CONFLICT DO NOTHING`);
      return batchedWrite(() => insert.run(token.name, token.role, token.hash, now(), STORE_SCHEMA_VERSION).changes === 1);
    },

    async findToken(hash) {
      const row = statement('SELECT * FROM tokens WHERE hash = ? AND revoked_at IS NULL').get(hash) as TokenRow | undefined;
      return row === undefined ? undefined : tokenFromRow(row);
    },

    async listTokens() {
      return (statement('SELECT * FROM tokens ORDER BY created_at, name').all() as TokenRow[]).map(tokenFromRow);
    },

    async revokeToken(name) {
      return batchedWrite(() => statement('UPDATE tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL').run(now(), name).changes === 1);
    },

    async close() {
      if (!database.open) return;
      // What is queued commits first: a write accepted before close is not dropped.
      try {
        commits.flush();
      } finally {
        database.close();
      }
    },
  };
  return store;
}
