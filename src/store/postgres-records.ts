/**
 * The PostgreSQL store's smaller records: the servers' leases, what every
 * server shares ("approve always" records and the audit log), remembered
 * session decisions, API tokens and the server secret's fingerprint. A
 * change another server must see is NOTIFYed in its transaction.
 */
import type pg from 'pg';
import type { PostgresConnection } from './postgres-connection.ts';
import { ALWAYS_CHANNEL, MEMORY_CHANNEL } from './postgres-schema.ts';
import { type RunRow, type TokenRow, rememberedFromText, rememberedText, runFromRow, tokenFromRow } from './sqlite-rows.ts';
import { checkLimit } from './store-records.ts';
import { StoreError } from './sqlite-store-error.ts';
import { STORE_SCHEMA_VERSION } from './store.ts';
import type { SharedRecords, StoredAlwaysApproval, StoreInstances, ToolgateStore } from './store.ts';

/**
 * This server's lease and the runs of servers whose lease ran out, or
 * undefined for a store opened without an instance id.
 *
 * @example
 * await postgresInstances(db)?.renew(30_000);
 */
export function postgresInstances(db: PostgresConnection): StoreInstances | undefined {
  const { query, leaseQuery, instance } = db;
  if (instance === null) return undefined;
  return {
    instance,
    async renew(leaseMs) {
      await leaseQuery(
        `INSERT INTO instances (instance_id, expires_at, started_at) VALUES ($1, now() + make_interval(secs => $2), now())
         ON CONFLICT (instance_id) DO UPDATE SET expires_at = excluded.expires_at`,
        [instance, leaseMs / 1000],
      );
    },
    async release() {
      await leaseQuery('DELETE FROM instances WHERE instance_id = $1', [instance]);
    },
    async orphanedRuns(limit) {
      const rows = await query<RunRow>(
        `SELECT * FROM runs WHERE status = 'running'
           AND (driver = $1 OR NOT EXISTS (SELECT 1 FROM instances WHERE instances.instance_id = runs.driver AND instances.expires_at > now()))
         ORDER BY seq LIMIT $2`,
        [instance, checkLimit(limit, 'orphanedRuns limit')],
      );
      return rows.rows.map(runFromRow);
    },
  };
}

/**
 * What every server shares: "approve always" records and the audit log.
 *
 * @example
 * const always = await postgresSharedRecords(db).listAlways();
 */
export function postgresSharedRecords(db: PostgresConnection): SharedRecords {
  const { query, transaction, instance } = db;
  return {
    async listAlways() {
      return (await query<AlwaysRow>('SELECT * FROM always_approvals ORDER BY seq')).rows.map(alwaysFromRow);
    },
    async addAlways(record) {
      return transaction(async (client) => {
        const inserted = await client.query(
          `INSERT INTO always_approvals (fingerprint, id, tool, identity, description, payload_preview, created_at, voided_at, voided_for, schema_version, mac)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           -- Approved again after it was voided: the new record replaces the void one; a live one stays as it is.
           ON CONFLICT (fingerprint) DO UPDATE SET id = EXCLUDED.id, description = EXCLUDED.description, payload_preview = EXCLUDED.payload_preview,
             created_at = EXCLUDED.created_at, voided_at = EXCLUDED.voided_at, voided_for = EXCLUDED.voided_for, schema_version = EXCLUDED.schema_version, mac = EXCLUDED.mac
           WHERE always_approvals.voided_at IS NOT NULL`,
          [
            record.fingerprint,
            record.id,
            record.tool,
            record.identity,
            record.description,
            record.payload_preview,
            record.created_at,
            record.voided_at ?? null,
            record.voided_for ?? null,
            STORE_SCHEMA_VERSION,
            record.mac ?? null,
          ],
        );
        if ((inserted.rowCount ?? 0) === 0) return false;
        await client.query('SELECT pg_notify($1, $2)', [ALWAYS_CHANNEL, '']);
        return true;
      });
    },
    async revokeAlways(ids) {
      if (ids !== 'all' && ids.some((id) => id.length < 6)) {
        throw new StoreError({ code: 'STORE_INVALID_RECORD', message: `revokeAlways: an id prefix needs at least 6 characters, got ${JSON.stringify(ids.find((id) => id.length < 6))}` });
      }
      return transaction(async (client) => {
        // starts_with, not LIKE: an id the caller typed is text, never a pattern.
        const removed =
          ids === 'all'
            ? await client.query<AlwaysRow>('DELETE FROM always_approvals RETURNING *')
            : await client.query<AlwaysRow>('DELETE FROM always_approvals WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS prefix WHERE starts_with(id, prefix)) RETURNING *', [ids]);
        if (removed.rows.length > 0) await client.query('SELECT pg_notify($1, $2)', [ALWAYS_CHANNEL, '']);
        return removed.rows.sort((a, b) => a.seq - b.seq).map(alwaysFromRow);
      });
    },
    async voidAlways(entry) {
      return transaction(async (client) => {
        const marked = await client.query<AlwaysRow>(
          `UPDATE always_approvals SET voided_at = $3, voided_for = $2
           WHERE tool = $1 AND identity IS NOT NULL AND identity <> $2 AND voided_at IS NULL RETURNING *`,
          [entry.tool, entry.identity, entry.at],
        );
        if (marked.rows.length > 0) await client.query('SELECT pg_notify($1, $2)', [ALWAYS_CHANNEL, '']);
        return marked.rows.sort((a, b) => a.seq - b.seq).map(alwaysFromRow);
      });
    },
    async appendAudit(lines) {
      if (lines.length === 0) return;
      await query('INSERT INTO audit (instance, line, schema_version) SELECT $1, line, $3 FROM unnest($2::text[]) WITH ORDINALITY AS added (line, position) ORDER BY position', [
        instance,
        lines,
        STORE_SCHEMA_VERSION,
      ]);
    },
    async readAudit(auditQuery) {
      const rows = await query<{ seq: number; instance: string | null; line: string }>('SELECT seq, instance, line FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2', [
        auditQuery.afterSeq,
        checkLimit(auditQuery.limit, 'readAudit limit'),
      ]);
      return rows.rows;
    },
  };

}

