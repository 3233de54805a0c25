/**
 * The SQLite store's database: the file opened (and its schema created or
 * checked), prepared statements, the group commit that queues every write
 * into the next durable batch, the WAL synced on the thread pool and
 * checkpointed on a worker, and closing all of it once.
 */
import type Database from 'better-sqlite3';
import { SAFETY_NET_PAGES, startCheckpointer, type Checkpointer } from './sqlite-checkpointer.ts';
import { createGroupCommit, type GroupCommit, type GroupCommitHooks } from './sqlite-group-commit.ts';
import { openSqliteDatabase } from './sqlite-schema.ts';
import { preparedStatements } from './sqlite-statements.ts';
import { openWalSync, type WalSync } from './sqlite-wal-sync.ts';
import { createSqliteWrites, type WriteKind, type WriteRequests, type WriteResults } from './sqlite-writes.ts';

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

/** One store's way to its database, shared by the parts of the store. */
export interface SqliteConnection {
  /** A prepared statement for `sql` (prepared once). */
  statement(sql: string): Database.Statement;
  /** Queues a write: it runs in the next batch, inside its own savepoint, and resolves once that batch's commit is durable. */
  write<Kind extends WriteKind>(kind: Kind, request: WriteRequests[Kind]): Promise<WriteResults[Kind]>;
  /** Resolves once every commit made so far is on disk. */
  durable(): Promise<void>;
  /** The time every stored record is stamped with. */
  now(): string;
  /** Closes it all, once, however many callers. */
  close(): Promise<void>;
}

/**
 * Opens the database file (creating it, mode 0600, when missing); throws a
 * `StoreError` when it is not a SQLite database, belongs to another
 * program, or was written by a newer toolgate.
 *
 * @example
 * const db = openSqliteConnection({ file: '.toolgate/toolgate.db' });
 */
export function openSqliteConnection(options: SqliteStoreOptions): SqliteConnection {
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
  const writes = createSqliteWrites(database);
  const write = <Kind extends WriteKind>(kind: Kind, request: WriteRequests[Kind]): Promise<WriteResults[Kind]> => commits.write(() => writes[kind](request));

  let closing: Promise<void> | undefined;
  return {
    statement,
    write,
    durable: () => commits.durable(),
    now,
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
}
