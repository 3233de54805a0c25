/**
 * The SQLite store's smaller records: remembered session decisions, API
 * tokens, and the outbox of notifications waiting to be delivered.
 */
import type { SqliteConnection } from './sqlite-connection.ts';
import { type DeliveryRow, type TokenRow, deliveryFromRow, rememberedFromText, rememberedText, tokenFromRow } from './sqlite-rows.ts';
import { checkLimit } from './store-records.ts';
import type { DeliveryStatus, StoreOutbox, ToolgateStore } from './store.ts';

/** The store's methods for remembered session decisions and tokens. */
export type KeptRecords = Pick<ToolgateStore, 'remember' | 'recall' | 'allRemembered' | 'forgetChat' | 'forgetRemembered' | 'createToken' | 'findToken' | 'listTokens' | 'revokeToken'>;

/**
 * Remembered session decisions and API tokens.
 *
 * @example
 * await sqliteKeptRecords(db).recall(key);
 */
export function sqliteKeptRecords(db: SqliteConnection): KeptRecords {
  const { statement, write, now } = db;
  return {
    async remember(entry) {
      const decision = rememberedText(entry.decision, entry.key);
      await write('remember', { key: entry.key, sessionId: entry.sessionId, chatId: entry.chatId, decision, at: now() });
    },

    async recall(key) {
      const text = statement('SELECT decision FROM memory WHERE key = ?').pluck().get(key) as string | undefined;
      return text === undefined ? undefined : rememberedFromText(text);
    },

    async allRemembered() {
      const rows = statement('SELECT key, decision FROM memory ORDER BY key').all() as Array<{ key: string; decision: string }>;
      return rows.map((row) => ({ key: row.key, decision: rememberedFromText(row.decision) }));
    },

    async forgetChat(sessionId, chatId) {
      return write('forgetChat', { sessionId, chatId });
    },

    async forgetRemembered(key) {
      return write('forgetRemembered', { key });
    },

    async createToken(token) {
      return write('createToken', { name: token.name, role: token.role, hash: token.hash, at: now() });
    },

    async findToken(hash) {
      const row = statement('SELECT * FROM tokens WHERE hash = ? AND revoked_at IS NULL').get(hash) as TokenRow | undefined;
      return row === undefined ? undefined : tokenFromRow(row);
    },

    async listTokens() {
      return (statement('SELECT * FROM tokens ORDER BY created_at, name').all() as TokenRow[]).map(tokenFromRow);
    },

    async revokeToken(name) {
      return write('revokeToken', { name, at: now() });
    },
  };
}

/**
 * The outbox of one store.
 *
 * @example
 * const due = await sqliteOutbox(db).claimDeliveries({ now, leaseUntil, limit: 10 });
 */
export function sqliteOutbox(db: SqliteConnection): StoreOutbox {
  const { statement, write, now } = db;
  return {
    async enqueueDeliveries(deliveries) {
      if (deliveries.length === 0) return 0;
      return write('enqueueDeliveries', { deliveries: [...deliveries], at: now() });
    },
    async claimDeliveries(query) {
      const limit = checkLimit(query.limit, 'claimDeliveries limit');
      return (await write('claimDeliveries', { now: query.now, leaseUntil: query.leaseUntil, limit })).map(deliveryFromRow);
    },
    async finishDelivery(id, outcome) {
      await write('finishDelivery', { id, outcome });
    },
    async countDeliveries() {
      const counts: Record<DeliveryStatus, number> = { pending: 0, delivered: 0, dead: 0 };
      for (const row of statement('SELECT status, COUNT(*) AS n FROM outbox GROUP BY status').all() as Array<{ status: DeliveryStatus; n: number }>) counts[row.status] = row.n;
      return counts;
    },
    async listDeliveries(query) {
      const limit = checkLimit(query.limit, 'listDeliveries limit');
      const rows = query.status === undefined ? statement('SELECT * FROM outbox ORDER BY seq DESC LIMIT ?').all(limit) : statement('SELECT * FROM outbox WHERE status = ? ORDER BY seq DESC LIMIT ?').all(query.status, limit);
      return (rows as DeliveryRow[]).map(deliveryFromRow);
    },
    async findDelivery(id) {
      const row = statement('SELECT * FROM outbox WHERE id = ?').get(id) as DeliveryRow | undefined;
      return row === undefined ? undefined : deliveryFromRow(row);
    },
  };
}
