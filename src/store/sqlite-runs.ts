/**
 * The SQLite store's runs and their approvals: creating, reading and moving
 * runs (compare-and-set on the revision, in `sqlite-writes.ts`), and
 * deciding approvals (the last decider claims the run).
 */
import type { SqliteConnection } from './sqlite-connection.ts';
import { type ApprovalRow, type RunRow, approvalDecisionFromRow, approvalFromRow, APPROVAL_DECISION_COLUMNS, approvalTextFromRow, runFromRow } from './sqlite-rows.ts';
import { checkLimit, checkNewRun, decidedCalls, decodeRunCursor, eventTexts, jsonObjectText, pageOf, storedEvents } from './store-records.ts';
import { runsPageQuery, sqlFilter } from './sql-filter.ts';
import { RUN_STATUSES } from './store.ts';
import type { DecideResult, PendingApprovalsQuery, RunStatus, ToolgateStore } from './store.ts';

/** The store's methods for runs and their approvals. */
export type RunRecords = Pick<
  ToolgateStore,
  'createRun' | 'getRun' | 'listRuns' | 'decidedPausedRuns' | 'countRuns' | 'updateRun' | 'listApprovals' | 'listRunDecisions' | 'listPendingApprovals' | 'listPendingApprovalTexts' | 'decideApprovals'
>;

/**
 * The runs and approvals of one store.
 *
 * @example
 * const run = await sqliteRunRecords(db).getRun('run_1');
 */
export function sqliteRunRecords(db: SqliteConnection): RunRecords {
  const { statement, write, now } = db;

  /** One page of undecided approvals, oldest first (`LIMIT limit + 1`, for `pageOf`). */
  const pendingApprovalRows = (query: PendingApprovalsQuery, what: string): { rows: ApprovalRow[]; limit: number } => {
    const limit = checkLimit(query.limit, `${what} limit`);
    const filter = sqlFilter('sqlite');
    filter.add('decision IS NULL');
    if (query.owner !== undefined) filter.add('owner = ?', query.owner);
    if (query.after !== undefined) filter.add('seq > ?', decodeRunCursor(query.after));
    return { rows: statement(`SELECT * FROM approvals ${filter.where()} ORDER BY seq LIMIT ${filter.value(limit + 1)}`).all(...filter.values) as ApprovalRow[], limit };
  };

  return {
    async createRun(run, events) {
      checkNewRun(run);
      const texts = eventTexts(events);
      const at = now();
      const written = await write('createRun', { run, events: texts, at });
      return { run: runFromRow(written.run), events: storedEvents(texts, written.eventIds, at) };
    },

    async getRun(runId) {
      const row = statement('SELECT * FROM runs WHERE run_id = ?').get(runId) as RunRow | undefined;
      return row === undefined ? undefined : runFromRow(row);
    },

    async listRuns(query) {
      const limit = checkLimit(query.limit, 'listRuns limit');
      const { sql, values } = runsPageQuery('sqlite', { ...query, before: query.before === undefined ? undefined : decodeRunCursor(query.before) }, limit);
      const rows = statement(sql).all(...values) as RunRow[];
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
  };
}
