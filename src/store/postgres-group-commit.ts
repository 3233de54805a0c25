/**
 * Group commit for the PostgreSQL store's writes that store events. Events
 * get their ids in commit order (see `postgres-store.ts`): the transaction
 * that inserts them holds the event-order lock until its COMMIT has been
 * flushed, so transactions storing events commit one after another, across
 * every server sharing the database. One transaction per write would make
 * each write wait for all the others' fsyncs; here a server's writes that
 * arrive while one batch commits share the next one: one transaction, one
 * lock and one fsync for all of them.
 *
 * Each write runs in its own SAVEPOINT, so a write that fails (a taken key,
 * a run another writer moved) rolls back its own changes only and rejects
 * its own promise. A write's events are not inserted by the write: it says
 * what it stores, and the batch inserts the events of every write that
 * succeeded at the very end, under the lock, in one statement; then it
 * commits, and each write learns its ids. Rows are therefore locked only
 * before the lock is taken, never after, as with one write per transaction.
 *
 * A server commits in several lanes at once (`lanes`, each with its own
 * queue and connection): a batch's own statements are most of its time, one
 * round trip after another, and only the event insert and the COMMIT need
 * the lock. A write names its run, and all the writes of one run go to the
 * same lane, in the order they were made: two lanes never hold locks on the
 * same run, and one run's writes commit in order, as with one lane.
 *
 * Writes of two servers' batches can still wait for each other's row locks
 * (two deciders of one run); when PostgreSQL breaks such a wait as a
 * deadlock, the write that lost is run again on its own, in a transaction
 * of its own, which cannot deadlock. A failed BEGIN or COMMIT, or a lost
 * connection, rejects every write of the batch: none of them was committed.
 */
import type pg from 'pg';
import { StoreError } from './sqlite-store-error.ts';

/** What a write stores besides its own rows: its events, and how to answer once they have ids. */
export interface StagedWrite<Result> {
  events: readonly StagedEvent[];
  /** Runs the write has already found (inserted, moved or locked) in its transaction: its events for them need no check. */
  runs?: readonly string[];
  result: (ids: readonly number[]) => Result;
}

/** An event row as the batch inserts it. */
export interface StagedEvent {
  runId: string;
  owner: string;
  type: string;
  /** The event's data as JSON text. */
  data: string;
  at: string;
}

/** A write: its changes, made on the batch's connection inside its transaction. */
export type BatchedWork<Result> = (client: pg.PoolClient) => Promise<StagedWrite<Result>>;

export interface PostgresGroupCommitOptions {
  pool: pg.Pool;
  /** Inserts the batch's events under the event-order lock (and notifies), and commits; their ids, in order. */
  commitEvents: (client: pg.PoolClient, events: readonly StagedEvent[]) => Promise<number[]>;
  /** Turns a driver error into the store's error (STORE_UNAVAILABLE when the database cannot be reached). */
  failure: (error: unknown) => unknown;
  /** A batch holds at most this many writes. Default 128. */
  maxBatch?: number;
  /** Batches committing at once, each on its own connection (keep it below the pool's size). Default 4. */
  lanes?: number;
}

export interface PostgresGroupCommit {
  /** Queues `work` in the lane of `runId` (the run whose rows it changes): one run's writes commit in the order made. */
  write<Result>(runId: string, work: BatchedWork<Result>): Promise<Result>;
  /** Resolves once every write queued so far has committed or failed. */
  drain(): Promise<void>;
}

