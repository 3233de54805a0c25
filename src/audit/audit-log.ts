/**
 * The audit log: a durable, append-only JSONL file, and the line an entry is
 * kept as. Its phases live beside it: group commit, batches written and
 * synced together (audit-batches.ts), and the file itself, opened lazily,
 * written and synced (audit-file.ts).
 */
import { makeDirectoriesSync } from '../filesystem/make-directories.ts';
import { fdatasyncSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { AuditEntry, AuditSink } from '../core/audit-entry.ts';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { errorMessage } from '../core/run-tool-check.ts';
import { createAuditBatches } from './audit-batches.ts';
import { createAuditFile } from './audit-file.ts';

export { FAST_SYNCS_BEFORE_INLINE, INLINE_SYNC_LIMIT_MS } from './audit-file.ts';

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

// Not fs.mkdir's recursive mode, which never returns under /proc (an audit path there left every call waiting).
const defaultFileSystem: AuditLogFileSystem = { open, mkdir: async (directory, options) => makeDirectoriesSync(directory, options.mode ?? 0o777), writeSync, fdatasyncSync };

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
  const file = createAuditFile({ logPath, fileSystem: options.fileSystem ?? defaultFileSystem });
  const batches = createAuditBatches({ file, fsync: options.fsync ?? true });
  let closing: Promise<void> | undefined;

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
    return batches.enqueue(`${line}\n`);
  }

  function close(): Promise<void> {
    closing ??= (async () => {
      try {
        await batches.flush();
      } finally {
        await file.close();
      }
    })();
    return closing;
  }

  return { record: (entry) => recordInStages(entry).durable, recordInStages, flush: batches.flush, close };
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
