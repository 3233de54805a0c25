/**
 * Checkpoints of the SQLite store's write-ahead log, on a worker thread.
 *
 * SQLite's automatic checkpoint runs inside the COMMIT that pushes the WAL
 * past 1,000 pages, on the connection that commits: it copies every page
 * to the database file and fsyncs the WAL and the database. On the event
 * loop that took 9–11 ms every 20 or so batches while approvals poured in
 * (half of all the time COMMIT took), and every request waited meanwhile.
 *
 * Here a worker thread with its own connection runs `wal_checkpoint(PASSIVE)`
 * every 64 commits: it copies what was committed, syncs, and never waits
 * for (or blocks) the writer. A checkpoint changes no page a reader sees, so
 * the store's connection keeps its page cache.
 *
 * What stays on the event loop: when a checkpoint has copied the whole WAL,
 * the next COMMIT starts the WAL over and SQLite syncs its new header there
 * (one fsync; an out-of-order write after a restart could corrupt the
 * database otherwise). Checkpointing by commit count, not by time, keeps that
 * to at most one in 64 commits; SQLite's own checkpoint restarted the WAL
 * about as often (every 1,000 pages, 25 to 200 commits here) and also made
 * its two syncs and all its copying there. The store's connection keeps a
 * much higher automatic checkpoint as a safety net (`SAFETY_NET_PAGES`):
 * while commits keep coming, a PASSIVE checkpoint never finds the whole WAL
 * copied, so the WAL would not start over; and a worker that died must not
 * let it grow without bound. With the worker alive the net has little left
 * to copy (but still syncs twice on the loop); with the worker dead it
 * copies up to 4,000 pages there, every 4,000 pages.
 *
 * Durability is unchanged: commits are durable once the WAL is synced
 * (`sqlite-wal-sync.ts`); a checkpoint only moves pages already safe in the
 * WAL, and syncs the database before the WAL may be reused.
 *
 * No library does this: better-sqlite3 is synchronous by design and SQLite
 * checkpoints on the committing thread.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** The store connection's own automatic checkpoint, in WAL pages (16 MB of 4 KB pages): the net under the worker. */
export const SAFETY_NET_PAGES = 4000;

export interface CheckpointerOptions {
  /** The database file (its WAL is `${file}-wal`). */
  file: string;
  /** A checkpoint starts once this many commits were made since the last one started. Default 64. */
  everyCommits?: number;
  /**
   * ...or this long after the first commit since then. Default: never, so that
   * a store committing now and then does not start its WAL over (an fsync on
   * the event loop) after every quiet spell.
   */
  delayMs?: number;
  /** Told when a checkpoint (or the worker) fails; the safety net takes over meanwhile. */
  onError?: (error: Error) => void;
  /** The worker's code (CommonJS); tests give one that fails. Default: the checkpointing worker below. */
  workerSource?: string;
}

export interface Checkpointer {
  /** Called after each COMMIT. */
  committed(): void;
  /** Waits for a running checkpoint, then stops the worker. */
  close(): Promise<void>;
  /** Checkpoints finished, and whether the worker was ever started (a short-lived store never starts it). */
  readonly stats: { checkpoints: number; failures: number; started: boolean };
}

interface CheckpointAnswer {
  ok: boolean;
  /** Another connection held the checkpoint lock: nothing was copied this time (not a failure). */
  busy?: boolean;
  message?: string;
}

