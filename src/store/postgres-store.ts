/**
 * The store of `toolgate serve` on PostgreSQL (node-postgres), for several
 * instances sharing one database. Same records, same columns and the same
 * contract (`store-contract.ts`) as the SQLite store; what differs is how
 * concurrent writers are kept apart, since PostgreSQL has many:
 * - compare-and-set on `revision` and "only while undecided" updates: a row
 *   lock makes the second writer re-check the condition after the first
 *   commits, so exactly one wins;
 * - deciding locks the run first (`FOR NO KEY UPDATE`), so the last two
 *   deciders of a run cannot each see the other's call still undecided and
 *   leave it decided but never claimed;
 * - events get their ids under one advisory lock taken just before they are
 *   inserted, at the end of each transaction and held until its commit: ids
 *   are then in commit order, so a reader that has seen id N never later
 *   finds a smaller id appear (what `Last-Event-ID` replay relies on). Rows
 *   are locked only before it, never after;
 * - the writes that store events are group-committed
 *   (`postgres-group-commit.ts`): a server's writes made while one batch
 *   commits share the next transaction, so the lock and the fsync are paid
 *   once per batch, not once per write; up to four batches run at once, one
 *   run's writes always in the same one (`commitLanes`);
 * - every statement with parameters is prepared once per connection
 *   (`PreparingClient`).
 * Times and JSON are stored as text; BIGINT ids come back as numbers.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { createPostgresGroupCommit, type StagedEvent } from './postgres-group-commit.ts';
import { ALWAYS_CHANNEL, EVENTS_CHANNEL, EVENT_ORDER_LOCK, MEMORY_CHANNEL, POSTGRES_SCHEMA, ensurePostgresSchema } from './postgres-schema.ts';
import {
  type ApprovalRow,
  type CallRow,
  type EventRow,
  type RunRow,
  type StepRow,
  type TokenRow,
  approvalDecisionFromRow,
  approvalFromRow,
  APPROVAL_DECISION_COLUMNS,
  approvalTextFromRow,
  callFromRow,
  checkLimit,
  type DeliveryRow,
  deliveryFromRow,
  checkStep,
  decidedCalls,
  decodeRunCursor,
  eventFromRow,
  jsonObjectText,
  pageOf,
  rememberedFromText,
  rememberedText,
  runFromRow,
  stepFromRow,
  tokenFromRow,
} from './sqlite-rows.ts';
import { fencedError, leaseAlive, drivesRun } from './postgres-fence.ts';
import { StoreError } from './sqlite-store-error.ts';
import { sqlFilter } from './sql-filter.ts';
import { describeStoreLocation } from './store-location.ts';
import type { EventText } from './sqlite-writes.ts';
import { RUN_STATUSES, STORE_SCHEMA_VERSION } from './store.ts';
import type { DecideResult, DeliveryStatus, NewEvent, PendingApprovalsQuery, RunChange, RunStatus, SharedRecords, StoreChange, StoredAlwaysApproval, StoredEvent, StoreInstances, ToolgateStore } from './store.ts';

/**
 * A connection that prepares each statement with parameters once, under a
 * name derived from its text, and from then on only binds and executes it:
 * PostgreSQL neither parses nor plans it again, and the text is not sent
 * again. Every statement text here is constant (values are always
 * parameters, also in the filters `sqlFilter` builds), so the names are few.
 */
class PreparingClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // A connection the database ends while it is checked out (a transaction under way, a backend terminated,
    // a failover) emits 'error' with no listener of the pool's: without this one that crashed the process.
    // The queries on it are rejected already, and the pool drops it when it is released as broken.
    this.on('error', () => undefined);
  }
}
const unprepared = pg.Client.prototype.query as (...args: unknown[]) => unknown;
PreparingClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [text, values, callback] = args;
  if (typeof text === 'string' && Array.isArray(values) && (args.length === 2 || (args.length === 3 && typeof callback === 'function'))) {
    return unprepared.call(this, { name: statementName(text), text, values }, ...args.slice(2));
  }
  return unprepared.apply(this, args);
} as typeof pg.Client.prototype.query;

const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) statementNames.set(text, (name = `toolgate_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`));
  return name;
}

/**
 * Batches one server commits at once: four (more measured no faster on two
 * cores), leaving connections for reads and single statements (a run read
 * while its approval commits).
 */
export function commitLanes(maxConnections: number): number {
  return Math.min(4, Math.max(1, maxConnections - 2));
}

/** Where a batch's events wait for the statement that inserts them (a custom setting, local to the transaction). */
const STAGED_EVENTS_SETTING = 'toolgate.staged_events';

/**
 * A batch's last message: the lock, the staged events inserted in their
 * order, COMMIT. Three statements in one simple query (which takes no
 * parameters: every value here is this file's constant, the rows come from
 * the setting). The notification is delivered when (and only if) the
 * transaction commits; one per transaction, however many events.
 */
const COMMIT_STAGED_EVENTS = `SELECT pg_advisory_xact_lock(${EVENT_ORDER_LOCK}), pg_notify('${EVENTS_CHANNEL}', '');
INSERT INTO events (run_id, owner, type, data, at, schema_version)
  SELECT row->>0, row->>1, row->>2, row->>3, row->>4, ${STORE_SCHEMA_VERSION}
  FROM json_array_elements(current_setting('${STAGED_EVENTS_SETTING}')::json) WITH ORDINALITY AS staged (row, position)
  ORDER BY position RETURNING id;
COMMIT`;

