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
 * every 64 commits, or half a second after a commit: it copies what was committed, syncs, and
 * never waits for (or blocks) the writer. A checkpoint changes no page a
 * reader sees, so the store's connection keeps its page cache. The store's
 * connection keeps a much higher automatic checkpoint as a safety net
 * (`SAFETY_NET_PAGES`): a PASSIVE checkpoint cannot let the writer start the
 * WAL over while commits keep coming, and if the worker fails, the WAL must
 * still not grow without bound. By then the worker has copied nearly all of
 * it, so the net's checkpoint is short.
 *
 * Durability is unchanged: commits are durable once the WAL is synced
 * (`sqlite-wal-sync.ts`); a checkpoint only moves pages already safe in the
 * WAL, and syncs the database before the WAL may be reused.
 *
 * No library does this: better-sqlite3 is synchronous by design and SQLite
 * checkpoints on the committing thread.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The store connection's own automatic checkpoint, in WAL pages (16 MB of 4 KB pages): the net under the worker. */
export const SAFETY_NET_PAGES = 4000;

export interface CheckpointerOptions {
  /** The database file (its WAL is `${file}-wal`). */
  file: string;
  /** A checkpoint starts once this many commits were made since the last one started. Default 64. */
  everyCommits?: number;
  /** ...or this long after the first commit since then. Default 500 ms. */
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
    database.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true });
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
  const delayMs = options.delayMs ?? 500;
  const onError = options.onError ?? (() => {});
  let worker: Worker | undefined;
  /** Set once the worker failed for good (it exited or could not start): the safety net checkpoints from then on. */
  let dead = false;
  let closed = false;
  let running: Promise<void> | undefined;
  let commitsSince = 0;
  let timer: NodeJS.Timeout | undefined;
  const stats = { checkpoints: 0, failures: 0, started: false };
  let answer: ((reply: CheckpointAnswer) => void) | undefined;

  const fail = (error: Error): void => {
    stats.failures++;
    onError(error);
  };

  const spawn = (): Worker | undefined => {
    if (dead) return undefined;
    if (worker !== undefined) return worker;
    try {
      worker = new Worker(options.workerSource ?? WORKER_SOURCE, { eval: true, workerData: { file: options.file, driver: createRequire(import.meta.url).resolve('better-sqlite3') } });
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
      if (dead) return;
      dead = true;
      fail(new Error(`the checkpoint worker failed: ${error.message}; the store connection's own checkpoints take over`));
    });
    worker.on('exit', (code) => {
      const unexpected = !dead && !closed;
      dead = true;
      // A checkpoint it never answered: nobody waits for it forever.
      if (answer !== undefined) answer({ ok: false, message: `the checkpoint worker exited (code ${code})` });
      else if (unexpected) fail(new Error(`the checkpoint worker of ${options.file} exited (code ${code}); the store connection's own checkpoints take over`));
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
        if (reply.ok) stats.checkpoints++;
        else if (!closed) fail(new Error(`a WAL checkpoint of ${options.file} failed: ${reply.message}`));
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
    else timer ??= setTimeout(start, delayMs).unref();
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
