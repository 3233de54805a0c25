/**
 * What both stores check and build the same way, whatever their rows:
 * the checks of what callers hand them (limits, steps, new runs, a call's
 * end, an event position, JSON objects), the run list's cursors and pages,
 * which decisions stand, and events as a write takes and stores them.
 */
import { StoreError } from './sqlite-store-error.ts';
import type { EventText } from './sqlite-writes.ts';
import type { NewEvent, StoredEvent } from './store.ts';

/** A step both stores refuse the same way: a seq that is not a whole number from 0, a body that is not text. */
export function checkStep(step: { runId: string; seq: number; body: string }): void {
  if (typeof step.runId !== 'string' || step.runId === '') throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `recordStep: runId must be a non-empty string, got ${JSON.stringify(step.runId)}` });
  if (!Number.isSafeInteger(step.seq) || step.seq < 0) throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `recordStep: seq must be an integer >= 0, got ${JSON.stringify(step.seq)}` });
  if (typeof step.body !== 'string' || step.body === '') throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `recordStep: body must be non-empty text` });
}

/**
 * JSON text for a column that holds an object; refuses anything else, so
 * that what is read back is what was written.
 *
 * @example
 * jsonObjectText({ tool_call_id: 'call-1' }, 'event data'); // '{"tool_call_id":"call-1"}'
 */
export function jsonObjectText(value: unknown, field: string): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `${field} must be a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}` });
  }
  return JSON.stringify(value);
}

const CURSOR_PREFIX = 'runs-before:';

/**
 * The `next` cursor after a page that ended with the run at `seq` (the store's creation order).
 *
 * @example
 * decodeRunCursor(encodeRunCursor(42)); // 42
 */
export function encodeRunCursor(seq: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${seq}`, 'utf8').toString('base64url');
}

/**
 * The creation order a `before` cursor points at; a cursor this store did not make is refused.
 *
 * @example
 * decodeRunCursor('bm9wZQ'); // throws StoreError STORE_INVALID_QUERY
 */
export function decodeRunCursor(cursor: string): number {
  const text = typeof cursor === 'string' && /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const seq = text.startsWith(CURSOR_PREFIX) && /^[1-9][0-9]{0,15}$/.test(text.slice(CURSOR_PREFIX.length)) ? Number(text.slice(CURSOR_PREFIX.length)) : Number.NaN;
  if (!Number.isSafeInteger(seq)) {
    throw new StoreError({ code: 'STORE_INVALID_QUERY', message: `before: ${JSON.stringify(String(cursor).slice(0, 80))} is not a cursor from a previous page's next` });
  }
  return seq;
}

/**
 * A page size or similar count: a positive integer.
 *
 * @example
 * checkLimit(query.limit, 'listRuns limit');
 */
export function checkLimit(limit: number, field: string): number {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new StoreError({ code: 'STORE_INVALID_QUERY', message: `${field} must be a positive integer, got ${JSON.stringify(limit)}` });
  }
  return limit;
}

/**
 * One page of rows read with `LIMIT limit + 1`: the first `limit`, mapped,
 * and the cursor of the next page (null when this is the last).
 *
 * @example
 * const { items, next } = pageOf({ rows, limit, map: runFromRow });
 */
export function pageOf<Row extends { seq: number }, Item>(options: { rows: Row[]; limit: number; map: (row: Row) => Item }): { items: Item[]; next: string | null } {
  const page = options.rows.slice(0, options.limit);
  const last = page.at(-1);
  return { items: page.map(options.map), next: options.rows.length > options.limit && last !== undefined ? encodeRunCursor(last.seq) : null };
}

/**
 * The calls a decision was taken on, in the order named, each once (the first
 * entry of a call named twice): a call is decided once, and only its first
 * entry's events are stored.
 */
export function decidedCalls<Call extends { toolCallId: string }>(calls: readonly Call[], decided: Iterable<string>): Call[] {
  const remaining = new Set(decided);
  return calls.filter((call) => remaining.delete(call.toolCallId));
}

/**
 * New events as a write takes them: their data checked and made JSON text.
 *
 * @example
 * eventTexts([{ runId, owner, type: 'run_started', data: {} }])[0].data // '{}'
 */
export function eventTexts(events: readonly NewEvent[]): EventText[] {
  return events.map((event) => ({ runId: event.runId, owner: event.owner, type: event.type, data: jsonObjectText(event.data, `event ${event.type} data`) }));
}

/**
 * Written events as stored: the ids the write gave them, in order.
 *
 * @example
 * storedEvents(texts, [41, 42], at)[0].id // 41
 */
export function storedEvents(events: readonly EventText[], ids: readonly number[], at: string): StoredEvent[] {
  return events.map((event, index) => ({ id: ids[index]!, runId: event.runId, owner: event.owner, type: event.type, data: JSON.parse(event.data) as Record<string, unknown>, at }));
}

/**
 * Refuses a new run that is not running (a run starts running).
 *
 * @example
 * checkNewRun({ status: 'completed' }) // throws STORE_INVALID_RECORD
 */
export function checkNewRun(run: { status: string }): void {
  if (run.status !== 'running') {
    throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `createRun: a new run's status must be "running", got ${JSON.stringify(run.status)}` });
  }
}

/**
 * Refuses a call's end that is not one (completed, failed or interrupted).
 *
 * @example
 * checkCallEnd('executing') // throws STORE_INVALID_RECORD
 */
export function checkCallEnd(status: string): void {
  if (status !== 'completed' && status !== 'failed' && status !== 'interrupted') {
    throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `finishCall: status must be completed, failed or interrupted, got ${JSON.stringify(status)}` });
  }
}

/**
 * Refuses an event position that is not an integer >= 0.
 *
 * @example
 * checkAfterId(-1) // throws STORE_INVALID_QUERY
 */
export function checkAfterId(afterId: number): void {
  if (!Number.isSafeInteger(afterId) || afterId < 0) {
    throw new StoreError({ code: 'STORE_INVALID_QUERY', message: `readEvents afterId must be an integer >= 0, got ${JSON.stringify(afterId)}` });
  }
}