/**
 * Commits a batch's transaction, inserting its events last, under the
 * event-order lock (see the file comment); their ids in order. The lock is
 * held from the insert to the end of the COMMIT, fsync included, by every
 * server's batches in turn, so nothing else happens while it is held: the
 * rows travel first, as a transaction-local setting (sent just ahead, in the
 * same round trip), and the lock, the insert and the COMMIT are one message
 * to the server, with no round trip to this process in between.
 *
 * @example
 * const ids = await commitStagedEvents(client, events); // in the batch's transaction, last
 */
export async function commitStagedEvents(client: pg.ClientBase, events: readonly StagedEvent[]): Promise<number[]> {
  if (events.length === 0) {
    await client.query('COMMIT');
    return [];
  }
  const rows = JSON.stringify(events.map((event) => [event.runId, event.owner, event.type, event.data, event.at]));
  // Both messages in one round trip (the pool's connections pipeline). Should the setting fail, the
  // transaction is aborted and the final message fails before its COMMIT: nothing is committed.
  const staging = client.query('SELECT set_config($1, $2, true)', [STAGED_EVENTS_SETTING, rows]);
  staging.catch(() => undefined);
  let results: pg.QueryResult<{ id: number }>[];
  try {
    results = (await client.query(COMMIT_STAGED_EVENTS)) as unknown as pg.QueryResult<{ id: number }>[];
  } catch (error) {
    // The setting's own error, when it is what aborted the transaction.
    await staging;
    throw error;
  }
  // Rows are inserted in the order selected and take identity values in that order, under the lock: ascending ids are that order.
  return results[1]!.rows.map((row) => row.id).sort((a, b) => a - b);
}

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (libpq's keywords in the query string: `?sslmode=require`...). */
  url: string;
  /** Connections this instance keeps open at most. Default 10. */
  maxConnections?: number;
  /** How long to wait for a connection before failing with STORE_UNAVAILABLE. Default 10 s. */
  connectTimeoutMs?: number;
  /** The clock for every stored time. Default `new Date()`. */
  now?: () => Date;
  /**
   * For `toolgate serve`: this server's id among the servers sharing the
   * database. Every run it creates or moves is stamped with it, and the store
   * offers `instances` (leases, orphaned runs) and `watch` (other servers'
   * events). Commands such as `toolgate token` leave it out.
   */
  instance?: string;
}

const BIGINT_OID = 20;