interface QueuedWrite {
  work: BatchedWork<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { kind: 'staged'; staged: StagedWrite<unknown> } | { kind: 'failed'; error: unknown } | { kind: 'again' };

const SAVEPOINT = 'toolgate_write';

/** SQLSTATEs of a wait PostgreSQL broke (deadlock, serialization failure): run the write again, alone. */
const RETRY_ALONE = new Set(['40P01', '40001']);

/**
 * @example
 * const commits = createPostgresGroupCommit({ pool, commitEvents, failure });
 * const events = await commits.write('run-1', async () => ({ events: rows, result: (ids) => ids }));
 */
export function createPostgresGroupCommit(options: PostgresGroupCommitOptions): PostgresGroupCommit {
  const maxBatch = options.maxBatch ?? 128;
  const lanes = Array.from({ length: Math.max(1, options.lanes ?? 4) }, (): Lane => ({ queue: [], running: undefined }));

  const run = async (lane: Lane): Promise<void> => {
    try {
      while (lane.queue.length > 0) {
        const batch = lane.queue.slice(0, maxBatch);
        lane.queue = lane.queue.slice(batch.length);
        const again = await commitBatch(batch);
        // Each on its own: one write per transaction never deadlocks (rows are locked before the event lock, in one order).
        for (const write of again) await commitBatch([write]);
      }
    } catch (error) {
      // Not the database's (its errors settle their batch's writes): fail what waits rather than leave it waiting forever.
      for (const write of lane.queue.splice(0)) write.reject(error);
    } finally {
      lane.running = undefined;
    }
  };

  /** Commits one batch, settling its writes; returns those to run again alone. */
  const commitBatch = async (batch: QueuedWrite[]): Promise<QueuedWrite[]> => {
    let client: pg.PoolClient;
    try {
      client = await options.pool.connect();
    } catch (error) {
      for (const write of batch) write.reject(options.failure(error));
      return [];
    }
    const alone = batch.length === 1;
    let broken: Error | undefined;
    try {
      // Round trips are most of a write's cost: BEGIN and the savepoints are sent ahead of the write's first
      // statement, in the same round trip (the pool's connections pipeline), and a savepoint is released by the
      // next one's message, the last by COMMIT. Whether they succeeded is known by the time the write's first
      // statement answers; a failed one aborts the transaction, and then every later statement fails too.
      let control = sendAhead(client, alone ? 'BEGIN' : `BEGIN; SAVEPOINT ${SAVEPOINT}`);
      const outcomes: Outcome[] = [];
      for (const [index, write] of batch.entries()) {
        if (alone) {
          const staged = await settledAfter(control, () => write.work(client));
          outcomes.push({ kind: 'staged', staged });
          continue;
        }
        if (index > 0) control = sendAhead(client, `RELEASE SAVEPOINT ${SAVEPOINT}; SAVEPOINT ${SAVEPOINT}`);
        try {
          const staged = await settledAfter(control, async () => {
            const staged = await write.work(client);
            await checkRunsExist(client, staged);
            return staged;
          });
          outcomes.push({ kind: 'staged', staged });
        } catch (error) {
          if (error instanceof ControlFailed) throw error;
          // Undo this write only (its row locks too); the batch's earlier writes stay.
          await client.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
          outcomes.push(RETRY_ALONE.has((error as { code?: string }).code ?? '') ? { kind: 'again' } : { kind: 'failed', error });
        }
      }
      const events = outcomes.flatMap((outcome) => (outcome.kind === 'staged' ? outcome.staged.events : []));
      const ids = await options.commitEvents(client, events);
      const again: QueuedWrite[] = [];
      let next = 0;
      outcomes.forEach((outcome, index) => {
        const write = batch[index]!;
        if (outcome.kind === 'again') again.push(write);
        else if (outcome.kind === 'failed') write.reject(options.failure(outcome.error));
        else {
          const count = outcome.staged.events.length;
          settle(write, () => outcome.staged.result(ids.slice(next, next + count)));
          next += count;
        }
      });
      return again;
    } catch (thrown) {
      const error = thrown instanceof ControlFailed ? thrown.cause : thrown;
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError as Error;
      }
      // A broken wait between batches (the event lock, a row a write of one alone wanted): every write again, alone.
      if (!alone && broken === undefined && RETRY_ALONE.has((error as { code?: string }).code ?? '')) return batch;
      for (const write of batch) write.reject(options.failure(error));
      return [];
    } finally {
      client.release(broken);
    }
  };

  return {
    write<Result>(runId: string, work: BatchedWork<Result>): Promise<Result> {
      const lane = lanes[laneOf(runId, lanes.length)]!;
      return new Promise<Result>((resolve, reject) => {
        lane.queue.push({ work: work as BatchedWork<unknown>, resolve: resolve as (value: unknown) => void, reject });
        // Started on the next turn of the event loop: writes made together share the first batch too.
        lane.running ??= new Promise<void>((started) => setImmediate(started)).then(() => run(lane));
      });
    },
    async drain() {
      for (const lane of lanes) while (lane.running !== undefined) await lane.running;
    },
  };
}

interface Lane {
  queue: QueuedWrite[];
  running: Promise<void> | undefined;
}

/** The lane of a run's writes: a string hash (FNV-1a), the same for the same run for as long as the process lives. */
export function laneOf(runId: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < runId.length; index++) hash = Math.imul(hash ^ runId.charCodeAt(index), 0x01000193);
  return (hash >>> 0) % lanes;
}

/**
 * Fails a write (inside its savepoint) whose events name a run that does not
 * exist: the batch inserts every write's events in one statement, where the
 * foreign key would fail them all. The runs are locked FOR KEY SHARE, as the
 * key check itself would: nothing can take them away before the commit.
 */
async function checkRunsExist(client: pg.PoolClient, staged: StagedWrite<unknown>): Promise<void> {
  const found = new Set(staged.runs);
  const runIds = [...new Set(staged.events.map((event) => event.runId))].filter((runId) => !found.has(runId));
  if (runIds.length === 0) return;
  const rows = (await client.query<{ run_id: string }>('SELECT run_id FROM runs WHERE run_id = ANY($1::text[]) FOR KEY SHARE', [runIds])).rows;
  if (rows.length === runIds.length) return;
  const known = new Set(rows.map((row) => row.run_id));
  const missing = runIds.find((runId) => !known.has(runId));
  throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `events for run ${JSON.stringify(missing)}, which does not exist: none of this write's records were stored` });
}

/**
 * Sends a transaction-control message without waiting for its answer, so
 * that the statements that follow ride in the same round trip. Its outcome
 * is read by `settledAfter`; nobody is left with an unhandled rejection.
 */
function sendAhead(client: pg.PoolClient, text: string): Promise<unknown> {
  const sent = client.query(text);
  sent.catch(() => undefined);
  return sent;
}

/** A BEGIN or savepoint sent ahead that failed: the batch fails with its error, not with what it caused. */
class ControlFailed extends Error {}

/**
 * Runs `work` (statements sent after `control`), then reports `control`'s
 * failure first: a statement that failed because the transaction was
 * aborted by it is not the write's fault. Answers arrive in order, so
 * `control` has answered by the time `work`'s first statement has.
 */
async function settledAfter<Value>(control: Promise<unknown>, work: () => Promise<Value>): Promise<Value> {
  const outcome = await work().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  try {
    await control;
  } catch (controlError) {
    throw new ControlFailed('a transaction-control statement failed', { cause: controlError });
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/** Resolves with what `answer` returns, or rejects with what it throws (a result built from the committed rows). */
function settle(write: QueuedWrite, answer: () => unknown): void {
  try {
    write.resolve(answer());
  } catch (error) {
    write.reject(error);
  }
}
