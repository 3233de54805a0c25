/**
 * Group commit for the SQLite store: writes queued in one turn of the event
 * loop run together in one IMMEDIATE transaction. Each write runs inside its
 * own SAVEPOINT, so a write that throws (a broken rule, a taken key) rolls
 * back its own changes only and rejects its own promise; the others of the
 * batch still commit. When the COMMIT (or the BEGIN) fails, the whole batch
 * is rolled back and every write in it is rejected with that error.
 *
 * Durability: a write's promise settles only after a `sync` (the store's: an
 * fdatasync of the write-ahead log on the thread pool) that began after its
 * COMMIT returned. COMMIT itself then only writes the WAL
 * (`synchronous = NORMAL`), so the event loop never waits for the disk, and
 * batches that commit while a sync runs share the next one. A sync that
 * fails rejects the writes it was to make durable, and every later write:
 * after a failed fsync, what the disk holds is unknown, so the store accepts
 * nothing more until it is opened again.
 *
 * Writes run in the order they were queued, one after the other under the
 * write lock, so a compare-and-set sees every earlier write of the batch (and
 * of every other process, which waits for or holds the same lock).
 */
import type Database from 'better-sqlite3';
import { StoreError } from './sqlite-store-error.ts';

/** What a store may watch of its batches (tests count commits with it). */
export interface GroupCommitHooks {
  /** Called after a batch's COMMIT returned, with how many writes it held. */
  afterCommit?: (batch: { writes: number }) => void;
  /** Called just before COMMIT, inside the open transaction (tests make it fail from here). */
  beforeCommit?: (database: Database.Database) => void;
  /** Awaited before each sync starts (tests hold a sync back, or make it fail, from here). */
  beforeSync?: () => Promise<void>;
}

export interface GroupCommitOptions {
  database: Database.Database;
  /** A batch is committed as soon as it holds this many writes, without waiting for the next turn. Default 256. */
  maxBatch?: number;
  /** Makes durable every commit that returned before it was called (the store's WAL fdatasync). */
  sync: () => Promise<void>;
  hooks?: GroupCommitHooks;
}

/** Queues writes; `write` answers once the write is durable (or has failed). */
export interface GroupCommit {
  write<Result>(work: () => Result): Promise<Result>;
  /**
   * Settles once a sync that began after this call finished: what any
   * connection had committed before it (and a read made before it saw) is
   * then on disk.
   */
  durable(): Promise<void>;
  /** Commits what is queued, waits for the syncs, and accepts no more writes (before closing the database). */
  close(): Promise<void>;
}

interface QueuedWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * The group commit of one connection. `work` runs synchronously inside the
 * batch's transaction and must not await; what it returns is what the
 * write's promise resolves to.
 *
 * @example
 * const commits = createGroupCommit({ database, sync: walSync.sync });
 * const changed = await commits.write(() => database.prepare('UPDATE runs SET text = ? WHERE run_id = ?').run('done', 'run-1').changes);
 */
export function createGroupCommit(options: GroupCommitOptions): GroupCommit {
  const { database, sync, hooks = {} } = options;
  const maxBatch = options.maxBatch ?? 256;
  if (!Number.isSafeInteger(maxBatch) || maxBatch < 1) throw new Error(`group commit maxBatch must be a positive integer, got ${JSON.stringify(options.maxBatch)}`);
  let queue: QueuedWrite[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  /** Settlers of commits (and `durable` callers) waiting for a sync that has not begun yet. */
  let awaitingSync: Array<(failure: unknown) => void> = [];
  let syncing: Promise<void> | undefined;
  /** A failed sync's error: every later write, and every later `durable`, is rejected with it. */
  let broken: unknown;
  let closed = false;

  // Prepared on first use: the connection may be closed before any write.
  let control: { begin: Database.Statement; commit: Database.Statement; rollback: Database.Statement; savepoint: Database.Statement; release: Database.Statement; undo: Database.Statement } | undefined;
  const statements = () => {
    control ??= {
      begin: database.prepare('BEGIN IMMEDIATE'),
      commit: database.prepare('COMMIT'),
      rollback: database.prepare('ROLLBACK'),
      savepoint: database.prepare('SAVEPOINT toolgate_write'),
      release: database.prepare('RELEASE toolgate_write'),
      undo: database.prepare('ROLLBACK TO toolgate_write'),
    };
    return control;
  };

  const runBatch = (batch: QueuedWrite[]): void => {
    let outcomes: Outcome[];
    try {
      outcomes = commitBatch(batch);
    } catch (error) {
      for (const write of batch) write.reject(error);
      return;
    }
    const settle = (failure: unknown) =>
      batch.forEach((write, index) => {
        const outcome = outcomes[index] as Outcome;
        if (failure !== undefined) write.reject(failure);
        else if (outcome.ok) write.resolve(outcome.value);
        else write.reject(outcome.error);
      });
    hooks.afterCommit?.({ writes: batch.length });
    afterNextSync(settle);
  };

  /** Runs `settle` once a sync that begins after now has finished (with its failure, if it failed). */
  const afterNextSync = (settle: (failure: unknown) => void): void => {
    awaitingSync.push(settle);
    if (syncing === undefined) startSync();
  };

  // One sync at a time: commits made while one runs wait for the next, which covers them all.
  const startSync = (): void => {
    const covered = awaitingSync;
    awaitingSync = [];
    syncing = (async () => {
      // After a failed fsync the kernel may report the next one clean though the pages were lost: no sync is believed again.
      let failure: unknown = broken;
      if (failure === undefined) {
        try {
          await hooks.beforeSync?.();
          await sync();
        } catch (error) {
          failure = error;
          broken ??= error;
        }
      }
      for (const settle of covered) settle(failure);
    })().finally(() => {
      syncing = undefined;
      if (awaitingSync.length > 0) startSync();
    });
  };

  /** One transaction for the batch; throws (after rolling it all back) when BEGIN or COMMIT fails. */
  const commitBatch = (batch: QueuedWrite[]): Outcome[] => {
    const sql = statements();
    sql.begin.run();
    try {
      const outcomes = batch.map((write): Outcome => {
        sql.savepoint.run();
        try {
          const value = write.work();
          sql.release.run();
          return { ok: true, value };
        } catch (error) {
          // Undo this write only; the savepoint is then released, keeping the batch's earlier writes.
          sql.undo.run();
          sql.release.run();
          return { ok: false, error };
        }
      });
      hooks.beforeCommit?.(database);
      sql.commit.run();
      return outcomes;
    } catch (error) {
      // A failed COMMIT (a deferred constraint, a full disk, an I/O error) may leave the transaction open.
      if (database.inTransaction) sql.rollback.run();
      throw error;
    }
  };

  /** Commits what is queued now, synchronously. */
  const flush = (): void => {
    if (scheduled !== undefined) {
      clearImmediate(scheduled);
      scheduled = undefined;
    }
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      runBatch(batch);
    }
  };

  return {
    write<Result>(work: () => Result): Promise<Result> {
      return new Promise<Result>((resolve, reject) => {
        if (closed || broken !== undefined) {
          reject(broken ?? new StoreError({ code: 'STORE_UNAVAILABLE', message: 'the store is closed; open it again to write' }));
          return;
        }
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        if (queue.length >= maxBatch) flush();
        else scheduled ??= setImmediate(flush);
      });
    },
    durable() {
      return new Promise<void>((resolve, reject) => afterNextSync((failure) => (failure === undefined ? resolve() : reject(failure))));
    },
    async close() {
      // What is queued commits first: a write accepted before close is not dropped.
      closed = true;
      flush();
      while (syncing !== undefined) await syncing;
    },
  };
}
