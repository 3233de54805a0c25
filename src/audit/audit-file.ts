/**
 * The audit log's file: opened on first use (its directory made, a line a
 * crash tore ended so ours starts fresh), written whole, fdatasync'ed on the
 * event loop's thread once syncs have proven fast and on the thread pool
 * otherwise, and dropped after a failure so the next batch reopens it.
 */
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { errorMessage } from '../core/run-tool-check.ts';
import type { AuditLogFileSystem } from './audit-log.ts';

/**
 * Syncs move to the event loop's thread after FAST_SYNCS_BEFORE_INLINE
 * syncs in a row took at most this long each, and back to the thread pool
 * after one that took longer or failed.
 */
export const INLINE_SYNC_LIMIT_MS = 2;
export const FAST_SYNCS_BEFORE_INLINE = 8;

const NEWLINE = 0x0a;

/** The file open, and whether it can be synced (a regular file; not /dev/stderr or a pipe). */
export interface OpenAuditFile {
  handle: FileHandle;
  sync: boolean;
}

/** The audit log's file, opened lazily. */
export interface AuditFile {
  /** The file when open: a batch that finds it open writes without a turn of waiting. */
  readonly current: OpenAuditFile | undefined;
  /** Opens the file (once), making its directory and ending a torn last line. */
  open(): Promise<OpenAuditFile>;
  /** Writes all of `chunk`: at once when the file system writes synchronously (undefined), else a promise. */
  write(file: OpenAuditFile, chunk: string): Promise<void> | undefined;
  /** fdatasyncs the file, on the loop's thread once syncs have proven fast. */
  sync(file: OpenAuditFile): Promise<void>;
  /** Drops the file after a failure (closing it, errors ignored): the next write reopens it. */
  discard(): Promise<void>;
  /** Closes the file for good. */
  close(): Promise<void>;
  /** The error a failed write or sync comes to, saying what to check. */
  writeFailed(error: unknown): ToolgateError;
}

/**
 * The audit log's file at `logPath` (absolute), through `fileSystem`.
 *
 * @example
 * const file = createAuditFile({ logPath: '/home/me/.toolgate/audit.jsonl', fileSystem });
 * const open = file.current ?? (await file.open());
 * await file.write(open, '{"v":1}\n');
 * await file.sync(open);
 */
export function createAuditFile(options: { logPath: string; fileSystem: AuditLogFileSystem }): AuditFile {
  const { logPath, fileSystem } = options;
  let file: OpenAuditFile | undefined;
  /** Syncs in a row that took at most INLINE_SYNC_LIMIT_MS; from FAST_SYNCS_BEFORE_INLINE on, they run on the event loop's thread. */
  let fastSyncs = 0;

  async function open(): Promise<OpenAuditFile> {
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

  async function sync(current: OpenAuditFile): Promise<void> {
    const began = performance.now();
    let fast = false;
    try {
      if (fastSyncs >= FAST_SYNCS_BEFORE_INLINE && fileSystem.fdatasyncSync !== undefined) fileSystem.fdatasyncSync(current.handle.fd);
      else await current.handle.datasync();
      fast = performance.now() - began <= INLINE_SYNC_LIMIT_MS;
    } finally {
      // A failed sync counts as slow: a disk that fails may also hang.
      fastSyncs = fast ? fastSyncs + 1 : 0;
    }
  }

  return {
    get current() {
      return file;
    },
    open,
    write(current, chunk) {
      if (fileSystem.writeSync === undefined) return writeFully(current.handle, Buffer.from(chunk));
      writeFullySync(fileSystem.writeSync, current.handle.fd, Buffer.from(chunk));
      return undefined;
    },
    sync,
    async discard() {
      const current = file;
      file = undefined;
      await current?.handle.close().catch(() => undefined);
    },
    async close() {
      const current = file;
      file = undefined;
      await current?.handle.close();
    },
    writeFailed(error) {
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
    },
  };
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
