/**
 * How a batch of the group commit ends (postgres-group-commit.ts): its
 * events inserted last, under the event-order lock, so that event ids are
 * in commit order (what `Last-Event-ID` replay relies on), and how many
 * batches one server commits at once.
 */
import type pg from 'pg';
import type { StagedEvent } from './postgres-group-commit.ts';
import type { EventText } from './sqlite-writes.ts';
import { EVENT_ORDER_LOCK, EVENTS_CHANNEL } from './postgres-schema.ts';
import { STORE_SCHEMA_VERSION } from './store.ts';

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

/**
 * The events of one write as the batch inserts them.
 *
 * @example
 * stagedEvents(eventTexts(events), now())
 */
export function stagedEvents(texts: readonly EventText[], at: string): StagedEvent[] {
  return texts.map((text) => ({ ...text, at }));
}