/** BIGINT ids and counts as numbers (they stay far below 2^53); every other type as node-postgres reads it. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === BIGINT_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * Opens the PostgreSQL store at `url`: connects, creates or checks the
 * schema, and returns once the store can be used. Throws a `StoreError`
 * (STORE_UNAVAILABLE when the server cannot be reached, STORE_SCHEMA_NEWER,
 * STORE_NOT_TOOLGATE).
 *
 * @example
 * const store = await openPostgresStore({ url: 'postgres://toolgate@db.internal/toolgate' });
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<ToolgateStore> {
  const where = describeStoreLocation(options.url);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    options: `-c search_path=${POSTGRES_SCHEMA}`,
    types,
    Client: PreparingClient,
    // Messages sent before an answer arrives go out together (the group commit sends BEGIN and savepoints ahead).
    pipeline: true,
  });
  // An idle connection the server drops (a restart, a failover) must not crash the process: the pool replaces it.
  pool.on('error', () => undefined);
  // The lease's heartbeat has a connection of its own: behind a pool busy with a burst of commits, a renewal
  // waited its turn past the lease itself, and other servers took over the runs of a server that was working.
  const leasePool =
    options.instance === undefined
      ? undefined
      : new pg.Pool({ connectionString: options.url, max: 1, connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000, options: `-c search_path=${POSTGRES_SCHEMA}`, types, Client: PreparingClient });
  leasePool?.on('error', () => undefined);
  const now = () => (options.now ?? (() => new Date()))().toISOString();
  const instance = options.instance ?? null;
  const failure = (error: unknown): unknown => unavailable(error, where);

  try {
    const client = await pool.connect();
    try {
      await ensurePostgresSchema(client, where);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    await leasePool?.end().catch(() => undefined);
    throw failure(error);
  }

  const query = async <Row extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<pg.QueryResult<Row>> => {
    try {
      return await pool.query<Row>(sql, values);
    } catch (error) {
      throw failure(error);
    }
  };

  /** A statement on the lease's own connection. */
  const leaseQuery = async (sql: string, values: unknown[]): Promise<void> => {
    try {
      await (leasePool ?? pool).query(sql, values);
    } catch (error) {
      throw failure(error);
    }
  };

  /** One transaction on one connection; any error rolls it back (a broken connection is dropped, not reused). */
  async function transaction<Result>(work: (client: pg.PoolClient) => Promise<Result>): Promise<Result> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw failure(error);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError as Error;
      }
      throw failure(error);
    } finally {
      client.release(broken);
    }
  }

  const commits = createPostgresGroupCommit({ pool, commitEvents: commitStagedEvents, failure, lanes: commitLanes(options.maxConnections ?? 10) });
  /** The events of one write as the batch inserts them. */
  const staged = (texts: readonly EventText[], at: string): StagedEvent[] => texts.map((text) => ({ ...text, at }));

  /**
   * Compare-and-set: only the revision the caller read moves; the row as
   * moved, or undefined (nothing written). With `dropApprovals`, the run's
   * undecided approvals are deleted in the same statement, when (and only
   * when) it moves.
   */
  async function moveRun(client: pg.PoolClient, runId: string, revision: number, change: RunChange, at: string, dropApprovals = false): Promise<RunRow | undefined> {
    const moved = await client.query<RunRow>(
      `WITH moved AS (
         UPDATE runs SET
           status = CASE WHEN $3::boolean THEN $4::text ELSE status END,
           state = CASE WHEN $5::boolean THEN $6::text ELSE state END,
           text = CASE WHEN $7::boolean THEN $8::text ELSE text END,
           error = CASE WHEN $9::boolean THEN $10::text ELSE error END,
           updated_at = $11, revision = revision + 1, schema_version = $12, driver = coalesce($13, driver)
         WHERE run_id = $1 AND revision = $2 AND ${leaseAlive('$13')}
         RETURNING *
       ), dropped AS (
         DELETE FROM approvals WHERE $14::boolean AND run_id = $1 AND decision IS NULL AND EXISTS (SELECT 1 FROM moved)
       )
       SELECT * FROM moved`,
      [
        runId,
        revision,
        change.status !== undefined,
        change.status ?? null,
        change.state !== undefined,
        change.state ?? null,
        change.text !== undefined,
        change.text ?? null,
        change.error !== undefined,
        change.error ?? null,
        at,
        STORE_SCHEMA_VERSION,
        instance,
        dropApprovals,
      ],
    );
    return moved.rows[0];
  }

  const eventTexts = (events: readonly NewEvent[]): EventText[] =>
    events.map((event) => ({ runId: event.runId, owner: event.owner, type: event.type, data: jsonObjectText(event.data, `event ${event.type} data`) }));

  const storedEvents = (events: readonly EventText[], ids: readonly number[], at: string): StoredEvent[] =>
    events.map((event, index) => ({ id: ids[index]!, runId: event.runId, owner: event.owner, type: event.type, data: JSON.parse(event.data) as Record<string, unknown>, at }));

  let closed = false;
  const watchers = new Set<() => Promise<void>>();
  const instances: StoreInstances | undefined =
    instance === null
      ? undefined
      : {
          instance,
          async renew(leaseMs) {
            await leaseQuery(
              `INSERT INTO instances (instance_id, expires_at, started_at) VALUES ($1, now() + make_interval(secs => $2), now())
               ON CONFLICT (instance_id) DO UPDATE SET expires_at = excluded.expires_at`,
              [instance, leaseMs / 1000],
            );
          },
          async release() {
            await leaseQuery('DELETE FROM instances WHERE instance_id = $1', [instance]);
          },
          async orphanedRuns(limit) {
            const rows = await query<RunRow>(
              `SELECT * FROM runs WHERE status = 'running'
                 AND (driver = $1 OR NOT EXISTS (SELECT 1 FROM instances WHERE instances.instance_id = runs.driver AND instances.expires_at > now()))
               ORDER BY seq LIMIT $2`,
              [instance, checkLimit(limit, 'orphanedRuns limit')],
            );
            return rows.rows.map(runFromRow);
          },
        };
  const shared: SharedRecords = {
    async listAlways() {
      return (await query<AlwaysRow>('SELECT * FROM always_approvals ORDER BY seq')).rows.map(alwaysFromRow);
    },
    async addAlways(record) {
      return transaction(async (client) => {
        const inserted = await client.query(
          `INSERT INTO always_approvals (fingerprint, id, tool, identity, description, payload_preview, created_at, voided_at, voided_for, schema_version, mac)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           -- Approved again after it was voided: the new record replaces the void one; a live one stays as it is.
           ON CONFLICT (fingerprint) DO UPDATE SET id = EXCLUDED.id, description = EXCLUDED.description, payload_preview = EXCLUDED.payload_preview,
             created_at = EXCLUDED.created_at, voided_at = EXCLUDED.voided_at, voided_for = EXCLUDED.voided_for, schema_version = EXCLUDED.schema_version, mac = EXCLUDED.mac
           WHERE always_approvals.voided_at IS NOT NULL`,
          [
            record.fingerprint,
            record.id,
            record.tool,
            record.identity,
            record.description,
            record.payload_preview,
            record.created_at,
            record.voided_at ?? null,
            record.voided_for ?? null,
            STORE_SCHEMA_VERSION,
            record.mac ?? null,
          ],
        );
        if ((inserted.rowCount ?? 0) === 0) return false;
        await client.query('SELECT pg_notify($1, $2)', [ALWAYS_CHANNEL, '']);
        return true;
      });
    },
    async revokeAlways(ids) {
      if (ids !== 'all' && ids.some((id) => id.length < 6)) {
        throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `revokeAlways: an id prefix needs at least 6 characters, got ${JSON.stringify(ids.find((id) => id.length < 6))}` });
      }
      return transaction(async (client) => {
        // starts_with, not LIKE: an id the caller typed is text, never a pattern.
        const removed =
          ids === 'all'
            ? await client.query<AlwaysRow>('DELETE FROM always_approvals RETURNING *')
            : await client.query<AlwaysRow>('DELETE FROM always_approvals WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS prefix WHERE starts_with(id, prefix)) RETURNING *', [ids]);
        if (removed.rows.length > 0) await client.query('SELECT pg_notify($1, $2)', [ALWAYS_CHANNEL, '']);
        return removed.rows.sort((a, b) => a.seq - b.seq).map(alwaysFromRow);
      });
    },
    async voidAlways(entry) {
      return transaction(async (client) => {
        const marked = await client.query<AlwaysRow>(
          `UPDATE always_approvals SET voided_at = $3, voided_for = $2
           WHERE tool = $1 AND identity IS NOT NULL AND identity <> $2 AND voided_at IS NULL RETURNING *`,
          [entry.tool, entry.identity, entry.at],
        );
        if (marked.rows.length > 0) await client.query('SELECT pg_notify($1, $2)', [ALWAYS_CHANNEL, '']);
        return marked.rows.sort((a, b) => a.seq - b.seq).map(alwaysFromRow);
      });
    },
    async appendAudit(lines) {
      if (lines.length === 0) return;
      await query('INSERT INTO audit (instance, line, schema_version) SELECT $1, line, $3 FROM unnest($2::text[]) WITH ORDINALITY AS added (line, position) ORDER BY position', [
        instance,
        lines,
        STORE_SCHEMA_VERSION,
      ]);
    },
    async readAudit(auditQuery) {
      const rows = await query<{ seq: number; instance: string | null; line: string }>('SELECT seq, instance, line FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2', [
        auditQuery.afterSeq,
        checkLimit(auditQuery.limit, 'readAudit limit'),
      ]);
      return rows.rows;
    },
  };

  /** One page of undecided approvals, oldest first (`LIMIT limit + 1`, for `pageOf`). */
  async function pendingApprovalRows(request: PendingApprovalsQuery, what: string): Promise<{ rows: ApprovalRow[]; limit: number }> {
    const limit = checkLimit(request.limit, `${what} limit`);
    const filter = sqlFilter('postgres');
    filter.add('decision IS NULL');
    if (request.owner !== undefined) filter.add('owner = ?', request.owner);
    if (request.after !== undefined) filter.add('seq > ?', decodeRunCursor(request.after));
    return { rows: (await query<ApprovalRow>(`SELECT * FROM approvals ${filter.where()} ORDER BY seq LIMIT ${filter.value(limit + 1)}`, filter.values)).rows, limit };
  }

  const store: ToolgateStore = {
    kind: 'postgres',
    ...(instances === undefined ? {} : { instances }),
    shared,

    async adoptSecret(fingerprint) {
      await query(`INSERT INTO meta (key, value) VALUES ('secret_fingerprint', $1) ON CONFLICT (key) DO NOTHING`, [fingerprint]);
      return (await query<{ value: string }>(`SELECT value FROM meta WHERE key = 'secret_fingerprint'`)).rows[0]?.value === fingerprint;
    },

    watch(listener) {
      const stop = watchChanges({ url: options.url, listener, connectTimeoutMs: options.connectTimeoutMs ?? 10_000 });
      watchers.add(stop);
      return async () => {
        watchers.delete(stop);
        await stop();
      };
    },

    async createRun(run, events) {
      if (run.status !== 'running') {
        throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `createRun: a new run's status must be "running", got ${JSON.stringify(run.status)}` });
      }
      const texts = eventTexts(events);
      const at = now();
      return commits.write(run.runId, async (client) => {
        const inserted = await client.query<RunRow>(
          `INSERT INTO runs (run_id, owner, status, mode, session_id, chat_id, model, input, state, text, error, created_at, updated_at, revision, schema_version, driver)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL, $10, $10, 1, $11, $12) RETURNING *`,
          [run.runId, run.owner, run.status, run.mode, run.sessionId, run.chatId, run.model, run.input, run.state, at, STORE_SCHEMA_VERSION, instance],
        );
        return { events: staged(texts, at), runs: [run.runId], result: (ids) => ({ run: runFromRow(inserted.rows[0]!), events: storedEvents(texts, ids, at) }) };
      });
    },

    async getRun(runId) {
      const row = (await query<RunRow>('SELECT * FROM runs WHERE run_id = $1', [runId])).rows[0];
      return row === undefined ? undefined : runFromRow(row);
    },

    async listRuns(request) {
      const limit = checkLimit(request.limit, 'listRuns limit');
      const filter = sqlFilter('postgres');
      if (request.owner !== undefined) filter.add('owner = ?', request.owner);
      if (request.status !== undefined) filter.add('status = ?', request.status);
      if (request.before !== undefined) filter.add('seq < ?', decodeRunCursor(request.before));
      const rows = (await query<RunRow>(`SELECT * FROM runs ${filter.where()} ORDER BY seq DESC LIMIT ${filter.value(limit + 1)}`, filter.values)).rows;
      const { items, next } = pageOf({ rows, limit, map: runFromRow });
      return { runs: items, next };
    },

    async decidedPausedRuns() {
      const rows = (
        await query<RunRow>(
          `SELECT * FROM runs WHERE status = 'paused_checkpoint' AND NOT EXISTS (SELECT 1 FROM approvals WHERE approvals.run_id = runs.run_id AND approvals.decision IS NULL) ORDER BY seq`,
        )
      ).rows;
      return rows.map(runFromRow);
    },

    async countRuns() {
      const counts = Object.fromEntries(RUN_STATUSES.map((status) => [status, 0])) as Record<RunStatus, number>;
      for (const row of (await query<{ status: RunStatus; count: number }>('SELECT status, count(*) AS count FROM runs GROUP BY status')).rows) counts[row.status] = row.count;
      return counts;
    },

    async updateRun(runId, revision, change, extra = {}) {
      const texts = eventTexts(extra.events ?? []);
      const approvals = (extra.approvals ?? []).map((approval) => ({ ...approval, request: jsonObjectText(approval.request, `approval ${approval.toolCallId} request`) }));
      const at = now();
      return commits.write(runId, async (client) => {
        const moved = await moveRun(client, runId, revision, change, at, extra.dropApprovals === true);
        if (moved === undefined) return { events: [], result: () => undefined };
        for (const approval of approvals) {
          await client.query(
            `INSERT INTO approvals (run_id, tool_call_id, owner, tool, group_id, request, created_at, decision, schema_version) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8)`,
            [approval.runId, approval.toolCallId, approval.owner, approval.tool, approval.groupId, approval.request, at, STORE_SCHEMA_VERSION],
          );
        }
        return { events: staged(texts, at), runs: [runId], result: (ids) => ({ run: runFromRow(moved), events: storedEvents(texts, ids, at) }) };
      });
    },

    async listApprovals(request) {
      const filter = sqlFilter('postgres');
      if (request.runId !== undefined) filter.add('run_id = ?', request.runId);
      if (request.owner !== undefined) filter.add('owner = ?', request.owner);
      if (request.includeDecided !== true) filter.add('decision IS NULL');
      return (await query<ApprovalRow>(`SELECT * FROM approvals ${filter.where()} ORDER BY seq`, filter.values)).rows.map(approvalFromRow);
    },

    async listRunDecisions(runId) {
      return (await query<Omit<ApprovalRow, 'request'>>(`SELECT ${APPROVAL_DECISION_COLUMNS} FROM approvals WHERE run_id = $1 ORDER BY seq`, [runId])).rows.map(approvalDecisionFromRow);
    },

    async listPendingApprovals(request) {
      const { items, next } = pageOf({ ...(await pendingApprovalRows(request, 'listPendingApprovals')), map: approvalFromRow });
      return { approvals: items, next };
    },

    async listPendingApprovalTexts(request) {
      const { items, next } = pageOf({ ...(await pendingApprovalRows(request, 'listPendingApprovalTexts')), map: approvalTextFromRow });
      return { approvals: items, next };
    },

    async decideApprovals(runId, calls, decision, resume) {
      const text = jsonObjectText(decision, `decision on ${calls.map((call) => call.toolCallId).join(', ')}`);
      const callTexts = calls.map((call) => ({ toolCallId: call.toolCallId, events: eventTexts(call.events ?? []) }));
      const resumeTexts = resume === undefined ? undefined : eventTexts(resume.events);
      const at = now();
      return commits.write(runId, async (client) => {
        // Deciders of one run take turns: the last one sees every other decision and can claim the run.
        const locked = (await client.query('SELECT 1 FROM runs WHERE run_id = $1 FOR NO KEY UPDATE', [runId])).rowCount === 1;
        // The calls decided now, and those still waiting: what was undecided before this statement, less what it decided
        // (a statement does not see its own changes). Taken after the lock, it sees every earlier decider's.
        const outcome = (
          await client.query<{ decided: string[]; waiting: string[] }>(
            `WITH decided AS (
               UPDATE approvals SET decision = $1 WHERE run_id = $2 AND tool_call_id = ANY($3::text[]) AND decision IS NULL RETURNING tool_call_id
             )
             SELECT (SELECT coalesce(array_agg(tool_call_id), '{}') FROM decided) AS decided,
                    (SELECT coalesce(array_agg(tool_call_id ORDER BY seq), '{}') FROM approvals
                      WHERE run_id = $2 AND decision IS NULL AND tool_call_id NOT IN (SELECT tool_call_id FROM decided)) AS waiting`,
            [text, runId, callTexts.map((call) => call.toolCallId)],
          )
        ).rows[0]!;
        // In the order named, each once (a call named twice is decided once: the decision then does not stand on every call named).
        const firsts = decidedCalls(callTexts, outcome.decided);
        const decided = firsts.map((call) => call.toolCallId);
        const { waiting } = outcome;
        // The claim: only when this decision stands on every call named and nothing is left to decide.
        const claimed = resume !== undefined && decided.length === calls.length && waiting.length === 0 ? await moveRun(client, runId, resume.revision, { status: 'running' }, at) : undefined;
        const decidedEvents = firsts.flatMap((call) => call.events);
        const claimEvents = claimed === undefined ? [] : resumeTexts!;
        return {
          events: staged([...decidedEvents, ...claimEvents], at),
          // Locked first thing (when it exists; when it does not, its events are checked and refused).
          ...(locked ? { runs: [runId] } : {}),
          result: (ids) => {
            const result: DecideResult = { decided, waiting, events: storedEvents(decidedEvents, ids.slice(0, decidedEvents.length), at) };
            if (claimed !== undefined) result.resumed = { run: runFromRow(claimed), events: storedEvents(claimEvents, ids.slice(decidedEvents.length), at) };
            return result;
          },
        };
      });
    },

    async appendEvents(events) {
      const texts = eventTexts(events);
      const at = now();
      // Events of several runs go in the first one's lane: they lock no run's row (their check takes FOR KEY SHARE, which blocks no writer).
      return commits.write(texts[0]?.runId ?? '', async () => ({ events: staged(texts, at), result: (ids) => storedEvents(texts, ids, at) }));
    },

    async readEvents(request) {
      const limit = checkLimit(request.limit, 'readEvents limit');
      if (!Number.isSafeInteger(request.afterId) || request.afterId < 0) {
        throw new StoreError({ code: 'STORE_INVALID_QUERY', message: `readEvents afterId must be an integer >= 0, got ${JSON.stringify(request.afterId)}` });
      }
      const filter = sqlFilter('postgres');
      filter.add('id > ?', request.afterId);
      if (request.runId !== undefined) filter.add('run_id = ?', request.runId);
      if (request.owner !== undefined) filter.add('owner = ?', request.owner);
      const rows = (await query<EventRow>(`SELECT id, run_id, owner, type, data, at FROM events ${filter.where()} ORDER BY id LIMIT ${filter.value(limit)}`, filter.values)).rows;
      return rows.map(eventFromRow);
    },

    async lastEventId() {
      return (await query<{ id: number }>('SELECT coalesce(max(id), 0) AS id FROM events')).rows[0]!.id;
    },

    async beginCall(call) {
      // The UNIQUE (run_id, tool_call_id) decides between racing instances: exactly one insert lands;
      // and only while this server drives the run under a live lease (fencing), in the same statement.
      const inserted = await query(
        `INSERT INTO calls (run_id, tool_call_id, tool, input, status, output, started_at, finished_at, schema_version)
         SELECT $1, $2, $3, $4, 'executing', NULL, $5, NULL, $6 WHERE ${drivesRun('$1', '$7')}
         ON CONFLICT (run_id, tool_call_id) DO NOTHING`,
        [call.runId, call.toolCallId, call.tool, call.input, now(), STORE_SCHEMA_VERSION, instance],
      );
      if (inserted.rowCount === 1) return true;
      if (instance !== null && (await query('SELECT 1 FROM calls WHERE run_id = $1 AND tool_call_id = $2', [call.runId, call.toolCallId])).rowCount === 0) {
        throw fencedError({ instance, runId: call.runId, what: `run the call ${call.toolCallId}` });
      }
      return false;
    },

    async recordStep(step) {
      checkStep(step);
      const inserted = await query(
        `INSERT INTO steps (run_id, seq, body, recorded_at, schema_version) SELECT $1, $2, $3, $4, $5 WHERE ${drivesRun('$1', '$6')}
         ON CONFLICT (run_id, seq) DO NOTHING`,
        [step.runId, step.seq, step.body, now(), STORE_SCHEMA_VERSION, instance],
      );
      if (inserted.rowCount === 1) return true;
      if (instance !== null && (await query('SELECT 1 FROM steps WHERE run_id = $1 AND seq = $2', [step.runId, step.seq])).rowCount === 0) {
        throw fencedError({ instance, runId: step.runId, what: `record its model call ${step.seq}` });
      }
      return false;
    },

    async listSteps(runId, fromSeq) {
      return (await query<StepRow>('SELECT * FROM steps WHERE run_id = $1 AND seq >= $2 ORDER BY seq', [runId, fromSeq])).rows.map(stepFromRow);
    },

    async finishCall(runId, toolCallId, status, output, events = []) {
      if (status !== 'completed' && status !== 'failed' && status !== 'interrupted') {
        throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `finishCall: status must be completed, failed or interrupted, got ${JSON.stringify(status)}` });
      }
      const texts = eventTexts(events);
      const at = now();
      return commits.write(runId, async (client) => {
        const ended = await client.query(`UPDATE calls SET status = $1, output = $2, finished_at = $3 WHERE run_id = $4 AND tool_call_id = $5 AND status = 'executing'`, [status, output, at, runId, toolCallId]);
        if (ended.rowCount === 1) return { events: staged(texts, at), result: (ids) => storedEvents(texts, ids, at) };
        if ((await client.query('SELECT 1 FROM calls WHERE run_id = $1 AND tool_call_id = $2', [runId, toolCallId])).rowCount === 0) {
          throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `finishCall: no call ${toolCallId} of run ${runId} was begun (beginCall records it before it runs)` });
        }
        // Ended before: the first ending stands, with its events.
        return { events: [], result: () => [] };
      });
    },

    async getCall(runId, toolCallId) {
      const row = (await query<CallRow>('SELECT * FROM calls WHERE run_id = $1 AND tool_call_id = $2', [runId, toolCallId])).rows[0];
      return row === undefined ? undefined : callFromRow(row);
    },

    async listCalls(runId) {
      return (await query<CallRow>('SELECT * FROM calls WHERE run_id = $1 ORDER BY seq', [runId])).rows.map(callFromRow);
    },

    async remember(entry) {
      const decision = rememberedText(entry.decision, entry.key);
      await transaction(async (client) => {
        await client.query(
          `INSERT INTO memory (key, session_id, chat_id, decision, updated_at, schema_version) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (key) DO UPDATE SET session_id = excluded.session_id, chat_id = excluded.chat_id, decision = excluded.decision,
             updated_at = excluded.updated_at, schema_version = excluded.schema_version`,
          [entry.key, entry.sessionId, entry.chatId, decision, now(), STORE_SCHEMA_VERSION],
        );
        await notifyMemory(client, entry.key);
      });
    },

    async recall(key) {
      const row = (await query<{ decision: string }>('SELECT decision FROM memory WHERE key = $1', [key])).rows[0];
      return row === undefined ? undefined : rememberedFromText(row.decision);
    },

    async allRemembered() {
      // COLLATE "C": the same order as SQLite's (bytes), whatever the database's locale.
      const rows = (await query<{ key: string; decision: string }>('SELECT key, decision FROM memory ORDER BY key COLLATE "C"')).rows;
      return rows.map((row) => ({ key: row.key, decision: rememberedFromText(row.decision) }));
    },

    async forgetChat(sessionId, chatId) {
      // IS NOT DISTINCT FROM, not =: the null chat is a chat of its own, forgotten only when asked for.
      return transaction(async (client) => {
        const forgotten = (await client.query('DELETE FROM memory WHERE session_id = $1 AND chat_id IS NOT DISTINCT FROM $2', [sessionId, chatId])).rowCount ?? 0;
        if (forgotten > 0) await notifyMemory(client, null);
        return forgotten;
      });
    },

    async forgetRemembered(key) {
      return transaction(async (client) => {
        const forgotten = ((await client.query('DELETE FROM memory WHERE key = $1', [key])).rowCount ?? 0) === 1;
        if (forgotten) await notifyMemory(client, key);
        return forgotten;
      });
    },

    async createToken(token) {
      // A taken name (revoked or not) or, astronomically unlikely, a taken hash: nothing is written.
      const inserted = await query(`INSERT INTO tokens (name, role, hash, created_at, revoked_at, schema_version) VALUES ($1, $2, $3, $4, NULL, $5) ON CONFLICT DO NOTHING`, [
        token.name,
        token.role,
        token.hash,
        now(),
        STORE_SCHEMA_VERSION,
      ]);
      return inserted.rowCount === 1;
    },

    async findToken(hash) {
      const row = (await query<TokenRow>('SELECT * FROM tokens WHERE hash = $1 AND revoked_at IS NULL', [hash])).rows[0];
      return row === undefined ? undefined : tokenFromRow(row);
    },

    async listTokens() {
      return (await query<TokenRow>('SELECT * FROM tokens ORDER BY created_at, name COLLATE "C"')).rows.map(tokenFromRow);
    },

    async revokeToken(name) {
      return (await query('UPDATE tokens SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL', [now(), name])).rowCount === 1;
    },

    outbox: {
      async enqueueDeliveries(deliveries) {
        if (deliveries.length === 0) return 0;
        const at = now();
        const added = await query(
          `INSERT INTO outbox (id, channel, run_id, tool_call_id, body, mac, status, attempts, next_attempt_at, created_at, schema_version)
           SELECT d.id, d.channel, d.run_id, d.tool_call_id, d.body, d.mac, 'pending', 0, $2, $2, $3
           FROM jsonb_to_recordset($1::jsonb) AS d(id TEXT, channel TEXT, run_id TEXT, tool_call_id TEXT, body TEXT, mac TEXT)
           ON CONFLICT (id) DO NOTHING`,
          [JSON.stringify(deliveries.map((delivery) => ({ id: delivery.id, channel: delivery.channel, run_id: delivery.runId, tool_call_id: delivery.toolCallId, body: delivery.body, mac: delivery.mac }))), at, STORE_SCHEMA_VERSION],
        );
        return added.rowCount ?? 0;
      },
      async claimDeliveries(claim) {
        const limit = checkLimit(claim.limit, 'claimDeliveries limit');
        // SKIP LOCKED: two servers claiming at once get different rows, never the same one.
        const claimed = await query<DeliveryRow>(
          `UPDATE outbox SET leased_until = $2, attempts = attempts + 1
           WHERE seq IN (
             SELECT seq FROM outbox WHERE status = 'pending' AND next_attempt_at <= $1 AND (leased_until IS NULL OR leased_until <= $1)
             ORDER BY next_attempt_at, seq LIMIT $3 FOR UPDATE SKIP LOCKED)
           RETURNING *`,
          [claim.now, claim.leaseUntil, limit],
        );
        return claimed.rows.sort((left, right) => Number(left.seq) - Number(right.seq)).map(deliveryFromRow);
      },
      async finishDelivery(id, outcome) {
        if (outcome.status === 'delivered') await query(`UPDATE outbox SET status = 'delivered', delivered_at = $1, receipt = $3, leased_until = NULL, last_error = NULL WHERE id = $2`, [outcome.at, id, outcome.receipt ?? null]);
        else if (outcome.status === 'pending') await query(`UPDATE outbox SET next_attempt_at = $1, leased_until = NULL, last_error = $2 WHERE id = $3 AND status = 'pending'`, [outcome.retryAt, outcome.error, id]);
        else await query(`UPDATE outbox SET status = 'dead', leased_until = NULL, last_error = $1 WHERE id = $2 AND status = 'pending'`, [outcome.error, id]);
      },
      async countDeliveries() {
        const counts: Record<DeliveryStatus, number> = { pending: 0, delivered: 0, dead: 0 };
        for (const row of (await query<{ status: DeliveryStatus; n: string }>('SELECT status, COUNT(*) AS n FROM outbox GROUP BY status')).rows) counts[row.status] = Number(row.n);
        return counts;
      },
      async listDeliveries(list) {
        const limit = checkLimit(list.limit, 'listDeliveries limit');
        const rows =
          list.status === undefined
            ? await query<DeliveryRow>('SELECT * FROM outbox ORDER BY seq DESC LIMIT $1', [limit])
            : await query<DeliveryRow>('SELECT * FROM outbox WHERE status = $1 ORDER BY seq DESC LIMIT $2', [list.status, limit]);
        return rows.rows.map(deliveryFromRow);
      },
      async findDelivery(id) {
        const row = (await query<DeliveryRow>('SELECT * FROM outbox WHERE id = $1', [id])).rows[0];
        return row === undefined ? undefined : deliveryFromRow(row);
      },
    },

    async close() {
      if (closed) return;
      closed = true;
      // Writes queued and queries under way finish first: pool.end waits for checked-out connections to be released.
      await commits.drain();
      await pool.end();
      await leasePool?.end();
      for (const stop of watchers) await stop();
    },
  };
  return store;
}