// CommonJS, evaluated in the worker: it needs no loader for TypeScript, wherever toolgate runs from.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let database;
parentPort.on('message', (message) => {
  if (message === 'close') {
    try { database?.close(); } finally { parentPort.close(); }
    return;
  }
  try {
    if (database === undefined) {
      database = new Database(workerData.file, { fileMustExist: true });
      // Its own commits never checkpoint; its checkpoints sync the WAL before, and the database after, copying.
      database.pragma('wal_autocheckpoint = 0');
      database.pragma('synchronous = NORMAL');
    }
    const [result] = database.pragma('wal_checkpoint(PASSIVE)');
    // log -1: the database is not in WAL mode, which the store never leaves.
    if (result.log === -1) parentPort.postMessage({ ok: false, message: 'the database is not in WAL mode' });
    else parentPort.postMessage({ ok: true, busy: result.busy === 1 });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: String(error && error.message || error) });
  }
});
`;

/**
 * @example
 * const checkpointer = startCheckpointer({ file, onError: (error) => logger.warn('checkpoint failed', { error: error.message }) });
 * commits = createGroupCommit({ database, sync, hooks: { afterCommit: () => checkpointer.committed() } });
 */
export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  // Measured under approval bursts: every 16 commits cost more CPU than it saved (each checkpoint syncs twice); every 64, less.
  const everyCommits = options.everyCommits ?? 64;
  const delayMs = options.delayMs;
  // Resolved now: the worker opens it later, when the process's directory may have changed.
  const file = path.resolve(options.file);
  let worker: Worker | undefined;
  /** Set once the worker failed for good (it exited or could not start): the safety net checkpoints from then on. */
  let dead = false;
  let closed = false;
  let running: Promise<void> | undefined;
  let commitsSince = 0;
  let timer: NodeJS.Timeout | undefined;
  /** Whether the worker's death was reported already (an error, then its exit, is one failure). */
  let deathReported = false;
  const stats = { checkpoints: 0, failures: 0, started: false };
  let answer: ((reply: CheckpointAnswer) => void) | undefined;

  const fail = (error: Error): void => {
    stats.failures++;
    try {
      options.onError?.(error);
    } catch {
      // It is called from inside a commit's bookkeeping: a logger that throws must not leave writes unsettled.
    }
  };

  const spawn = (): Worker | undefined => {
    if (dead) return undefined;
    if (worker !== undefined) return worker;
    try {
      worker = new Worker(options.workerSource ?? WORKER_SOURCE, { eval: true, workerData: { file, driver: createRequire(import.meta.url).resolve('better-sqlite3') } });
    } catch (error) {
      dead = true;
      fail(new Error(`the checkpoint worker could not start: ${(error as Error).message}`));
      return undefined;
    }
    stats.started = true;
    // It must not keep a process alive that is otherwise done.
    worker.unref();
    worker.on('message', (reply: CheckpointAnswer) => answer?.(reply));
    worker.on('error', (error) => {
      dead = true;
      if (deathReported) return;
      deathReported = true;
      fail(new Error(`the checkpoint worker of ${file} failed: ${error.message}; the store connection's own checkpoints take over`));
    });
    worker.on('exit', (code) => {
      dead = true;
      // A checkpoint it never answered: nobody waits for it forever (a death already reported is not reported again).
      const reported = deathReported || closed;
      deathReported = true;
      answer?.({ ok: true, busy: true });
      if (!reported) fail(new Error(`the checkpoint worker of ${file} exited (code ${code}); the store connection's own checkpoints take over`));
    });
    return worker;
  };

  const start = (): void => {
    clearTimeout(timer);
    timer = undefined;
    // A worker that died while a start was scheduled must not be posted to: its answer would never come, and close would wait for it forever.
    if (running !== undefined || closed || dead) return;
    const target = spawn();
    if (target === undefined) return;
    commitsSince = 0;
    running = new Promise<void>((resolve) => {
      answer = (reply) => {
        answer = undefined;
        if (reply.ok && reply.busy !== true) stats.checkpoints++;
        else if (!reply.ok && !closed) fail(new Error(`a WAL checkpoint of ${file} failed: ${reply.message}`));
        resolve();
      };
      target.postMessage('checkpoint');
    }).finally(() => {
      running = undefined;
      // Commits made while it ran are checkpointed by the next one.
      if (commitsSince > 0) schedule();
    });
  };

  const schedule = (): void => {
    if (closed || dead || running !== undefined) return;
    if (commitsSince >= everyCommits) start();
    else if (delayMs !== undefined) timer ??= setTimeout(start, delayMs).unref();
  };

  return {
    committed() {
      commitsSince++;
      schedule();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      // Unreferenced, the worker would not keep the process alive while close waits for it, and close would never settle.
      worker?.ref();
      await running;
      const stopping = worker;
      worker = undefined;
      if (stopping === undefined || dead) return;
      const exited = new Promise<void>((resolve) => stopping.once('exit', () => resolve()));
      stopping.postMessage('close');
      await exited;
    },
    stats,
  };
}
