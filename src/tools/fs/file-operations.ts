/**
 * The file operations the tools run, each inside a verified directory and
 * never following a symlink at the last component: read a snapshot, replace
 * a file (temp file + rename), create one (O_EXCL), remove one, move one
 * (link + unlink). Each re-checks the device and inode it was given, so a
 * file swapped between the snapshot and the change is left alone.
 *
 * The system calls are made directly, on the event loop's thread, except
 * those that wait for the disk: fsync, and reads and writes of more than
 * DIRECT_IO_BYTES, go through the thread pool. Why: a thread-pool round
 * trip wakes a worker and then the loop, and on a small VM that costs
 * 70–110 µs of CPU for an fstat that takes 1.5 µs called directly (open +
 * close: 150–180 µs against 5 µs). One write_file made about twenty of
 * them: 2 ms of CPU for the bookkeeping of a 10-byte write. The path
 * resolution before them is direct for the same reason (resolve-zone-path.ts).
 * The price: on a network filesystem that stops answering, these calls hold
 * the event loop where they used to hold a thread-pool thread.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fstatSync, fsync, linkSync, lstatSync, openSync, read, readSync, renameSync, unlinkSync, write, writeSync, type Stats } from 'node:fs';
import { promisify } from 'node:util';
import { FsChangedSinceApprovalError } from './errors/fs-changed-since-approval-error.ts';
import { FsOperationError } from './errors/fs-operation-error.ts';
import { FsPathRejectedError } from './errors/fs-path-rejected-error.ts';
import { NO_FOLLOW, type VerifiedDirectory } from './verified-directory.ts';

/** The state of one directory entry, as read through a descriptor. */
export type FileSnapshot =
  | { kind: 'missing' }
  | { kind: 'directory' | 'other'; dev: number; ino: number }
  | {
      kind: 'file';
      dev: number;
      ino: number;
      mode: number;
      size: number;
      /** How many names (hard links) the file has, read on the open descriptor: more than one needs a person. */
      links: number;
      sha256: string;
      /** The bytes, or undefined when the file is larger than the snapshot's limit (only hashed). */
      content: Buffer | undefined;
    };

/** Where an operation happens: a verified directory, a name in it, and how the path is shown. */
export interface EntryLocation {
  directory: VerifiedDirectory;
  name: string;
  shown: string;
}

const HASH_CHUNK_BYTES = 1 << 20;

/** Reads and writes up to this size are made directly; larger ones (and every fsync) on the thread pool. */
export const DIRECT_IO_BYTES = 256 * 1024;

const fsyncOnPool = promisify(fsync);
const readOnPool = promisify(read);
const writeOnPool = promisify(write);

/**
 * Reads an entry without following a symlink at its name (a symlink there
 * now means it changed since it was resolved: refused) and without blocking
 * on a FIFO. Regular files are hashed, and read whole up to `contentLimit`.
 *
 * @example
 * const snapshot = await readSnapshot({ directory, name: 'a.txt', shown: 'ws/a.txt', contentLimit: 1 << 20 });
 */
