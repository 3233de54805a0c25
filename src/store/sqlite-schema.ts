/**
 * Opening the SQLite file behind `openSqliteStore`: the file and its
 * directory with owner-only modes, the pragmas that make commits durable and
 * let two processes share the file, and the schema, created once and checked
 * on every open (a database from a newer toolgate, or from another program,
 * is refused rather than written to).
 */
import { makeDirectoriesSync } from '../filesystem/make-directories.ts';
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { STORE_SCHEMA_VERSION } from './store.ts';
import { StoreError } from './sqlite-store-error.ts';

/**
 * Every table carries `schema_version` per record. `seq` columns are
 * AUTOINCREMENT so that creation order survives VACUUM (rowids of tables
 * without one may be renumbered). STRICT makes SQLite refuse a value of the
 * wrong type instead of storing it; the CHECKs refuse unknown statuses.
 */
const SCHEMA_SQL = `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE runs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'paused_checkpoint', 'completed', 'cancelled', 'failed')),
  mode TEXT NOT NULL CHECK (mode IN ('interactive', 'approve_all', 'strict', 'auto_deny', 'daemon')),
  session_id TEXT NOT NULL,
  chat_id TEXT,
  model TEXT NOT NULL,
  input TEXT NOT NULL,
  state TEXT,
  text TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  revision INTEGER NOT NULL,
  schema_version INTEGER NOT NULL
) STRICT;
CREATE INDEX runs_by_owner_created ON runs (owner, seq);
CREATE INDEX runs_by_status ON runs (status, seq);

CREATE TABLE approvals (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs (run_id),
  tool_call_id TEXT NOT NULL,
  owner TEXT NOT NULL,
  tool TEXT NOT NULL,
  group_id TEXT,
  request TEXT NOT NULL,
  created_at TEXT NOT NULL,
  decision TEXT,
  schema_version INTEGER NOT NULL,
  UNIQUE (run_id, tool_call_id)
) STRICT;
CREATE INDEX approvals_pending_by_run ON approvals (run_id, seq) WHERE decision IS NULL;
CREATE INDEX approvals_pending_by_owner ON approvals (owner, seq) WHERE decision IS NULL;

CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs (run_id),
  owner TEXT NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  at TEXT NOT NULL,
  schema_version INTEGER NOT NULL
) STRICT;
CREATE INDEX events_by_run ON events (run_id, id);
CREATE INDEX events_by_owner ON events (owner, id);

CREATE TABLE calls (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  input TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('executing', 'completed', 'failed', 'interrupted')),
  output TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  schema_version INTEGER NOT NULL,
  UNIQUE (run_id, tool_call_id)
) STRICT;

CREATE TABLE memory (
  key TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  chat_id TEXT,
  decision TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  schema_version INTEGER NOT NULL
) STRICT;
CREATE INDEX memory_by_chat ON memory (session_id, chat_id);

CREATE TABLE tokens (
  name TEXT PRIMARY KEY,
  role TEXT NOT NULL CHECK (role IN ('submitter', 'approver', 'admin')),
  hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  schema_version INTEGER NOT NULL
) STRICT;
`;

/**
 * Tables added after the first schema (version 1), created where they are
 * missing on every open, inside the same IMMEDIATE transaction: a store made
 * by an earlier toolgate gains them, and nothing in it changes.
 */
const ADDED_TABLES_SQL = `
CREATE TABLE IF NOT EXISTS steps (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) STRICT;

-- The notifications outbox (issue 35): one row per delivery, keyed by its idempotency key.
CREATE TABLE IF NOT EXISTS outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  channel TEXT NOT NULL,
  run_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  body TEXT NOT NULL,
  mac TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dead')),
  attempts INTEGER NOT NULL,
  next_attempt_at TEXT NOT NULL,
  leased_until TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  delivered_at TEXT,
  receipt TEXT,
  schema_version INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (next_attempt_at, seq) WHERE status = 'pending';
`;

/** Owner read and write only: the file holds sealed run states, decisions and token hashes. */
const FILE_MODE = 0o600;

/**
 * Opens (creating when missing) the store's SQLite file, ready for use:
 * WAL, `synchronous = NORMAL`, a busy timeout, foreign keys, and the schema
 * at `STORE_SCHEMA_VERSION`.
 *
 * Durability: in WAL mode `synchronous = NORMAL` survives a killed process
 * (the commit is in the WAL, which the OS keeps) but may lose the last
 * commits when the machine loses power, because SQLite syncs the WAL only
 * at checkpoints. Decisions and the at-most-once call ledger must not be
 * forgotten after a commit was acknowledged (a forgotten `executing` record
 * would let a call run twice), so the store syncs the WAL itself after each
 * batch and acknowledges nothing before (`sqlite-wal-sync.ts`): FULL's
 * promise, without the event loop waiting for the disk.
 *
 * @example
 * const database = openSqliteDatabase({ file: '.toolgate/toolgate.db', busyTimeoutMs: 5000 });
 */
