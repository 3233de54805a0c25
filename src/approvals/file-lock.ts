/**
 * An exclusive lock beside a file, for read-modify-write by several
 * processes: `FILE.lock`, created with O_EXCL and holding the owner's pid.
 * Written here rather than taken from a library because the approvals file
 * is changed from synchronous code (a revoke, a mark) and the lockfile
 * packages either are asynchronous only or refuse to wait in their
 * synchronous form; the lock is held for the few milliseconds of one
 * rewrite.
 *
 * A lock whose owner is gone (its pid is no longer alive on this machine,
 * or it is older than `STALE_AFTER_MS`) is taken over; if two processes
 * take over the same dead lock at the same instant, both may proceed (each
 * rewrite is still atomic: the last one wins, as before locking existed).
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { ToolgateError } from '../core/errors/toolgate-error.ts';

/** A lock older than this is stale whoever holds it: no rewrite takes this long. */
export const STALE_AFTER_MS = 30_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `work` holding the lock of `file`, waiting up to `waitMs` for
 * another holder; throws `APPROVALS_FILE_LOCKED`, naming the holder, when
 * it does not come free.
 *
 * @example
 * withFileLock('.toolgate/approvals.json', () => save(next));
 */
export function withFileLock<Result>(file: string, work: () => Result, options: { waitMs?: number } = {}): Result {
  const lock = `${file}.lock`;
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    if (tryCreate(lock)) break;
    const holder = holderOf(lock);
    if (holder !== undefined && isStale(holder)) {
      removeIfStill(lock, holder);
      continue;
    }
    if (Date.now() > deadline) {
      throw new ToolgateError({
        code: 'APPROVALS_FILE_LOCKED',
        message: `${lock} is held${holder?.pid === undefined ? '' : ` by process ${holder.pid}`} and did not come free in ${options.waitMs ?? 10_000} ms; if no toolgate is running, delete it`,
      });
    }
    Atomics.wait(sleeper, 0, 0, pause);
  }
  try {
    return work();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // Taken over as stale meanwhile: it is someone else's now.
    }
  }
}

function tryCreate(lock: string): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(lock, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(descriptor, `${process.pid}\n`);
  } finally {
    closeSync(descriptor);
  }
  return true;
}

interface Holder {
  pid: number | undefined;
  ageMs: number;
  inode: number;
}

function holderOf(lock: string): Holder | undefined {
  try {
    const stats = statSync(lock);
    const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
    return { pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined, ageMs: Date.now() - stats.mtimeMs, inode: stats.ino };
  } catch {
    // Gone between the failed create and now: try again.
    return undefined;
  }
}

function isStale(holder: Holder): boolean {
  if (holder.ageMs > STALE_AFTER_MS) return true;
  // Being written right now (created, pid not yet in it): wait for it.
  if (holder.pid === undefined) return false;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Removes the stale lock unless another process replaced it since it was read. */
function removeIfStill(lock: string, holder: Holder): void {
  try {
    if (statSync(lock).ino === holder.inode) unlinkSync(lock);
  } catch {
    // Already gone.
  }
}
