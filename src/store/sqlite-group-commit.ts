/**
 * Group commit for the SQLite store: writes queued in one turn of the event
 * loop run together in one IMMEDIATE transaction, whose COMMIT is their one
 * fsync. Each write runs inside its own SAVEPOINT, so a write that throws
 * (a broken rule, a taken key) rolls back its own changes only and rejects
 * its own promise; the others of the batch still commit. A write's promise
 * settles only after the COMMIT that holds it returned (with
 * `synchronous = FULL`, after the WAL was synced); when the COMMIT (or the
 * BEGIN) fails, the whole batch is rolled back and every write in it is
 * rejected with that error.
 *
 * Writes run in the order they were queued, one after the other under the
 * write lock, so a compare-and-set sees every earlier write of the batch (and
 * of every other process, which waits for or holds the same lock).
 */
import type Database from 'better-sqlite3';

/** What a store may watch of its batches (tests count commits with it). */
export interface GroupCommitHooks {
  /** Called after a batch's COMMIT returned, with how many writes it held. */
  afterCommit?: (batch: { writes: number }) => void;
  /** Called just before COMMIT, inside the open transaction (tests make it fail from here). */
  beforeCommit?: (database: Database.Database) => void;
}

export interface GroupCommitOptions {
  database: Database.Database;
  /** A batch is committed as soon as it holds this many writes, without waiting for the next turn. Default 256. */
  maxBatch?: number;
  hooks?: GroupCommitHooks;
}

/** Queues writes; `write` answers once the write is durable (or has failed). */
export interface GroupCommit {
  write<Result>(work: () => Result): Promise<Result>;
  /** Commits what is queued now, synchronously (before closing the database). */
  flush(): void;
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
 * const commits = createGroupCommit({ database });
 * const changed = await commits.write(() => database.prepare('UPDATE runs SET text = ? WHERE run_id = ?').run('done', 'run-1').changes);
 */
export function createGroupCommit(options: GroupCommitOptions): GroupCommit {
  const { database, hooks = {} } = options;
  const maxBatch = options.maxBatch ?? 256;
  if (!Number.isSafeInteger(maxBatch) || maxBatch < 1) throw new Error(`group commit maxBatch must be a positive integer, got ${JSON.stringify(options.maxBatch)}`);
  let queue: QueuedWrite[] = [];
  let scheduled: NodeJS.Immediate | undefined;

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
    batch.forEach((write, index) => {
      const outcome = outcomes[index] as Outcome;
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    });
    hooks.afterCommit?.({ writes: batch.length });
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
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        if (queue.length >= maxBatch) flush();
        else scheduled ??= setImmediate(flush);
      });
    },
    flush,
  };
}
