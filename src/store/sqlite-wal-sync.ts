/**
 * The store's own sync of SQLite's write-ahead log. The connection commits
 * with `synchronous = NORMAL`: COMMIT appends to the WAL and returns without
 * waiting for the disk. This syncs the WAL file instead, with `fdatasync` on
 * the thread pool, so the event loop goes on serving while the disk works;
 * the group commit settles a write only once a sync that began after its
 * COMMIT has finished. That is what `synchronous = FULL` promises (a commit
 * acknowledged is on disk), moved off the event loop.
 *
 * Why this is sound: the WAL is one file that every connection (in every
 * process) appends its commits to, and `fdatasync` writes all of a file's
 * dirty pages, whoever wrote them. So a sync that began after a commit
 * returned covers that commit, and every commit before it. Checkpoints sync
 * the WAL and the database themselves, in NORMAL as in FULL. SQLite deletes
 * the WAL only when the last connection closes, and ours stays open while
 * this holds the file; should the file be gone anyway, the sync fails
 * rather than sync a file nobody uses. (Swapping the file needs write
 * access to the store's directory, which toolgate creates with mode 0700.)
 *
 * No library does this: SQLite syncs only inside COMMIT, on the calling
 * thread, and better-sqlite3 is synchronous by design.
 */
import { closeSync, fdatasync, fstatSync, openSync } from 'node:fs';
import { StoreError } from './sqlite-store-error.ts';

export interface WalSync {
  /** fdatasync of the WAL; rejects with a `StoreError` when it fails or the file was replaced. */
  sync(): Promise<void>;
  close(): void;
}

/**
 * Opens the WAL of `file`, which an open WAL-mode connection must already
 * have created.
 *
 * @example
 * const walSync = openWalSync(`${file}-wal`);
 * await walSync.sync();
 */
export function openWalSync(walFile: string): WalSync {
  let fd: number;
  try {
    fd = openSync(walFile, 'r');
  } catch (error) {
    throw new StoreError({ code: 'STORE_UNAVAILABLE', message: `${walFile}: the write-ahead log could not be opened to sync it: ${(error as Error).message}`, cause: error });
  }
  const failed = (why: string, cause?: unknown) =>
    new StoreError({
      code: 'STORE_UNAVAILABLE',
      message: `${walFile}: ${why}; what was committed since the last sync may not be on disk, so this store accepts no more writes: restart toolgate`,
      ...(cause === undefined ? {} : { cause }),
    });
  let open = true;
  return {
    sync() {
      return new Promise<void>((resolve, reject) => {
        if (!open) {
          reject(failed('the write-ahead log is closed'));
          return;
        }
        fdatasync(fd, (error) => {
          if (error) {
            reject(failed(`syncing the write-ahead log failed (${error.message})`, error));
            return;
          }
          // A throw here would escape as an uncaught exception: every outcome goes to the promise.
          let links: number;
          try {
            links = fstatSync(fd).nlink;
          } catch (statError) {
            reject(failed(`the write-ahead log could not be checked after its sync (${(statError as Error).message})`, statError));
            return;
          }
          // Unlinked: the commits went to a file SQLite no longer reads.
          if (links === 0) reject(failed('the write-ahead log was deleted while the store was open'));
          else resolve();
        });
      });
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
