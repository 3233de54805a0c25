/**
 * Fencing for servers sharing a PostgreSQL store: a server writes to a run,
 * or starts one of its calls, only while it is the run's driver and its
 * lease is alive — checked by the database, in the statement that writes.
 * A server that was paused, partitioned or slow past its lease, and whose
 * runs another server may have taken over, can then neither record nor
 * execute anything for them (issue 32).
 */
import { StoreError } from './sqlite-store-error.ts';

/**
 * SQL that is true when the server `instance` (a text parameter, or NULL for
 * a store without servers: the CLI) holds a live lease.
 *
 * @example
 * `UPDATE runs SET ... WHERE run_id = $1 AND revision = $2 AND ${leaseAlive('$13')}`
 */
export function leaseAlive(instance: string): string {
  return `(${instance}::text IS NULL OR EXISTS (SELECT 1 FROM instances WHERE instances.instance_id = ${instance}::text AND instances.expires_at > now()))`;
}

/**
 * SQL that is true when the server `instance` drives the run `runId` (both
 * text parameters) and holds a live lease, or when there is no server.
 *
 * @example
 * `INSERT INTO calls (...) SELECT ... WHERE ${drivesRun('$1', '$7')} ON CONFLICT DO NOTHING`
 */
export function drivesRun(runId: string, instance: string): string {
  return `(${instance}::text IS NULL OR EXISTS (SELECT 1 FROM runs JOIN instances ON instances.instance_id = runs.driver
    WHERE runs.run_id = ${runId}::text AND runs.driver = ${instance}::text AND instances.expires_at > now()))`;
}

/**
 * @example
 * throw fencedError({ instance, runId, what: 'run the call tg_1_0' });
 */
export function fencedError(options: { instance: string; runId: string; what: string }): StoreError {
  return new StoreError({
    code: 'STORE_FENCED',
    message: `server ${options.instance} may no longer ${options.what} of run ${options.runId}: its lease ran out or another server took the run over; nothing was written (the run goes on where its current driver takes it)`,
  });
}