export async function readSnapshot(options: EntryLocation & { contentLimit: number }): Promise<FileSnapshot> {
  const opened = openForReading(options);
  if (!('descriptor' in opened)) return opened;
  const { descriptor, status } = opened;
  try {
    const hash = createHash('sha256');
    let content: Buffer | undefined;
    if (status.size <= options.contentLimit) {
      content = await readPrefix(descriptor, status.size);
      hash.update(content);
    } else {
      const chunk = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
      for (;;) {
        const { bytesRead } = await readOnPool(descriptor, chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        hash.update(chunk.subarray(0, bytesRead));
      }
    }
    return { kind: 'file', dev: status.dev, ino: status.ino, mode: status.mode, size: content?.length ?? status.size, links: status.nlink, sha256: hash.digest('hex'), content };
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Reads at most `limit` bytes from the start of a regular file, with the
 * same no-follow rules as `readSnapshot` and without hashing the rest.
 *
 * @example
 * const head = await readFileHead({ directory, name: 'big.log', shown: 'ws/big.log', limit: 1 << 20 });
 */
export async function readFileHead(
  options: EntryLocation & { limit: number },
): Promise<Exclude<FileSnapshot, { kind: 'file' }> | { kind: 'file'; dev: number; ino: number; size: number; links: number; content: Buffer }> {
  const opened = openForReading(options);
  if (!('descriptor' in opened)) return opened;
  const { descriptor, status } = opened;
  try {
    return { kind: 'file', dev: status.dev, ino: status.ino, size: status.size, links: status.nlink, content: await readPrefix(descriptor, Math.min(options.limit, status.size)) };
  } finally {
    closeSync(descriptor);
  }
}

/** Opens an entry for reading (no follow, no blocking on a FIFO); non-files are described, not opened. The caller closes `descriptor`. */
function openForReading(options: EntryLocation): Exclude<FileSnapshot, { kind: 'file' }> | { descriptor: number; status: Stats } {
  let descriptor: number;
  try {
    descriptor = openSync(options.directory.entry(options.name), constants.O_RDONLY | NO_FOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    if (code === 'ELOOP') throw symlinkAppeared(options.shown);
    if (code === 'ENXIO' || code === 'EOPNOTSUPP') {
      const entry = lstatSync(options.directory.entry(options.name));
      return { kind: 'other', dev: entry.dev, ino: entry.ino };
    }
    throw error;
  }
  let status: Stats;
  try {
    status = fstatSync(descriptor);
  } catch (error) {
    closeSync(descriptor);
    throw error;
  }
  if (status.isFile()) return { descriptor, status };
  closeSync(descriptor);
  return { kind: status.isDirectory() ? 'directory' : 'other', dev: status.dev, ino: status.ino };
}

/**
 * Reads the file's first `size` bytes (at most its size when it was
 * fstat'ed), or fewer if it has shrunk since: never more, so a file that
 * grows meanwhile (a writer appending, a sparse file extended to terabytes)
 * cannot make the read, or what is held in memory, unbounded.
 * `handle.readFile()` read the same.
 */
async function readPrefix(descriptor: number, size: number): Promise<Buffer> {
  const direct = size <= DIRECT_IO_BYTES;
  const buffer = Buffer.alloc(size);
  let filled = 0;
  while (filled < size) {
    const bytesRead = direct
      ? readSync(descriptor, buffer, filled, size - filled, filled)
      : (await readOnPool(descriptor, buffer, filled, size - filled, filled)).bytesRead;
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Writes all of `content` at the descriptor's position. */
async function writeFully(descriptor: number, content: Buffer): Promise<void> {
  const direct = content.length <= DIRECT_IO_BYTES;
  let offset = 0;
  while (offset < content.length) {
    const bytesWritten = direct
      ? writeSync(descriptor, content, offset, content.length - offset)
      : (await writeOnPool(descriptor, content, offset, content.length - offset)).bytesWritten;
    if (bytesWritten <= 0) throw new Error('the write made no progress');
    offset += bytesWritten;
  }
}

/**
 * Replaces an existing file atomically: writes a temp file in the same
 * directory (O_EXCL, no follow), then renames it over the entry, but only if
 * the entry is still the file that was read (`expected`). Rename replaces
 * the entry itself, never what a symlink points to, and leaves other hard
 * links to the old file untouched.
 *
 * @example
 * await replaceFile({ directory, name: 'a.txt', shown: 'ws/a.txt', tool: 'write_file', content, expected: snapshot });
 */
export async function replaceFile(options: EntryLocation & { tool: string; content: Buffer; expected: { dev: number; ino: number; mode: number } }): Promise<void> {
  const { directory, name } = options;
  const temporary = temporaryName();
  const permissions = options.expected.mode & 0o777;
  const descriptor = openSync(directory.entry(temporary), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, permissions);
  try {
    try {
      await writeFully(descriptor, options.content);
      // The umask may have removed bits at creation; the replacement keeps the old permissions.
      fchmodSync(descriptor, permissions);
      // On the thread pool: it waits for the disk, which the event loop must not.
      await fsyncOnPool(descriptor);
    } finally {
      closeSync(descriptor);
    }
    assertSameEntry({ ...options, expected: options.expected });
    renameSync(directory.entry(temporary), directory.entry(name));
  } catch (error) {
    unlinkQuietly(directory.entry(temporary));
    throw error;
  }
}

/**
 * Creates a new file; fails if anything (a file, a symlink) appeared at the
 * name since it was checked, because O_EXCL never follows or overwrites.
 *
 * @example
 * await createFile({ directory, name: 'new.txt', shown: 'ws/new.txt', tool: 'write_file', content });
 */
export async function createFile(options: EntryLocation & { tool: string; content: Buffer }): Promise<void> {
  const { directory, name, shown } = options;
  let descriptor: number;
  try {
    descriptor = openSync(directory.entry(name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new FsChangedSinceApprovalError({ path: shown, tool: options.tool, detail: 'it did not exist when checked and exists now' });
    }
    throw error;
  }
  try {
    await writeFully(descriptor, options.content);
    await fsyncOnPool(descriptor);
  } catch (error) {
    closeSync(descriptor);
    unlinkQuietly(directory.entry(name));
    throw error;
  }
  closeSync(descriptor);
}

/**
 * Removes a file, only if the entry is still the file that was read.
 *
 * @example
 * await removeFile({ directory, name: 'a.txt', shown: 'ws/a.txt', tool: 'delete_file', expected: snapshot });
 */
export async function removeFile(options: EntryLocation & { tool: string; expected: { dev: number; ino: number } }): Promise<void> {
  assertSameEntry(options);
  unlinkSync(options.directory.entry(options.name));
}

/**
 * Moves a file without ever replacing the destination: a hard link at the
 * destination (fails if it exists), then the source is removed. Across
 * filesystems it copies through descriptors instead.
 *
 * @example
 * await moveFile({ source, destination, tool: 'move_file', expected: snapshot });
 */
export async function moveFile(options: {
  source: EntryLocation;
  destination: EntryLocation;
  tool: string;
  expected: { dev: number; ino: number; mode: number };
}): Promise<void> {
  const { source, destination, tool, expected } = options;
  const target = destination.directory.entry(destination.name);
  try {
    linkSync(source.directory.entry(source.name), target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw destinationExists(destination.shown);
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EMLINK') throw error;
    await copyFile({ source, destination, tool, expected });
    await removeFile({ ...source, tool, expected });
    return;
  }
  const linked = lstatSync(target);
  if (linked.dev !== expected.dev || linked.ino !== expected.ino) {
    // The source was swapped after it was read: undo, change nothing.
    unlinkQuietly(target);
    throw new FsChangedSinceApprovalError({ path: source.shown, tool, detail: 'it was replaced while being moved' });
  }
  try {
    await removeFile({ ...source, tool, expected });
  } catch (error) {
    unlinkQuietly(target);
    throw error;
  }
}

async function copyFile(options: { source: EntryLocation; destination: EntryLocation; tool: string; expected: { dev: number; ino: number; mode: number } }): Promise<void> {
  const { source, destination, tool, expected } = options;
  let input: number;
  try {
    // Non-blocking: a FIFO swapped in here must not hold the event loop until someone writes to it.
    input = openSync(source.directory.entry(source.name), constants.O_RDONLY | NO_FOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw (error as NodeJS.ErrnoException).code === 'ELOOP' ? symlinkAppeared(source.shown) : error;
  }
  let content: Buffer;
  try {
    const status = fstatSync(input);
    if (status.dev !== expected.dev || status.ino !== expected.ino) {
      throw new FsChangedSinceApprovalError({ path: source.shown, tool, detail: 'it was replaced while being moved' });
    }
    content = await readPrefix(input, status.size);
  } finally {
    closeSync(input);
  }
  try {
    await createFile({ ...destination, tool, content });
  } catch (error) {
    if (error instanceof FsChangedSinceApprovalError) throw destinationExists(destination.shown);
    throw error;
  }
  const output = openSync(destination.directory.entry(destination.name), constants.O_RDONLY | NO_FOLLOW | (constants.O_NONBLOCK ?? 0));
  try {
    fchmodSync(output, expected.mode & 0o777);
  } finally {
    closeSync(output);
  }
}

function assertSameEntry(options: EntryLocation & { tool: string; expected: { dev: number; ino: number } }): void {
  let current;
  try {
    current = lstatSync(options.directory.entry(options.name));
  } catch {
    throw new FsChangedSinceApprovalError({ path: options.shown, tool: options.tool, detail: 'it was removed while the change was being made' });
  }
  if (current.dev !== options.expected.dev || current.ino !== options.expected.ino) {
    throw new FsChangedSinceApprovalError({ path: options.shown, tool: options.tool, detail: 'it was replaced while the change was being made' });
  }
}

/** Removes what a failed operation left behind; a failure to do so must not hide the error that caused it. */
function unlinkQuietly(target: string): void {
  try {
    unlinkSync(target);
  } catch {
    // Already gone, or not ours to remove: the original error is what the caller reports.
  }
}

function temporaryName(): string {
  return `.toolgate-${randomBytes(8).toString('hex')}.tmp`;
}

function symlinkAppeared(shown: string): FsPathRejectedError {
  return new FsPathRejectedError({ path: shown, reason: `${shown} became a symlink after it was checked; symlinks are never followed at execution` });
}

function destinationExists(shown: string): FsOperationError {
  return new FsOperationError({ path: shown, message: `${shown} already exists; move_file never replaces a file. Delete it first or choose another destination` });
}
