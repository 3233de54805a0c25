/**
 * One server per SQLite store. `toolgate serve` holds an exclusive SQLite
 * lock on a companion file (`<store>.server-lock`) for as long as it runs:
 * the lock is the kernel's (a POSIX record lock), so it ends with the
 * process however the process ends — a crashed or killed server never
 * blocks a restart, and a reused pid cannot fake a holder. Who holds the
 * store (pid, since when) is written to the store's `meta` table, which a
 * second server reads to say so. CLI commands that read or add tokens open
 * the store without this lock and keep working while a server runs.
 */
import { chmodSync, closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { StoreError } from './sqlite-store-error.ts';

/** How long a start waits out another start's attempt before reading the lock as held. */
const CONTENTION_WAIT_MS = 1000;

export interface SqliteServerLock {
  /** Ends the hold (a clean stop); the process ending ends it too. */
  release(): void;
}

/** What the holder writes about itself into the store's meta table. */
export interface SqliteServerHolder {
  pid: number;
  since: string;
}

/**
 * Takes the store's server lock, or throws `STORE_IN_USE` naming the holder.
 *
 * @example
 * const lock = holdSqliteServerLock({ file: '.toolgate/toolgate.db' });
 * try { serve(); } finally { lock.release(); }
 */
export function holdSqliteServerLock(options: { file: string; now?: () => Date }): SqliteServerLock {
  const lockFile = `${options.file}.server-lock`;
  closeSync(openSync(lockFile, 'a', 0o600));
  chmodSync(lockFile, 0o600);
  // A short busy timeout: a server's hold lasts, so it is still there when the wait ends; but two
  // servers starting at once each hold a brief lock while they try, and without the wait both were refused.
  const lock = new Database(lockFile, { timeout: CONTENTION_WAIT_MS });
  try {
    // The exclusive lock first, in normal locking mode: a start that waits drops its read lock while it waits.
    // (Entering EXCLUSIVE locking mode first, each start kept the read lock of its first look at the file,
    // so two starts at once each waited for the other's, and both were refused.)
    lock.exec('BEGIN EXCLUSIVE');
    // EXCLUSIVE locking mode keeps the lock past COMMIT, until this connection closes (or the process ends).
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('CREATE TABLE IF NOT EXISTS held (pid INTEGER NOT NULL); DELETE FROM held; COMMIT;');
  } catch (error) {
    lock.close();
    if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
    const holder = readHolder(options.file);
    const who = holder === undefined ? 'another process' : `toolgate serve (pid ${holder.pid}, since ${holder.since})`;
    throw new StoreError({
      code: 'STORE_IN_USE',
      message: `${options.file} is in use by ${who}: one server per SQLite store. Stop that server first, or give this one another store (--store FILE); for several servers on one store, use PostgreSQL (--store postgres://…)`,
    });
  }
  writeHolder(options.file, { pid: process.pid, since: (options.now ?? (() => new Date()))().toISOString() });
  return {
    release() {
      if (lock.open) lock.close();
    },
  };
}

function readHolder(file: string): SqliteServerHolder | undefined {
  try {
    const database = new Database(file, { readonly: true, fileMustExist: true, timeout: 1000 });
    try {
      const text = database.prepare(`SELECT value FROM meta WHERE key = 'server_holder'`).pluck().get() as string | undefined;
      return text === undefined ? undefined : (JSON.parse(text) as SqliteServerHolder);
    } finally {
      database.close();
    }
  } catch {
    // Who holds it is a courtesy: the refusal stands without it.
    return undefined;
  }
}

function writeHolder(file: string, holder: SqliteServerHolder): void {
  const database = new Database(file, { fileMustExist: true, timeout: 10_000 });
  try {
    database.prepare(`INSERT INTO meta (key, value) VALUES ('server_holder', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(JSON.stringify(holder));
  } finally {
    database.close();
  }
}
