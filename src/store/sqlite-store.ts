/**
 * The embedded store of `toolgate serve`: one SQLite file (better-sqlite3,
 * WAL, every commit synced), shared safely by several processes. Writes are
 * group-committed (`sqlite-group-commit.ts`): those queued in one turn of the
 * event loop share one IMMEDIATE transaction, each inside
 * its own savepoint, so a write that fails or loses a compare-and-set changes
 * nothing and leaves the others alone. IMMEDIATE takes SQLite's single write
 * lock at the start: writers of other processes queue (up to the busy
 * timeout) instead of failing half way, and events get their ids in commit
 * order. A write's promise resolves only once its commit is durable: the
 * WAL is fdatasync'ed on the thread pool (`sqlite-wal-sync.ts`), and
 * commits made meanwhile share the next sync. Reads run at once and see
 * every write whose promise has resolved, and also writes committed but not
 * yet synced: nothing acts on those (every effect waits for a write of its
 * own, whose sync covers them), but a power cut could take them back, so
 * events are streamed only once they are synced. The writes themselves are
 * in `sqlite-writes.ts`. The WAL is checkpointed on a worker thread
 * (`sqlite-checkpointer.ts`), not inside a COMMIT on the event loop.
 *
 * Writes on a worker thread's connection (so that no fsync holds up the
 * event loop) were measured and dropped: every commit from another
 * connection makes this one drop its page cache, and with the cost of
 * passing writes between threads an approval took 780–860 µs of CPU
 * instead of 550 µs, at 1,400–1,600 approvals/s instead of 1,760.
 */
