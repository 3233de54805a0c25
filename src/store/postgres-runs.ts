/**
 * The PostgreSQL store's runs and their approvals: creating, reading and
 * moving runs, and deciding approvals (the last decider claims the run).
 * Writes that store events go through the group commit; a run moves only
 * by compare-and-set on its revision, and only while this server drives it
 * under a live lease (postgres-fence.ts).
 */
import type pg from 'pg';
import type { PostgresConnection } from './postgres-connection.ts';
import { stagedEvents } from './postgres-event-commit.ts';
import { leaseAlive } from './postgres-fence.ts';
import type { PostgresGroupCommit } from './postgres-group-commit.ts';
import { APPROVAL_DECISION_COLUMNS, approvalDecisionFromRow, approvalFromRow, type ApprovalRow, approvalTextFromRow, runFromRow, type RunRow } from './sqlite-rows.ts';
import { checkLimit, checkNewRun, decodeRunCursor, eventTexts, jsonObjectText, pageOf, storedEvents } from './store-records.ts';
import { runsPageQuery, sqlFilter } from './sql-filter.ts';
import { RUN_STATUSES, STORE_SCHEMA_VERSION } from './store.ts';
import type { PendingApprovalsQuery, RunChange, RunStatus, ToolgateStore } from './store.ts';

/** The store's methods for runs and their approvals. */
export type RunRecords = Pick<
  ToolgateStore,
  | 'createRun'
  | 'getRun'
  | 'listRuns'
  | 'decidedPausedRuns'
  | 'countRuns'
  | 'updateRun'
  | 'listApprovals'
  | 'listRunDecisions'
  | 'listPendingApprovals'
  | 'listPendingApprovalTexts'
>;

/**
 * The runs and approvals of one store, on its connection and group commit.
 *
 * @example
 * const runs = postgresRunRecords(db, commits);
 * await runs.getRun('run_1');
 */
export function postgresRunRecords(db: PostgresConnection, commits: PostgresGroupCommit): RunRecords {
  const { query, now, instance } = db;

  /** One page of undecided approvals, oldest first (`LIMIT limit + 1`, for `pageOf`). */
  async function pendingApprovalRows(request: PendingApprovalsQuery, what: string): Promise<{ rows: ApprovalRow[]; limit: number }> {
    const limit = checkLimit(request.limit, `${what} limit`);
    const filter = sqlFilter('postgres');
    filter.add('decision IS NULL');
    if (request.owner !== undefined) filter.add('owner = ?', request.owner);
    if (request.after !== undefined) filter.add('seq > ?', decodeRunCursor(request.after));
    return { rows: (await query<ApprovalRow>(`SELECT * FROM approvals ${filter.where()} ORDER BY seq LIMIT ${filter.value(limit + 1)}`, filter.values)).rows, limit };
  }

  return {
    async createRun(run, events) {
      checkNewRun(run);
      const texts = eventTexts(events);
      const at = now();
      return commits.write(run.runId, async (client) => {
        const inserted = await client.query<RunRow>(
          `INSERT INTO runs (run_id, owner, status, mode, session_id, chat_id, model, input, state, text, error, created_at, updated_at, revision, schema_version, driver)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL, $10, $10, 1, $11, $12) RETURNING *`,
          [run.runId, run.owner, run.status, run.mode, run.sessionId, run.chatId, run.model, run.input, run.state, at, STORE_SCHEMA_VERSION, instance],
        );
        return { events: stagedEvents(texts, at), runs: [run.runId], result: (ids) => ({ run: runFromRow(inserted.rows[0]!), events: storedEvents(texts, ids, at) }) };
      });
    },

    async getRun(runId) {
      const row = (await query<RunRow>('SELECT * FROM runs WHERE run_id = $1', [runId])).rows[0];
      return row === undefined ? undefined : runFromRow(row);
    },

    async listRuns(request) {
      const limit = checkLimit(request.limit, 'listRuns limit');
      const { sql, values } = runsPageQuery('postgres', { ...request, before: request.before === undefined ? undefined : decodeRunCursor(request.before) }, limit);
      const rows = (await query<RunRow>(sql, values)).rows;
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
        const moved = await moveRun(client, { runId, revision, change, at, instance, dropApprovals: extra.dropApprovals === true });
        if (moved === undefined) return { events: [], result: () => undefined };
        for (const approval of approvals) {
          await client.query(
            `INSERT INTO approvals (run_id, tool_call_id, owner, tool, group_id, request, created_at, decision, schema_version) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8)`,
            [approval.runId, approval.toolCallId, approval.owner, approval.tool, approval.groupId, approval.request, at, STORE_SCHEMA_VERSION],
          );
        }
        return { events: stagedEvents(texts, at), runs: [runId], result: (ids) => ({ run: runFromRow(moved), events: storedEvents(texts, ids, at) }) };
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

  };
}

/**
 * Compare-and-set: only the revision the caller read moves; the row as
 * moved, or undefined (nothing written). With `dropApprovals`, the run's
 * undecided approvals are deleted in the same statement, when (and only
 * when) it moves. Only while `instance` (when not null) drives the run
 * under a live lease.
 *
 * @example
 * const moved = await moveRun(client, { runId, revision: 3, change: { status: 'running' }, at, instance });
 */
export async function moveRun(client: pg.PoolClient, move: { runId: string; revision: number; change: RunChange; at: string; instance: string | null; dropApprovals?: boolean }): Promise<RunRow | undefined> {
  const { runId, revision, change, at, instance } = move;
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
      move.dropApprovals === true,
    ],
  );
  return moved.rows[0];
}