interface AlwaysRow {
  seq: number;
  fingerprint: string;
  id: string;
  tool: string;
  identity: string | null;
  description: string;
  payload_preview: string;
  created_at: string;
  voided_at: string | null;
  voided_for: string | null;
  mac: string | null;
}

function alwaysFromRow(row: AlwaysRow): StoredAlwaysApproval {
  const record: StoredAlwaysApproval = {
    id: row.id,
    tool: row.tool,
    identity: row.identity,
    fingerprint: row.fingerprint,
    description: row.description,
    payload_preview: row.payload_preview,
    created_at: row.created_at,
  };
  if (row.voided_at !== null) record.voided_at = row.voided_at;
  if (row.voided_for !== null) record.voided_for = row.voided_for;
  if (row.mac !== null) record.mac = row.mac;
  return record;
}

/**
 * A remembered decision changed (its key; null: reload them all), told to
 * every watcher when the transaction commits. NOTIFY payloads are short:
 * a key too long for one asks for a reload instead.
 */
async function notifyMemory(client: pg.PoolClient, key: string | null): Promise<void> {
  const payload = key !== null && Buffer.byteLength(key) < 7000 ? key : '';
  await client.query('SELECT pg_notify($1, $2)', [MEMORY_CHANNEL, payload]);
}