/** The store's methods for remembered session decisions, tokens and the server secret. */
export type KeptRecords = Pick<ToolgateStore, 'adoptSecret' | 'remember' | 'recall' | 'allRemembered' | 'forgetChat' | 'forgetRemembered' | 'createToken' | 'findToken' | 'listTokens' | 'revokeToken'>;

/**
 * Remembered session decisions, API tokens and the server secret's fingerprint.
 *
 * @example
 * await postgresKeptRecords(db).recall(key);
 */
export function postgresKeptRecords(db: PostgresConnection): KeptRecords {
  const { query, transaction, now } = db;
  return {
    async adoptSecret(fingerprint) {
      await query(`INSERT INTO meta (key, value) VALUES ('secret_fingerprint', $1) ON CONFLICT (key) DO NOTHING`, [fingerprint]);
      return (await query<{ value: string }>(`SELECT value FROM meta WHERE key = 'secret_fingerprint'`)).rows[0]?.value === fingerprint;
    },

    async remember(entry) {
      const decision = rememberedText(entry.decision, entry.key);
      await transaction(async (client) => {
        await client.query(
          `INSERT INTO memory (key, session_id, chat_id, decision, updated_at, schema_version) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (key) DO UPDATE SET session_id = excluded.session_id, chat_id = excluded.chat_id, decision = excluded.decision,
             updated_at = excluded.updated_at, schema_version = excluded.schema_version`,
          [entry.key, entry.sessionId, entry.chatId, decision, now(), STORE_SCHEMA_VERSION],
        );
        await notifyMemory(client, entry.key);
      });
    },

    async recall(key) {
      const row = (await query<{ decision: string }>('SELECT decision FROM memory WHERE key = $1', [key])).rows[0];
      return row === undefined ? undefined : rememberedFromText(row.decision);
    },

    async allRemembered() {
      // COLLATE "C": the same order as SQLite's (bytes), whatever the database's locale.
      const rows = (await query<{ key: string; decision: string }>('SELECT key, decision FROM memory ORDER BY key COLLATE "C"')).rows;
      return rows.map((row) => ({ key: row.key, decision: rememberedFromText(row.decision) }));
    },

    async forgetChat(sessionId, chatId) {
      // IS NOT DISTINCT FROM, not =: the null chat is a chat of its own, forgotten only when asked for.
      return transaction(async (client) => {
        const forgotten = (await client.query('DELETE FROM memory WHERE session_id = $1 AND chat_id IS NOT DISTINCT FROM $2', [sessionId, chatId])).rowCount ?? 0;
        if (forgotten > 0) await notifyMemory(client, null);
        return forgotten;
      });
    },

    async forgetRemembered(key) {
      return transaction(async (client) => {
        const forgotten = ((await client.query('DELETE FROM memory WHERE key = $1', [key])).rowCount ?? 0) === 1;
        if (forgotten) await notifyMemory(client, key);
        return forgotten;
      });
    },

    async createToken(token) {
      // A taken name (revoked or not) or, astronomically unlikely, a taken hash: nothing is written.
      const inserted = await query(`INSERT INTO tokens (name, role, hash, created_at, revoked_at, schema_version) VALUES ($1, $2, $3, $4, NULL, $5) ON CONFLICT DO NOTHING`, [
        token.name,
        token.role,
        token.hash,
        now(),
        STORE_SCHEMA_VERSION,
      ]);
      return inserted.rowCount === 1;
    },

    async findToken(hash) {
      const row = (await query<TokenRow>('SELECT * FROM tokens WHERE hash = $1 AND revoked_at IS NULL', [hash])).rows[0];
      return row === undefined ? undefined : tokenFromRow(row);
    },

    async listTokens() {
      return (await query<TokenRow>('SELECT * FROM tokens ORDER BY created_at, name COLLATE "C"')).rows.map(tokenFromRow);
    },

    async revokeToken(name) {
      return (await query('UPDATE tokens SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL', [now(), name])).rowCount === 1;
    }
  };
}

interface AlwaysRow {
  seq: number;
  fingerprint: string;
  id: string;
  tool: string;
  identity: string | null;
  description: string;
  payload_preview: string;
  created_at: string;
  voided_at: string | null;
  voided_for: string | null;
  mac: string | null;
}

function alwaysFromRow(row: AlwaysRow): StoredAlwaysApproval {
  const record: StoredAlwaysApproval = {
    id: row.id,
    tool: row.tool,
    identity: row.identity,
    fingerprint: row.fingerprint,
    description: row.description,
    payload_preview: row.payload_preview,
    created_at: row.created_at,
  };
  if (row.voided_at !== null) record.voided_at = row.voided_at;
  if (row.voided_for !== null) record.voided_for = row.voided_for;
  if (row.mac !== null) record.mac = row.mac;
  return record;
}

/**
 * A remembered decision changed (its key; null: reload them all), told to
 * every watcher when the transaction commits. NOTIFY payloads are short:
 * a key too long for one asks for a reload instead.
 */
async function notifyMemory(client: pg.PoolClient, key: string | null): Promise<void> {
  const payload = key !== null && Buffer.byteLength(key) < 7000 ? key : '';
  await client.query('SELECT pg_notify($1, $2)', [MEMORY_CHANNEL, payload]);
}
