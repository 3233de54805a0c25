/**
 * The audit log's group commit: lines queue up while a batch is written and
 * fdatasync'ed, then go out together as the next batch, so N concurrent
 * callers cost about one sync, not N. Each line's `written` resolves once
 * its batch is in the file and `durable` once it is synced; a batch that
 * fails rejects every line in it.
 */
import type { ToolgateError } from '../core/errors/toolgate-error.ts';
import type { AuditFile } from './audit-file.ts';
import type { AuditRecordStages } from './audit-log.ts';

/** Writes go out in pieces of about this many characters, each ending on a line boundary. */
const CHUNK_CHARACTERS = 1 << 20;

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

/** The batches of one audit log. */
export interface AuditBatches {
  /** Queues a line (ending in a newline) for the next batch. */
  enqueue(text: string): AuditRecordStages;
  /** Resolves once every line queued before the call is durable; rejects if one of them could not be written. */
  flush(): Promise<void>;
}

/**
 * Group commit onto `file`, fdatasync'ing each batch when `fsync`.
 *
 * @example
 * const batches = createAuditBatches({ file: createAuditFile({ logPath, fileSystem }), fsync: true });
 * await batches.enqueue('{"v":1}\n').durable;
 */
export function createAuditBatches(options: { file: AuditFile; fsync: boolean }): AuditBatches {
  const { file, fsync } = options;
  let queued = createBatch();
  let writing: Batch | undefined;
  let startScheduled = false;

  function enqueue(text: string): AuditRecordStages {
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
      const current = file.current ?? (await file.open());
      for (const chunk of batch.records.length === 1 ? [batch.records[0]!.line] : chunks(batch.records)) {
        const writingChunk = file.write(current, chunk);
        if (writingChunk !== undefined) await writingChunk;
      }
      // In the file now: whoever acts on that (forwarding a call) may go ahead while the sync runs.
      for (const pending of batch.records) pending.written();
      if (fsync && current.sync) {
        // Whoever acts on `written` goes first: the gateway forwards its call in the microtasks that
        // follow, and the sync then overlaps the server's work.
        await new Promise((resolve) => setImmediate(resolve));
        await file.sync(current);
      }
    } catch (error) {
      failure = file.writeFailed(error);
      // The next batch reopens, which also repairs a line this one may have torn.
      await file.discard();
    }
    for (const pending of batch.records) {
      if (failure === undefined) pending.resolve();
      else pending.reject(failure);
    }
    batch.settle(failure);
  }

  async function flush(): Promise<void> {
    // The queued batch runs after the one being written, so waiting for it covers both.
    const batch = queued.records.length > 0 ? queued : writing;
    if (batch === undefined) return;
    const failure = await batch.settled;
    if (failure !== undefined) throw failure;
  }

  return { enqueue, flush };
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
