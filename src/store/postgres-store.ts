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
import { openPostgresConnection, type PostgresStoreOptions } from './postgres-connection.ts';
import { commitLanes, commitStagedEvents } from './postgres-event-commit.ts';
import { createPostgresGroupCommit } from './postgres-group-commit.ts';
import { postgresCallRecords } from './postgres-calls.ts';
import { postgresDecideApprovals } from './postgres-decisions.ts';
import { postgresInstances, postgresKeptRecords, postgresSharedRecords } from './postgres-records.ts';
import { postgresOutbox } from './postgres-outbox.ts';
import { postgresRunRecords } from './postgres-runs.ts';
import { watchChanges } from './postgres-watch.ts';
import type { ToolgateStore } from './store.ts';

export type { PostgresStoreOptions } from './postgres-connection.ts';

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
  const db = await openPostgresConnection(options);
  const commits = createPostgresGroupCommit({ pool: db.pool, commitEvents: commitStagedEvents, failure: db.failure, lanes: commitLanes(options.maxConnections ?? 10) });
  const instances = postgresInstances(db);
  let closed = false;
  const watchers = new Set<() => Promise<void>>();
  return {
    kind: 'postgres',
    ...(instances === undefined ? {} : { instances }),
    shared: postgresSharedRecords(db),
    ...postgresRunRecords(db, commits),
    ...postgresCallRecords(db, commits),
    decideApprovals: postgresDecideApprovals(db, commits),
    ...postgresKeptRecords(db),
    outbox: postgresOutbox(db),

    watch(listener) {
      const stop = watchChanges({ url: options.url, listener, connectTimeoutMs: options.connectTimeoutMs ?? 10_000 });
      watchers.add(stop);
      return async () => {
        watchers.delete(stop);
        await stop();
      };
    },

    async close() {
      if (closed) return;
      closed = true;
      // Writes queued and queries under way finish first: pool.end waits for checked-out connections to be released.
      await commits.drain();
      await db.end();
      for (const stop of watchers) await stop();
    },
  };
}
