import { makeDirectoriesSync } from '../filesystem/make-directories.ts';
import { fdatasyncSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { AuditEntry, AuditSink } from '../core/audit-entry.ts';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { errorMessage } from '../core/run-tool-check.ts';

/** The audit log: a sink whose `record` resolves once the entry is on disk. */
export interface AuditLog extends AuditSink {
  /**
   * Queues an entry and reports its two stages: `written` resolves once its
   * line has been written to the file (the kernel holds it: a crash of this
   * process no longer loses it, a crash of the machine still may), `durable`
   * once it has been fdatasync'ed. Both reject if the line could not be made
   * so. `record(entry)` is `recordInStages(entry).durable`. A caller that
   * acts on `written` alone must still await `durable` before it reports the
   * outcome anywhere (the MCP gateway does, see `createDeferredDurability`).
   */
  recordInStages(entry: AuditEntry): AuditRecordStages;
  /** Resolves once every entry recorded before the call is durable; rejects if one of them could not be written. */
  flush(): Promise<void>;
  /** Flushes, then closes the file (closed either way). Recording afterwards rejects. */
  close(): Promise<void>;
}

/** The two stages of a record: written to the file, then fdatasync'ed. */
export interface AuditRecordStages {
  written: Promise<void>;
  durable: Promise<void>;
}

/**
 * The file operations the log uses. Tests and benchmarks inject their own to
 * count syncs or make a write fail; everything else uses `node:fs`.
 */
export interface AuditLogFileSystem {
  open(path: string, flags: string, mode?: number): Promise<FileHandle>;
  mkdir(path: string, options: { recursive: true; mode?: number }): Promise<unknown>;
  /**
   * Synchronous forms of the handle's `write` and `datasync`, used when
   * given (node's are): see `createAuditLog` for when a sync runs on the
   * event loop's thread. Without them every write and sync goes through the
   * handle, on the thread pool.
   */
  writeSync?(descriptor: number, buffer: Buffer, offset: number, length: number): number;
  fdatasyncSync?(descriptor: number): void;
}

export interface AuditLogOptions {
  path: string;
  /** fdatasync each batch before resolving its records (default true). Off only for throwaway logs. */
  fsync?: boolean;
  fileSystem?: AuditLogFileSystem;
}

interface PendingRecord {
  line: string;
  written(): void;
  resolve(): void;
  reject(error: unknown): void;
}

interface Batch {
  records: PendingRecord[];
  /** Settles with the batch's write error, or undefined; never rejects, so nobody has to await it. */
  settled: Promise<ToolgateError | undefined>;
  settle(error: ToolgateError | undefined): void;
}

// Not fs.mkdir's recursive mode, which never returns under /proc (an audit path there left every call waiting).
const defaultFileSystem: AuditLogFileSystem = { open, mkdir: async (directory, options) => makeDirectoriesSync(directory, options.mode ?? 0o777), writeSync, fdatasyncSync };

/**
 * Syncs move to the event loop's thread after FAST_SYNCS_BEFORE_INLINE
 * syncs in a row took at most this long each, and back to the thread pool
 * after one that took longer or failed.
 */
export const INLINE_SYNC_LIMIT_MS = 2;
export const FAST_SYNCS_BEFORE_INLINE = 8;

/** Writes go out in pieces of about this many characters, each ending on a line boundary. */
const CHUNK_CHARACTERS = 1 << 20;

const NEWLINE = 0x0a;

/**
 * Opens (lazily) a durable, append-only JSONL audit log.
 *
 * Group commit: `record` queues the entry's line; one batch at a time is
 * written and fdatasync'ed, and every entry that arrives meanwhile waits for
 * the next batch. N concurrent callers therefore cost about one sync, not N,
 * and each caller's promise resolves only once its own line is durable.
 *
 * Lines are appended synchronously (the page cache takes them in
 * microseconds; a thread-pool round trip costs more, and the caller waits
 * for it). The fdatasync runs one event-loop turn after the write, so that
 * whoever acts on `written` (the MCP gateway forwarding its call) goes
 * first, and it runs on the event loop's own thread once syncs have proven
 * fast (below). Why: through the thread pool each sync costs a
 * worker wake-up and a completion wake-up of the loop, and on a small
 * machine those take the CPU from the server doing the call's work;
 * measured with the gateway in front of server-filesystem on two vCPUs
 * (24 interleaved rounds of 200 calls, twice), 1.63x and 1.72x a direct
 * call with the sync on the loop against 1.80x and 1.82x through the pool
 * (better-sqlite3 makes the same choice for every commit). The price is a
 * loop that stalls for the sync, so only a disk that has proven fast gets
 * it: a log starts on the thread pool, moves to the loop after
 * FAST_SYNCS_BEFORE_INLINE fast syncs in a row, and goes back to the pool
 * after one slow or failed sync, which is the most a slow spell can stall
 * the loop for before that many fast syncs come again.
 *
 * @example
 * const audit = createAuditLog({ path: '.toolgate/audit.jsonl' });
 * const gate = createGate({ policy, audit });
 * // ...
 * await audit.close();
 */
export function createAuditLog(options: AuditLogOptions): AuditLog {
  const logPath = path.resolve(options.path);
  const fsync = options.fsync ?? true;
  const fileSystem = options.fileSystem ?? defaultFileSystem;
  let file: { handle: FileHandle; sync: boolean } | undefined;
  let queued = createBatch();
  let writing: Batch | undefined;
  let startScheduled = false;
  let closing: Promise<void> | undefined;
  /** Syncs in a row that took at most INLINE_SYNC_LIMIT_MS; from FAST_SYNCS_BEFORE_INLINE on, they run on the event loop's thread. */
  let fastSyncs = 0;

  function record(entry: AuditEntry): Promise<void> {
    return recordInStages(entry).durable;
  }

  function recordInStages(entry: AuditEntry): AuditRecordStages {
    if (closing !== undefined) {
      return failedStages(
        new ToolgateError({ code: 'AUDIT_WRITE_FAILED', message: `the audit log ${logPath} is closed; open a new one with createAuditLog to keep recording` }),
      );
    }
    // Serialised now, not at write time: the caller may mutate the entry after
    // `record` returns, and a bad entry must fail alone, not take its batch down.
    let line: string;
    try {
      line = auditLine(entry, logPath);
    } catch (error) {
      return failedStages(error as ToolgateError);
    }
    const text = `${line}\n`;
    let markWritten!: () => void;
    let failWritten!: (error: unknown) => void;
    const written = new Promise<void>((resolve, reject) => {
      markWritten = resolve;
      failWritten = reject;
    });
    const durable = new Promise<void>((resolve, reject) => {
      queued.records.push({
        line: text,
        written: markWritten,
        resolve,
        reject(error) {
          // Settling an already written promise is a no-op: a failed sync rejects only `durable`.
          failWritten(error);
          reject(error);
        },
      });
      scheduleBatch();
    });
    // A caller may await only one stage; the other's rejection must not surface as unhandled.
    written.catch(() => undefined);
    return { written, durable };
  }

  function scheduleBatch(): void {
    if (writing !== undefined || startScheduled || queued.records.length === 0) return;
    startScheduled = true;
    // A microtask, so callers recording in the same tick share the first batch.
    queueMicrotask(startBatch);
  }

  function startBatch(): void {
    startScheduled = false;
    if (writing !== undefined || queued.records.length === 0) return;
    const batch = queued;
    queued = createBatch();
    writing = batch;
    void commit(batch).then(() => {
      writing = undefined;
      scheduleBatch();
    });
  }

  async function commit(batch: Batch): Promise<void> {
    let failure: ToolgateError | undefined;
    try {
      // Not awaited once open: the caller is waiting for `written`, and each turn here is a turn for it.
      const current = file ?? (await openFile());
      for (const chunk of batch.records.length === 1 ? [batch.records[0]!.line] : chunks(batch.records)) {
        if (fileSystem.writeSync !== undefined) writeFullySync(fileSystem.writeSync, current.handle.fd, Buffer.from(chunk));
        else await writeFully(current.handle, Buffer.from(chunk));
      }
      // In the file now: whoever acts on that (forwarding a call) may go ahead while the sync runs.
      for (const pending of batch.records) pending.written();
      if (fsync && current.sync) {
        // Whoever acts on `written` goes first: the gateway forwards its call in the microtasks that
        // follow, and the sync then overlaps the server's work.
        await new Promise((resolve) => setImmediate(resolve));
        await syncFile(current.handle);
      }
    } catch (error) {
      failure = writeFailed(error);
      // The next batch reopens, which also repairs a line this one may have torn.
      await discardFile();
    }
    for (const pending of batch.records) {
      if (failure === undefined) pending.resolve();
      else pending.reject(failure);
    }
    batch.settle(failure);
  }

  async function syncFile(handle: FileHandle): Promise<void> {
    const began = performance.now();
    let fast = false;
    try {
      if (fastSyncs >= FAST_SYNCS_BEFORE_INLINE && fileSystem.fdatasyncSync !== undefined) fileSystem.fdatasyncSync(handle.fd);
      else await handle.datasync();
      fast = performance.now() - began <= INLINE_SYNC_LIMIT_MS;
    } finally {
      // A failed sync counts as slow: a disk that fails may also hang.
      fastSyncs = fast ? fastSyncs + 1 : 0;
    }
  }

  async function openFile(): Promise<{ handle: FileHandle; sync: boolean }> {
    if (file !== undefined) return file;
    await fileSystem.mkdir(path.dirname(logPath), { recursive: true, mode: 0o700 });
    const handle = await fileSystem.open(logPath, 'a', 0o600);
    try {
      const stats = await handle.stat();
      // /dev/stderr or a pipe: nothing to repair, and fdatasync would fail with EINVAL.
      const regular = stats.isFile();
      if (regular && stats.size > 0 && (await lastByte(stats.size)) !== NEWLINE) {
        // A crash tore the last line: start ours on a fresh line, so the torn
        // one stays a single invalid line that readers skip.
        await writeFully(handle, Buffer.from('\n'));
      }
      file = { handle, sync: regular };
      return file;
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  async function lastByte(size: number): Promise<number | undefined> {
    // The append handle is write-only ('a'), so the tail is read through its own handle.
    const reader = await fileSystem.open(logPath, 'r');
    try {
      const buffer = Buffer.alloc(1);
      const { bytesRead } = await reader.read(buffer, 0, 1, size - 1);
      return bytesRead === 1 ? buffer[0] : undefined;
    } finally {
      await reader.close();
    }
  }

  async function discardFile(): Promise<void> {
    const current = file;
    file = undefined;
    await current?.handle.close().catch(() => undefined);
  }

  async function flush(): Promise<void> {
    // The queued batch runs after the one being written, so waiting for it covers both.
    const batch = queued.records.length > 0 ? queued : writing;
    if (batch === undefined) return;
    const failure = await batch.settled;
    if (failure !== undefined) throw failure;
  }

  function close(): Promise<void> {
    closing ??= (async () => {
      try {
        await flush();
      } finally {
        const current = file;
        file = undefined;
        await current?.handle.close();
      }
    })();
    return closing;
  }

  function writeFailed(error: unknown): ToolgateError {
    const code = (error as { code?: unknown } | null)?.code;
    const osError = typeof code === 'string' && !errorMessage(error).startsWith(code) ? `${code}: ${errorMessage(error)}` : errorMessage(error);
    return new ToolgateError({
      code: 'AUDIT_WRITE_FAILED',
      message:
        `could not write the audit log ${logPath} (${osError}). ` +
        'Check that its directory exists and is writable, that the path is not a directory, and that the disk is not full, ' +
        'or set audit.path in the policy to a writable file; until it can be written, calls are denied (fail closed)',
      cause: error,
    });
  }


  return { record, recordInStages, flush, close };
}

/**
 * The line an audit entry is kept as (in a file, or in a store servers
 * share): its JSON, on one line. Throws a ToolgateError AUDIT_WRITE_FAILED,
 * naming the entry and `where`, for an entry that is not a JSON object.
 *
 * @example
 * auditLine(entry, '.toolgate/audit.jsonl') // '{"v":1,"time":...}'
 */
export function auditLine(entry: AuditEntry, where: string): string {
  let line: string | undefined;
  let why = 'it does not serialise to a JSON object';
  try {
    line = JSON.stringify(entry);
  } catch (error) {
    // V8 explains a cycle over several lines; an audit reason must stay one line.
    why = errorMessage(error).replace(/\s*\n\s*/g, ' ');
  }
  if (typeof line === 'string' && line.startsWith('{')) return line;
  let which = '';
  try {
    which = ` for ${String(entry.tool)} (call ${String(entry.call_id)})`;
  } catch {
    // An entry whose fields cannot even be read is described without them.
  }
  throw new ToolgateError({ code: 'AUDIT_WRITE_FAILED', message: `the audit entry${which} cannot be serialised to JSON (${why}); it was not written to ${where}` });
}

function failedStages(error: ToolgateError): AuditRecordStages {
  const written = Promise.reject(error);
  written.catch(() => undefined);
  return { written, durable: Promise.reject(error) };
}

function createBatch(): Batch {
  let settle!: (error: ToolgateError | undefined) => void;
  const settled = new Promise<ToolgateError | undefined>((resolve) => {
    settle = resolve;
  });
  return { records: [], settled, settle };
}

/** Joins lines into pieces that end on a line boundary, so a huge batch is not one huge buffer. */
function* chunks(records: readonly PendingRecord[]): Generator<string> {
  let parts: string[] = [];
  let length = 0;
  for (const pending of records) {
    if (length > 0 && length + pending.line.length > CHUNK_CHARACTERS) {
      yield parts.join('');
      parts = [];
      length = 0;
    }
    parts.push(pending.line);
    length += pending.line.length;
  }
  if (length > 0) yield parts.join('');
}

function writeFullySync(write: NonNullable<AuditLogFileSystem['writeSync']>, descriptor: number, buffer: Buffer): void {
  let offset = 0;
  while (offset < buffer.length) {
    const bytesWritten = write(descriptor, buffer, offset, buffer.length - offset);
    if (bytesWritten <= 0) throw new Error('the write made no progress');
    offset += bytesWritten;
  }
}

async function writeFully(handle: FileHandle, buffer: Buffer): Promise<void> {
  let offset = 0;
  while (offset < buffer.length) {
    const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset);
    if (bytesWritten <= 0) throw new Error('the write made no progress');
    offset += bytesWritten;
  }
}