/**
 * LISTENs on the events, memory and "approve always" channels on a connection of its own,
 * telling `listener` what changed; when the connection is lost it connects
 * again (every second until it can) and reports `resync`, since anything may
 * have changed meanwhile.
 */
function watchChanges(options: { url: string; listener: (change: StoreChange) => void; connectTimeoutMs: number }): () => Promise<void> {
  let stopped = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: options.connectTimeoutMs });
    next.on('error', () => undefined);
    next.on('notification', (message) => {
      if (message.channel === EVENTS_CHANNEL) options.listener({ kind: 'events' });
      else if (message.channel === MEMORY_CHANNEL) options.listener({ kind: 'memory', key: message.payload === undefined || message.payload === '' ? null : message.payload });
      else if (message.channel === ALWAYS_CHANNEL) options.listener({ kind: 'always' });
    });
    next.once('end', () => {
      if (!stopped && client === next) again();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${EVENTS_CHANNEL}; LISTEN ${MEMORY_CHANNEL}; LISTEN ${ALWAYS_CHANNEL}`);
    } catch {
      await next.end().catch(() => undefined);
      if (!stopped) again();
      return;
    }
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    const reconnected = client !== undefined;
    client = next;
    if (reconnected) options.listener({ kind: 'resync' });
  };
  const again = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void connect(), 1000);
    timer.unref();
  };
  void connect();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await client?.end().catch(() => undefined);
  };
}

/**
 * SQLSTATEs of a database that cannot serve now: connection exceptions (08),
 * shutdown and restart (57P01-57P04), too many connections (53300), no such
 * database (3D000), refused logins (28), and a database closed to
 * connections (55000 "not currently accepting connections").
 */
const UNAVAILABLE_STATES = /^(08|57P0[1-4]|53300|3D000|28)/;
// ENOENT and EACCES: a Unix socket that is not there (no server in that directory) or that this user may not open.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN', 'ENOENT', 'EACCES']);

/**
 * A failure to reach the database as a StoreError STORE_UNAVAILABLE (the
 * server answers 503); any other error as it is (a constraint, a bug).
 */
function unavailable(error: unknown, where: string): unknown {
  if (error instanceof StoreError) return error;
  const code = (error as { code?: unknown }).code;
  const message = (error as Error)?.message ?? String(error);
  const lost =
    (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_CODES.has(code) || (code === '55000' && /accepting connections/i.test(message)))) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
  if (!lost) return error;
  return new StoreError({ code: 'STORE_UNAVAILABLE', message: `the PostgreSQL store at ${where} cannot be reached: ${message}`, cause: error });
}
