/**
 * The SQLite store's record of what runs do: their events (streamed only
 * once durable), the calls they run (begun at most once) and the model
 * calls they record.
 */
import type { SqliteConnection } from './sqlite-connection.ts';
import { type CallRow, type EventRow, type StepRow, callFromRow, eventFromRow, stepFromRow } from './sqlite-rows.ts';
import { checkAfterId, checkCallEnd, checkLimit, checkStep, eventTexts, storedEvents } from './store-records.ts';
import { eventsQuery } from './sql-filter.ts';
import type { ToolgateStore } from './store.ts';

/** The store's methods for events, calls and steps. */
export type CallRecords = Pick<ToolgateStore, 'appendEvents' | 'readEvents' | 'lastEventId' | 'beginCall' | 'recordStep' | 'listSteps' | 'finishCall' | 'getCall' | 'listCalls'>;

/**
 * The events, calls and steps of one store.
 *
 * @example
 * await sqliteCallRecords(db).beginCall({ runId, toolCallId, tool, input });
 */
export function sqliteCallRecords(db: SqliteConnection): CallRecords {
  const { statement, write, durable, now } = db;
  return {
    async appendEvents(events) {
      const texts = eventTexts(events);
      const at = now();
      return storedEvents(texts, await write('appendEvents', { events: texts, at }), at);
    },

    async readEvents(query) {
      const limit = checkLimit(query.limit, 'readEvents limit');
      checkAfterId(query.afterId);
      const { sql, values } = eventsQuery('sqlite', query, limit);
      const rows = statement(sql).all(...values) as EventRow[];
      // Streamed events must be on disk: an event lost with the power would give its id to another, and a client resuming from it would miss that one.
      await durable();
      return rows.map(eventFromRow);
    },

    async lastEventId() {
      const id = statement('SELECT coalesce(max(id), 0) FROM events').pluck().get() as number;
      await durable();
      return id;
    },

    async beginCall(call) {
      return write('beginCall', { runId: call.runId, toolCallId: call.toolCallId, tool: call.tool, input: call.input, at: now() });
    },

    async finishCall(runId, toolCallId, status, output, events = []) {
      checkCallEnd(status);
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
  };
}
