/**
 * The PostgreSQL store's tables, in their own schema (`toolgate`) so that a
 * database shared with other programs keeps theirs apart, created on first
 * start and checked on every start under an advisory lock: instances starting
 * together never both create (or migrate) it.
 */
import type pg from 'pg';
import { StoreError } from './sqlite-store-error.ts';
import { STORE_SCHEMA_VERSION } from './store.ts';

/** The PostgreSQL schema every table lives in (the connections' search_path). */
export const POSTGRES_SCHEMA = 'toolgate';

/** Advisory lock keys (one number space per database): creating or migrating the schema, giving events their ids in commit order. */
export const SCHEMA_LOCK = 0x746f6f6c; // 'tool'
export const EVENT_ORDER_LOCK = 0x67617465; // 'gate'
/** The channel every commit that stores events notifies (after it commits): servers wake their event streams. */
export const EVENTS_CHANNEL = 'toolgate_events';
/** Notified with a remembered decision's key when it changes (empty: reload them all). */
export const MEMORY_CHANNEL = 'toolgate_memory';
/** Notified when an "approve always" is added, revoked or voided: servers read them all again. */
export const ALWAYS_CHANNEL = 'toolgate_always';

/**
 * The same records as the SQLite store's, with the same columns: times and
 * JSON as text (what was written is what is read back, byte for byte), ids
 * and creation order from identity columns.
 */
const SCHEMA_SQL = `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE runs (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
  schema_version INTEGER NOT NULL,
  -- The server that last moved the run (see instances); null before servers shared the store.
  driver TEXT
);
CREATE INDEX runs_by_owner_created ON runs (owner, seq);
CREATE INDEX runs_by_status ON runs (status, seq);

CREATE TABLE approvals (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
);
CREATE INDEX approvals_pending_by_run ON approvals (run_id, seq) WHERE decision IS NULL;
CREATE INDEX approvals_pending_by_owner ON approvals (owner, seq) WHERE decision IS NULL;

CREATE TABLE events (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (run_id),
  owner TEXT NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  at TEXT NOT NULL,
  schema_version INTEGER NOT NULL
);
CREATE INDEX events_by_run ON events (run_id, id);
CREATE INDEX events_by_owner ON events (owner, id);

CREATE TABLE calls (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
);

CREATE TABLE memory (
  key TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  chat_id TEXT,
  decision TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  schema_version INTEGER NOT NULL
);
CREATE INDEX memory_by_chat ON memory (session_id, chat_id);

-- Servers sharing the store: each renews its lease while it lives; the running runs
-- of a server whose lease ran out (database time) are taken over by another.
CREATE TABLE instances (
  instance_id TEXT PRIMARY KEY,
  expires_at TIMESTAMPTZ NOT NULL,
  started_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE tokens (
  name TEXT PRIMARY KEY,
  role TEXT NOT NULL CHECK (role IN ('submitter', 'approver', 'admin')),
  hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  schema_version INTEGER NOT NULL
);
`;

/**
 * Tables added after the first schema (version 1), created where they are
 * missing on every start, under the same lock: a store made by an earlier
 * toolgate gains them, and nothing in it changes.
 */
const ADDED_TABLES_SQL = `
-- "Approve always" of every server sharing the store (a lone server keeps them in approvals.json beside its policy).
CREATE TABLE IF NOT EXISTS always_approvals (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  id TEXT NOT NULL,
  tool TEXT NOT NULL,
  identity TEXT,
  description TEXT NOT NULL,
  payload_preview TEXT NOT NULL,
  created_at TEXT NOT NULL,
  voided_at TEXT,
  voided_for TEXT,
  schema_version INTEGER NOT NULL
);

-- Each model call of a run, recorded before any tool call of its answer runs: recovery continues from them.
CREATE TABLE IF NOT EXISTS steps (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
);

-- The audit trail of every server sharing the store: each record the JSON line a lone server appends to its audit.jsonl.
CREATE TABLE IF NOT EXISTS audit (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  instance TEXT,
  line TEXT NOT NULL,
  recorded_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  schema_version INTEGER NOT NULL
);

-- The server's MAC over an "approve always" (record-mac.ts): one without a valid MAC never matches a call.
ALTER TABLE always_approvals ADD COLUMN IF NOT EXISTS mac TEXT;

-- The notifications outbox (issue 35): one row per delivery, keyed by its idempotency key; servers claim rows with a lease.
CREATE TABLE IF NOT EXISTS outbox (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (next_attempt_at, seq) WHERE status = 'pending';
`;

/**
 * Creates the `toolgate` schema and its tables in a database that has none,
 * or checks the version of the one it has: a schema from a newer toolgate,
 * or a `toolgate` schema some other program made, is refused rather than
 * written to. One transaction under `SCHEMA_LOCK`, so a second instance
 * starting at the same moment waits, then finds the tables made.
 *
 * @example
 * await ensurePostgresSchema(client, 'postgres://db.internal/toolgate');
 */
export async function ensurePostgresSchema(client: pg.ClientBase, where: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    const tables = (await client.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [POSTGRES_SCHEMA])).rows.map(
      (row) => row.table_name,
    );
    if (tables.length === 0) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${POSTGRES_SCHEMA}`);
      await client.query(`SET LOCAL search_path TO ${POSTGRES_SCHEMA}`);
      await client.query(SCHEMA_SQL);
      await client.query(ADDED_TABLES_SQL);
      await client.query(`INSERT INTO meta (key, value) VALUES ('schema_version', $1)`, [String(STORE_SCHEMA_VERSION)]);
      await client.query('COMMIT');
      return;
    }
    const version = tables.includes('meta') ? (await client.query<{ value: string }>(`SELECT value FROM ${POSTGRES_SCHEMA}.meta WHERE key = 'schema_version'`)).rows[0]?.value : undefined;
    const parsed = version === undefined ? Number.NaN : Number(version);
    if (!Number.isSafeInteger(parsed) || parsed < 1) {
      throw new StoreError({
        code: 'STORE_NOT_TOOLGATE',
        message: `${where} has a "${POSTGRES_SCHEMA}" schema that is not a toolgate store (no schema_version in a meta table; tables: ${tables.join(', ')}); use another database`,
      });
    }
    if (parsed > STORE_SCHEMA_VERSION) {
      throw new StoreError({
        code: 'STORE_SCHEMA_NEWER',
        message: `${where} has store schema version ${parsed}, newer than this toolgate's ${STORE_SCHEMA_VERSION}: upgrade toolgate to use it (no record in it was changed)`,
      });
    }
    // Versions older than ours would be migrated here, under the lock; 1 is the first.
    await client.query(`SET LOCAL search_path TO ${POSTGRES_SCHEMA}`);
    await client.query(ADDED_TABLES_SQL);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