import type Database from 'better-sqlite3';
import { preparedStatements } from './sqlite-statements.ts';
import { createGroupCommit, type GroupCommit, type GroupCommitHooks } from './sqlite-group-commit.ts';
import { createSqliteWrites, type EventText, type WriteKind, type WriteRequests, type WriteResults } from './sqlite-writes.ts';
import { openSqliteDatabase } from './sqlite-schema.ts';
import { openWalSync, type WalSync } from './sqlite-wal-sync.ts';
import { SAFETY_NET_PAGES, startCheckpointer, type Checkpointer } from './sqlite-checkpointer.ts';
import {
  type ApprovalRow,
  type CallRow,
  type DeliveryRow,
  type EventRow,
  deliveryFromRow,
  type RunRow,
  type TokenRow,
  approvalDecisionFromRow,
  approvalFromRow,
  approvalTextFromRow,
  APPROVAL_DECISION_COLUMNS,
  callFromRow,
  checkLimit,
  checkStep,
  type StepRow,
  stepFromRow,
  decidedCalls,
  decodeRunCursor,
  eventFromRow,
  jsonObjectText,
  rememberedFromText,
  rememberedText,
  runFromRow,
  pageOf,
  tokenFromRow,
} from './sqlite-rows.ts';
import { sqlFilter } from './sql-filter.ts';
import { StoreError } from './sqlite-store-error.ts';
import { RUN_STATUSES } from './store.ts';
import type { DecideResult, DeliveryStatus, NewEvent, PendingApprovalsQuery, RunStatus, StoredEvent, StoredRun, ToolgateStore } from './store.ts';

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
  /** Told when a WAL checkpoint fails (`sqlite-checkpointer.ts`); nothing committed is at risk, but until one succeeds the store connection checkpoints itself, on the event loop, each time the WAL reaches 4,000 pages. */
  onCheckpointError?: (error: Error) => void;
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

  const statement = preparedStatements(database);
  let walSync: WalSync;
  let commits: GroupCommit;
  try {
    walSync = openWalSync(`${options.file}-wal`);
  } catch (error) {
    database.close();
    throw error;
  }
  // Checkpoints run on a worker; this connection's own automatic checkpoint is only the net under it.
  database.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
  const checkpointer: Checkpointer = startCheckpointer({ file: options.file, ...(options.onCheckpointError === undefined ? {} : { onError: options.onCheckpointError }) });
  const hooks = options.hooks ?? {};
  try {
    commits = createGroupCommit({
      database,
      sync: walSync.sync,
      ...(options.maxBatch === undefined ? {} : { maxBatch: options.maxBatch }),
      hooks: {
        ...hooks,
        afterCommit: (batch) => {
          checkpointer.committed();
          hooks.afterCommit?.(batch);
        },
      },
    });
  } catch (error) {
    // No commit was made, so no worker was started: there is nothing to wait for.
    void checkpointer.close();
    walSync.close();
    database.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const writes = createSqliteWrites(database);
  /** Queues a write: it runs in the next batch, inside its own savepoint, and resolves once that batch's commit is durable. */
  const write = <Kind extends WriteKind>(kind: Kind, request: WriteRequests[Kind]): Promise<WriteResults[Kind]> => commits.write(() => writes[kind](request));

  const readRun = (runId: string): StoredRun | undefined => {
    const row = statement('SELECT * FROM runs WHERE run_id = ?').get(runId) as RunRow | undefined;
    return row === undefined ? undefined : runFromRow(row);
  };

  /** Events as the writer takes them: their data checked and made JSON text here. */
  const eventTexts = (events: readonly NewEvent[]): EventText[] =>
    events.map((event) => ({ runId: event.runId, owner: event.owner, type: event.type, data: jsonObjectText(event.data, `event ${event.type} data`) }));

  /** The stored events: the ids the writer gave them, in order. */
  const storedEvents = (events: readonly EventText[], ids: readonly number[], at: string): StoredEvent[] =>
    events.map((event, index) => ({ id: ids[index]!, runId: event.runId, owner: event.owner, type: event.type, data: JSON.parse(event.data) as Record<string, unknown>, at }));

  /** One page of undecided approvals, oldest first (`LIMIT limit + 1`, for `pageOf`). */
  const pendingApprovalRows = (query: PendingApprovalsQuery, what: string): { rows: ApprovalRow[]; limit: number } => {
    const limit = checkLimit(query.limit, `${what} limit`);
    const filter = sqlFilter('sqlite');
    filter.add('decision IS NULL');
    if (query.owner !== undefined) filter.add('owner = ?', query.owner);
    if (query.after !== undefined) filter.add('seq > ?', decodeRunCursor(query.after));
    return { rows: statement(`SELECT * FROM approvals ${filter.where()} ORDER BY seq LIMIT ${filter.value(limit + 1)}`).all(...filter.values) as ApprovalRow[], limit };
  };

  const store: ToolgateStore = {
    kind: 'sqlite',

    async createRun(run, events) {
      if (run.status !== 'running') {
        throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `createRun: a new run's status must be "running", got ${JSON.stringify(run.status)}` });
      }
      const texts = eventTexts(events);
      const at = now();
      const written = await write('createRun', { run, events: texts, at });
      return { run: runFromRow(written.run), events: storedEvents(texts, written.eventIds, at) };
    },

    async getRun(runId) {
      return readRun(runId);
    },

    async listRuns(query) {
      const limit = checkLimit(query.limit, 'listRuns limit');
      const filter = sqlFilter('sqlite');
      if (query.owner !== undefined) filter.add('owner = ?', query.owner);
      if (query.status !== undefined) filter.add('status = ?', query.status);
      if (query.before !== undefined) filter.add('seq < ?', decodeRunCursor(query.before));
      const rows = statement(`SELECT * FROM runs ${filter.where()} ORDER BY seq DESC LIMIT ${filter.value(limit + 1)}`).all(...filter.values) as RunRow[];
      const { items, next } = pageOf({ rows, limit, map: runFromRow });
      return { runs: items, next };
    },

    async decidedPausedRuns() {
      // Found in the indexes alone (paused runs by status, their pending approvals by run id): read row by
      // row, the runs' own rows (their whole state) were loaded for every paused run, 0.1 s at 10,000 on a cold start.
      const rows = statement(
        `SELECT * FROM runs WHERE seq IN (
           SELECT seq FROM runs WHERE status = 'paused_checkpoint'
           EXCEPT SELECT runs.seq FROM approvals INDEXED BY approvals_pending_by_run JOIN runs ON runs.run_id = approvals.run_id WHERE approvals.decision IS NULL
         ) ORDER BY seq`,
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
      const texts = eventTexts(extra.events ?? []);
      const approvals = (extra.approvals ?? []).map((approval) => ({
        runId: approval.runId,
        toolCallId: approval.toolCallId,
        owner: approval.owner,
        tool: approval.tool,
        groupId: approval.groupId,
        request: jsonObjectText(approval.request, `approval ${approval.toolCallId} request`),
      }));
      const at = now();
      const written = await write('updateRun', { runId, revision, change, events: texts, approvals, dropApprovals: extra.dropApprovals === true, at });
      return written === undefined ? undefined : { run: runFromRow(written.run), events: storedEvents(texts, written.eventIds, at) };
    },

    async listApprovals(query) {
      const filter = sqlFilter('sqlite');
      if (query.runId !== undefined) filter.add('run_id = ?', query.runId);
      if (query.owner !== undefined) filter.add('owner = ?', query.owner);
      if (query.includeDecided !== true) filter.add('decision IS NULL');
      // One run's few approvals are sorted here: SQLite's sorter doubled the cost of reading them.
      const order = query.runId === undefined ? ' ORDER BY seq' : '';
      const rows = statement(`SELECT * FROM approvals ${filter.where()}${order}`).all(...filter.values) as ApprovalRow[];
      if (order === '') rows.sort((a, b) => a.seq - b.seq);
      return rows.map(approvalFromRow);
    },

    async listRunDecisions(runId) {
      const rows = statement(`SELECT ${APPROVAL_DECISION_COLUMNS} FROM approvals WHERE run_id = ?`).all(runId) as Array<Omit<ApprovalRow, 'request'>>;
      // As in listApprovals: a run's few approvals are sorted here.
      rows.sort((a, b) => a.seq - b.seq);
      return rows.map(approvalDecisionFromRow);
    },

    async listPendingApprovals(query) {
      const { items, next } = pageOf({ ...pendingApprovalRows(query, 'listPendingApprovals'), map: approvalFromRow });
      return { approvals: items, next };
    },

    async listPendingApprovalTexts(query) {
      const { items, next } = pageOf({ ...pendingApprovalRows(query, 'listPendingApprovalTexts'), map: approvalTextFromRow });
      return { approvals: items, next };
    },

    async decideApprovals(runId, calls, decision, resume) {
      const text = jsonObjectText(decision, `decision on ${calls.map((call) => call.toolCallId).join(', ')}`);
      const callTexts = calls.map((call) => ({ toolCallId: call.toolCallId, events: eventTexts(call.events ?? []) }));
      const resumeTexts = resume === undefined ? undefined : { revision: resume.revision, events: eventTexts(resume.events) };
      const at = now();
      const written = await write('decideApprovals', { runId, calls: callTexts, decision: text, ...(resumeTexts === undefined ? {} : { resume: resumeTexts }), at });
      const decidedEvents = decidedCalls(callTexts, written.decided).flatMap((call) => call.events);
      const result: DecideResult = { decided: written.decided, waiting: written.waiting, events: storedEvents(decidedEvents, written.eventIds, at) };
      if (written.resumed !== undefined) result.resumed = { run: runFromRow(written.resumed.run), events: storedEvents(resumeTexts!.events, written.resumed.eventIds, at) };
      return result;
    },

    async appendEvents(events) {
      const texts = eventTexts(events);
      const at = now();
      return storedEvents(texts, await write('appendEvents', { events: texts, at }), at);
    },

    async readEvents(query) {
      const limit = checkLimit(query.limit, 'readEvents limit');
      if (!Number.isSafeInteger(query.afterId) || query.afterId < 0) {
        throw new StoreError({ code: 'STORE_INVALID_QUERY', message: `readEvents afterId must be an integer >= 0, got ${JSON.stringify(query.afterId)}` });
      }
      const filter = sqlFilter('sqlite');
      filter.add('id > ?', query.afterId);
      if (query.runId !== undefined) filter.add('run_id = ?', query.runId);
      if (query.owner !== undefined) filter.add('owner = ?', query.owner);
      const rows = statement(`SELECT id, run_id, owner, type, data, at FROM events ${filter.where()} ORDER BY id LIMIT ${filter.value(limit)}`).all(...filter.values) as EventRow[];
      // Streamed events must be on disk: an event lost with the power would give its id to another, and a client resuming from it would miss that one.
      await commits.durable();
      return rows.map(eventFromRow);
    },

    async lastEventId() {
      const id = statement('SELECT coalesce(max(id), 0) FROM events').pluck().get() as number;
      await commits.durable();
      return id;
    },

    async beginCall(call) {
      return write('beginCall', { runId: call.runId, toolCallId: call.toolCallId, tool: call.tool, input: call.input, at: now() });
    },

    async finishCall(runId, toolCallId, status, output, events = []) {
      if (status !== 'completed' && status !== 'failed' && status !== 'interrupted') {
        throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `finishCall: status must be completed, failed or interrupted, got ${JSON.stringify(status)}` });
      }
      const texts = eventTexts(events);
      const at = now();
      const ids = await write('finishCall', { runId, toolCallId, status, output, events: texts, at });
      // Ended before: no events were stored.
      return ids.length === 0 ? [] : storedEvents(texts, ids, at);
    },

    async getCall(runId, toolCallId) {
      const row = statement('SELECT * FROM calls WHERE run_id = ? AND tool_call_id = ?').get(runId, toolCallId) as CallRow | undefined;
      return row === undefined ? undefined : callFromRow(row);
    },

    async listCalls(runId) {
      return (statement('SELECT * FROM calls WHERE run_id = ? ORDER BY seq').all(runId) as CallRow[]).map(callFromRow);
    },

    async recordStep(step) {
      checkStep(step);
      return write('recordStep', { runId: step.runId, seq: step.seq, body: step.body, at: now() });
    },

    async listSteps(runId, fromSeq) {
      const rows = statement('SELECT * FROM steps WHERE run_id = ? AND seq >= ? ORDER BY seq').all(runId, fromSeq) as StepRow[];
      return rows.map(stepFromRow);
    },

    async remember(entry) {
      const decision = rememberedText(entry.decision, entry.key);
      await write('remember', { key: entry.key, sessionId: entry.sessionId, chatId: entry.chatId, decision, at: now() });
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
      return write('forgetChat', { sessionId, chatId });
    },

    async forgetRemembered(key) {
      return write('forgetRemembered', { key });
    },

    async createToken(token) {
      return write('createToken', { name: token.name, role: token.role, hash: token.hash, at: now() });
    },

    async findToken(hash) {
      const row = statement('SELECT * FROM tokens WHERE hash = ? AND revoked_at IS NULL').get(hash) as TokenRow | undefined;
      return row === undefined ? undefined : tokenFromRow(row);
    },

    async listTokens() {
      return (statement('SELECT * FROM tokens ORDER BY created_at, name').all() as TokenRow[]).map(tokenFromRow);
    },

    async revokeToken(name) {
      return write('revokeToken', { name, at: now() });
    },

    outbox: {
      async enqueueDeliveries(deliveries) {
        if (deliveries.length === 0) return 0;
        return write('enqueueDeliveries', { deliveries: [...deliveries], at: now() });
      },
      async claimDeliveries(query) {
        const limit = checkLimit(query.limit, 'claimDeliveries limit');
        return (await write('claimDeliveries', { now: query.now, leaseUntil: query.leaseUntil, limit })).map(deliveryFromRow);
      },
      async finishDelivery(id, outcome) {
        await write('finishDelivery', { id, outcome });
      },
      async countDeliveries() {
        const counts: Record<DeliveryStatus, number> = { pending: 0, delivered: 0, dead: 0 };
        for (const row of statement('SELECT status, COUNT(*) AS n FROM outbox GROUP BY status').all() as Array<{ status: DeliveryStatus; n: number }>) counts[row.status] = row.n;
        return counts;
      },
      async listDeliveries(query) {
        const limit = checkLimit(query.limit, 'listDeliveries limit');
        const rows = query.status === undefined ? statement('SELECT * FROM outbox ORDER BY seq DESC LIMIT ?').all(limit) : statement('SELECT * FROM outbox WHERE status = ? ORDER BY seq DESC LIMIT ?').all(query.status, limit);
        return (rows as DeliveryRow[]).map(deliveryFromRow);
      },
      async findDelivery(id) {
        const row = statement('SELECT * FROM outbox WHERE id = ?').get(id) as DeliveryRow | undefined;
        return row === undefined ? undefined : deliveryFromRow(row);
      },
    },

    close() {
      // One close, however many callers: the second waits for the first instead of closing under it.
      closing ??= (async () => {
        try {
          await commits.close();
        } finally {
          try {
            // The worker's connection closes first: the last connection to close checkpoints what is left and removes the WAL.
            await checkpointer.close();
          } finally {
            walSync.close();
            database.close();
          }
        }
      })();
      return closing;
    },
  };
  return store;
}