export function openSqliteDatabase(options: { file: string; busyTimeoutMs: number }): Database.Database {
  const { file } = options;
  if (typeof file !== 'string' || file.length === 0) {
    throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `the store file must be a non-empty path, got ${JSON.stringify(file)}` });
  }
  makeDirectoriesSync(path.dirname(path.resolve(file)), 0o700);
  // Create it ourselves so it is never, even for a moment, readable by others.
  closeSync(openSync(file, 'a', FILE_MODE));
  chmodSync(file, FILE_MODE);

  // `timeout` is SQLite's busy_timeout: a second process waits for the write lock instead of failing.
  const database = new Database(file, { fileMustExist: true, timeout: options.busyTimeoutMs });
  try {
    const journalMode = enterWalMode(database, file, options.busyTimeoutMs);
    if (journalMode !== 'wal') {
      throw new StoreError({ code: 'STORE_NOT_A_DATABASE', message: `${file}: SQLite could not switch it to WAL journal mode (it stays in ${journalMode} mode); put the store on a local filesystem` });
    }
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    restrictCompanionFiles(file);
    ensureSchema(database, file);
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

/**
 * Switches to WAL, waiting out another process that holds the file.
 * SQLite does not call the busy handler here when both connections hold a
 * read lock and want the write lock (it answers SQLITE_BUSY at once, to
 * break the deadlock), which is what two servers started on one new store
 * at the same moment do: so this retries, within the same busy timeout.
 */
function enterWalMode(database: Database.Database, file: string, busyTimeoutMs: number): unknown {
  const deadline = Date.now() + busyTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return database.pragma('journal_mode = WAL', { simple: true });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'SQLITE_BUSY' && Date.now() < deadline) {
        sleepSync(Math.min(5 * 2 ** attempt, 100));
        continue;
      }
      if (code === 'SQLITE_NOTADB') {
        throw new StoreError({ code: 'STORE_NOT_A_DATABASE', message: `${file} is not a SQLite database; toolgate will not overwrite it: move it away or name another file for the store`, cause: error });
      }
      if (code === 'SQLITE_BUSY') {
        throw new StoreError({ code: 'STORE_IN_USE', message: `${file} stayed locked by another process for ${busyTimeoutMs} ms while toolgate opened it: ${(error as Error).message}`, cause: error });
      }
      throw new StoreError({ code: 'STORE_NOT_A_DATABASE', message: `${file} could not be opened as a SQLite database: ${(error as Error).message}`, cause: error });
    }
  }
}

/** Blocks the thread: opening the store is synchronous, and runs before anything else is served. */
function sleepSync(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}

/** SQLite gives -wal and -shm the main file's mode; chmod anyway, in case the file was created by someone else first. */
function restrictCompanionFiles(file: string): void {
  for (const companion of [`${file}-wal`, `${file}-shm`]) {
    if (existsSync(companion)) chmodSync(companion, FILE_MODE);
  }
}

/**
 * Creates the schema in an empty database, or checks the version of an
 * existing one. IMMEDIATE, so two processes opening a new file at once do
 * not both create it: the second waits, then finds the schema.
 */
function ensureSchema(database: Database.Database, file: string): void {
  database.transaction(() => {
    const tables = database
      .prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
      .pluck()
      .all() as string[];
    if (tables.length === 0) {
      database.exec(SCHEMA_SQL);
      database.exec(ADDED_TABLES_SQL);
      database.prepare(`INSERT INTO meta (key, value) VALUES ('schema_version', ?)`).run(String(STORE_SCHEMA_VERSION));
      return;
    }
    const version = tables.includes('meta')
      ? (database.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).pluck().get() as string | undefined)
      : undefined;
    const parsed = version === undefined ? Number.NaN : Number(version);
    if (!Number.isSafeInteger(parsed) || parsed < 1) {
      throw new StoreError({
        code: 'STORE_NOT_TOOLGATE',
        message: `${file} is a SQLite database but not a toolgate store (no schema_version in a meta table; tables: ${tables.join(', ')}); name another file for the store`,
      });
    }
    if (parsed > STORE_SCHEMA_VERSION) {
      throw new StoreError({
        code: 'STORE_SCHEMA_NEWER',
        message: `${file} has store schema version ${parsed}, newer than this toolgate's ${STORE_SCHEMA_VERSION}: upgrade toolgate to use it (no record in it was changed)`,
      });
    }
    // Versions older than ours would be migrated here; 1 is the first.
    database.exec(ADDED_TABLES_SQL);
  }).immediate();
}
