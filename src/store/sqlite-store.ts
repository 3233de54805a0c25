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
import { openSqliteConnection, type SqliteStoreOptions } from './sqlite-connection.ts';
import { sqliteCallRecords } from './sqlite-calls.ts';
import { sqliteKeptRecords, sqliteOutbox } from './sqlite-records.ts';
import { sqliteRunRecords } from './sqlite-runs.ts';
import type { ToolgateStore } from './store.ts';

export type { SqliteStoreOptions } from './sqlite-connection.ts';

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
  const db = openSqliteConnection(options);
  return {
    kind: 'sqlite',
    ...sqliteRunRecords(db),
    ...sqliteCallRecords(db),
    ...sqliteKeptRecords(db),
    outbox: sqliteOutbox(db),
    close: () => db.close(),
  };
}
