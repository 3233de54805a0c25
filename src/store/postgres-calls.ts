/**
 * The PostgreSQL store's record of what runs do: their events (ids in
 * commit order), the calls they run (begun at most once, while this server
 * drives the run) and the model calls they record.
 */
import type { PostgresConnection } from './postgres-connection.ts';
import { stagedEvents } from './postgres-event-commit.ts';
import { drivesRun, fencedError } from './postgres-fence.ts';
import type { PostgresGroupCommit } from './postgres-group-commit.ts';
import { callFromRow, type CallRow, eventFromRow, type EventRow, stepFromRow, type StepRow } from './sqlite-rows.ts';
import { checkAfterId, checkCallEnd, checkLimit, checkStep, eventTexts, storedEvents } from './store-records.ts';
import { StoreError } from './sqlite-store-error.ts';
import { eventsQuery } from './sql-filter.ts';
import { STORE_SCHEMA_VERSION } from './store.ts';
import type { ToolgateStore } from './store.ts';

/** The store's methods for events, calls and steps. */
export type CallRecords = Pick<ToolgateStore, 'appendEvents' | 'readEvents' | 'lastEventId' | 'beginCall' | 'recordStep' | 'listSteps' | 'finishCall' | 'getCall' | 'listCalls'>;

/**
 * The events, calls and steps of one store, on its connection and group commit.
 *
 * @example
 * const calls = postgresCallRecords(db, commits);
 * await calls.beginCall({ runId, toolCallId, tool, input });
 */
export function postgresCallRecords(db: PostgresConnection, commits: PostgresGroupCommit): CallRecords {
  const { query, now, instance } = db;
  return {
    async appendEvents(events) {
      const texts = eventTexts(events);
      const at = now();
      // Events of several runs go in the first one's lane: they lock no run's row (their check takes FOR KEY SHARE, which blocks no writer).
      return commits.write(texts[0]?.runId ?? '', async () => ({ events: stagedEvents(texts, at), result: (ids) => storedEvents(texts, ids, at) }));
    },

    async readEvents(request) {
      const limit = checkLimit(request.limit, 'readEvents limit');
      checkAfterId(request.afterId);
      const { sql, values } = eventsQuery('postgres', request, limit);
      const rows = (await query<EventRow>(sql, values)).rows;
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
      checkCallEnd(status);
      const texts = eventTexts(events);
      const at = now();
      return commits.write(runId, async (client) => {
        const ended = await client.query(`UPDATE calls SET status = $1, output = $2, finished_at = $3 WHERE run_id = $4 AND tool_call_id = $5 AND status = 'executing'`, [status, output, at, runId, toolCallId]);
        if (ended.rowCount === 1) return { events: stagedEvents(texts, at), result: (ids) => storedEvents(texts, ids, at) };
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
    }
  };
}
