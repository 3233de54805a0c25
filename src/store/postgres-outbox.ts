/**
 * The PostgreSQL store's outbox: notifications waiting to be delivered
 * (webhooks, email), claimed with SKIP LOCKED so that two servers never
 * deliver the same one at once.
 */
import type { PostgresConnection } from './postgres-connection.ts';
import { type DeliveryRow, deliveryFromRow } from './sqlite-rows.ts';
import { checkLimit } from './store-records.ts';
import { STORE_SCHEMA_VERSION } from './store.ts';
import type { DeliveryStatus, StoreOutbox } from './store.ts';

/**
 * The outbox of one store.
 *
 * @example
 * const due = await postgresOutbox(db).claimDeliveries({ now, leaseUntil, limit: 10 });
 */
export function postgresOutbox(db: PostgresConnection): StoreOutbox {
  const { query, now } = db;
  return {
    async enqueueDeliveries(deliveries) {
      if (deliveries.length === 0) return 0;
      const at = now();
      const added = await query(
        `INSERT INTO outbox (id, channel, run_id, tool_call_id, body, mac, status, attempts, next_attempt_at, created_at, schema_version)
         SELECT d.id, d.channel, d.run_id, d.tool_call_id, d.body, d.mac, 'pending', 0, $2, $2, $3
         FROM jsonb_to_recordset($1::jsonb) AS d(id TEXT, channel TEXT, run_id TEXT, tool_call_id TEXT, body TEXT, mac TEXT)
         ON CONFLICT (id) DO NOTHING`,
        [JSON.stringify(deliveries.map((delivery) => ({ id: delivery.id, channel: delivery.channel, run_id: delivery.runId, tool_call_id: delivery.toolCallId, body: delivery.body, mac: delivery.mac }))), at, STORE_SCHEMA_VERSION],
      );
      return added.rowCount ?? 0;
    },
    async claimDeliveries(claim) {
      const limit = checkLimit(claim.limit, 'claimDeliveries limit');
      // SKIP LOCKED: two servers claiming at once get different rows, never the same one.
      const claimed = await query<DeliveryRow>(
        `UPDATE outbox SET leased_until = $2, attempts = attempts + 1
         WHERE seq IN (
           SELECT seq FROM outbox WHERE status = 'pending' AND next_attempt_at <= $1 AND (leased_until IS NULL OR leased_until <= $1)
           ORDER BY next_attempt_at, seq LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [claim.now, claim.leaseUntil, limit],
      );
      return claimed.rows.sort((left, right) => Number(left.seq) - Number(right.seq)).map(deliveryFromRow);
    },
    async finishDelivery(id, outcome) {
      if (outcome.status === 'delivered') await query(`UPDATE outbox SET status = 'delivered', delivered_at = $1, receipt = $3, leased_until = NULL, last_error = NULL WHERE id = $2`, [outcome.at, id, outcome.receipt ?? null]);
      else if (outcome.status === 'pending') await query(`UPDATE outbox SET next_attempt_at = $1, leased_until = NULL, last_error = $2 WHERE id = $3 AND status = 'pending'`, [outcome.retryAt, outcome.error, id]);
      else await query(`UPDATE outbox SET status = 'dead', leased_until = NULL, last_error = $1 WHERE id = $2 AND status = 'pending'`, [outcome.error, id]);
    },
    async countDeliveries() {
      const counts: Record<DeliveryStatus, number> = { pending: 0, delivered: 0, dead: 0 };
      for (const row of (await query<{ status: DeliveryStatus; n: string }>('SELECT status, COUNT(*) AS n FROM outbox GROUP BY status')).rows) counts[row.status] = Number(row.n);
      return counts;
    },
    async listDeliveries(list) {
      const limit = checkLimit(list.limit, 'listDeliveries limit');
      const rows =
        list.status === undefined
          ? await query<DeliveryRow>('SELECT * FROM outbox ORDER BY seq DESC LIMIT $1', [limit])
          : await query<DeliveryRow>('SELECT * FROM outbox WHERE status = $1 ORDER BY seq DESC LIMIT $2', [list.status, limit]);
      return rows.rows.map(deliveryFromRow);
    },
    async findDelivery(id) {
      const row = (await query<DeliveryRow>('SELECT * FROM outbox WHERE id = $1', [id])).rows[0];
      return row === undefined ? undefined : deliveryFromRow(row);
    },
  };
}
