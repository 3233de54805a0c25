/**
 * Where the SQLite store's writes run. `inlineWriter` group-commits them on
 * the store's own connection: simple, but every batch's fsync holds up the
 * thread (and so a server's event loop) until the disk answers.
 * `threadWriter` runs the same writes and the same group commit on a
 * connection of a worker thread: the event loop goes on serving while a
 * batch syncs, and the writes that arrive meanwhile form the next batch.
 *
 * Either way a write's promise resolves only once its commit is durable,
 * and, because SQLite (WAL, `synchronous = FULL`) makes a commit visible to
 * other connections only after syncing it, a read never sees a write that
 * is not durable yet.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { createGroupCommit, type GroupCommitHooks } from './sqlite-group-commit.ts';
import { StoreError, type StoreErrorCode } from './sqlite-store-error.ts';
import { createSqliteWrites, type WriteKind, type WriteRequests, type WriteResults } from './sqlite-writes.ts';

export interface SqliteWriter {
  /** Queues a write; resolves with its result once the commit that holds it is durable. */
  write<Kind extends WriteKind>(kind: Kind, request: WriteRequests[Kind]): Promise<WriteResults[Kind]>;
  /** Commits what is queued, then stops taking writes. */
  close(): Promise<void>;
}

/**
 * The writes on the store's own connection (the reads' connection).
 *
 * @example
 * const writer = inlineWriter({ database });
 * const ids = await writer.write('appendEvents', { events, at });
 */
export function inlineWriter(options: { database: Database.Database; maxBatch?: number; hooks?: GroupCommitHooks }): SqliteWriter {
  const commits = createGroupCommit(options);
  const writes = createSqliteWrites(options.database);
  return {
    write: (kind, request) => commits.write(() => writes[kind](request)),
    async close() {
      commits.flush();
    },
  };
}

/** A message to the writer thread. */
export type WriterMessage = { id: number; kind: WriteKind; request: unknown } | { id: number; kind: 'close' };

/** The writer thread's answer to one message. */
export type WriterReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };

/** An error as it crosses threads: what a caller switches on survives (`StoreError` and its code, SQLite's `code`). */
export interface SerializedError {
  name: string;
  message: string;
  code?: string;
}

/**
 * An error as the writer thread sends it.
 *
 * @example
 * port.postMessage({ id, ok: false, error: serializeError(error) });
 */
export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
}

function deserializeError(error: SerializedError): Error {
  if (error.name === 'StoreError' && error.code !== undefined) return new StoreError({ code: error.code as StoreErrorCode, message: error.message });
  return Object.assign(new Error(error.message), { name: error.name, ...(error.code === undefined ? {} : { code: error.code }) });
}

/** The worker's own file, beside this one (`.ts` when run from source, `.js` once built). */
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './sqlite-writer-worker.ts' : './sqlite-writer-worker.js', import.meta.url);

/**
 * The writes on a worker thread's own connection to `file` (opened there;
 * the caller has already created the schema). If the thread fails, every
 * write waiting on it and every later one is refused: nothing is reported
 * written that was not.
 *
 * @example
 * const writer = threadWriter({ file: '.toolgate/toolgate.db', busyTimeoutMs: 10_000 });
 */
export function threadWriter(options: { file: string; busyTimeoutMs: number; maxBatch?: number }): SqliteWriter {
  const worker = new Worker(WORKER_URL, { workerData: { file: options.file, busyTimeoutMs: options.busyTimeoutMs, maxBatch: options.maxBatch ?? 256 } });
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  let nextId = 1;
  let failure: Error | undefined;
  let closed: Promise<void> | undefined;
  // The thread keeps the process alive only while a write waits on it.
  worker.unref();
  const settle = (id: number) => {
    const entry = waiting.get(id);
    waiting.delete(id);
    if (waiting.size === 0) worker.unref();
    return entry;
  };
  const failAll = (error: Error) => {
    failure ??= error;
    for (const id of [...waiting.keys()]) settle(id)?.reject(failure);
  };
  worker.on('message', (reply: WriterReply) => {
    const entry = settle(reply.id);
    if (reply.ok) entry?.resolve(reply.value);
    else entry?.reject(deserializeError(reply.error));
  });
  worker.on('error', (error) => failAll(new Error(`the store's writer thread failed: ${error.message}`, { cause: error })));
  worker.on('exit', (code) => failAll(new Error(`the store's writer thread stopped (exit code ${code}); nothing more can be written`)));
  const send = (message: WriterMessage): Promise<unknown> => {
    if (failure !== undefined) return Promise.reject(failure);
    return new Promise((resolve, reject) => {
      if (waiting.size === 0) worker.ref();
      waiting.set(message.id, { resolve, reject });
      worker.postMessage(message);
    });
  };
  return {
    write<Kind extends WriteKind>(kind: Kind, request: WriteRequests[Kind]): Promise<WriteResults[Kind]> {
      if (closed !== undefined) return Promise.reject(new Error('the store is closed'));
      return send({ id: nextId++, kind, request }) as Promise<WriteResults[Kind]>;
    },
    close() {
      closed ??= (async () => {
        // Queued writes commit first: the thread answers them before it answers this.
        if (failure === undefined) await send({ id: nextId++, kind: 'close' }).catch(() => {});
        await worker.terminate();
      })();
      return closed;
    },
  };
}
