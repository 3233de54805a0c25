/**
 * What a server does with a run it cannot write on a store servers share.
 */
import { StoreError } from '../../store/sqlite-store-error.ts';
import type { ServerRuntime } from './server-runtime.ts';

/**
 * Whether a drive (or a takeover) that failed with `error` leaves its run
 * as it stands instead of failing it: on a shared store, when the store
 * refused the write because this server no longer drives the run (its
 * lease lapsed, another server took it over: `STORE_FENCED`) or could not
 * be reached (`STORE_UNAVAILABLE`). Failing the run then would end a run a
 * person approved over a slow heartbeat; left `running`, it is driven on
 * from its journal by its new driver, or by the lease's takeover (here or
 * on another server), which replays what was recorded and runs nothing
 * twice. On a store one server has to itself nobody else would pick the run
 * up, so there an error fails it as before.
 *
 * @example
 * if (!leftForTakeover(runtime, error)) await finishRun(runtime, run, { status: 'failed', error: errorText(error) }, events);
 */
export function leftForTakeover(runtime: ServerRuntime, error: unknown): boolean {
  if (runtime.store.instances === undefined) return false;
  // The AI SDK wraps what a model or a tool threw: the store's error is somewhere in the causes.
  for (let cause: unknown = error, depth = 0; cause !== undefined && cause !== null && depth < 8; depth++) {
    if (cause instanceof StoreError && (cause.code === 'STORE_FENCED' || cause.code === 'STORE_UNAVAILABLE')) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
