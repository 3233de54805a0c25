import { holdSqliteServerLock } from './sqlite-server-lock.ts';
import { openSqliteStore } from './sqlite-store.ts';
import { isPostgresLocation } from './store-location.ts';
import type { ToolgateStore } from './store.ts';

/**
 * The store a `--store` value names: a SQLite file (the embedded default),
 * or a `postgres://` URL. `instance`: the server's id among the servers that
 * share a PostgreSQL store (`StoreInstances`); a SQLite store has one server.
 * `onWarning`: told of trouble that loses nothing but needs looking at (a
 * SQLite WAL checkpoint that failed).
 *
 * @example
 * const store = await openStore({ location: '.toolgate/toolgate.db' });
 */
export async function openStore(options: {
  location: string;
  instance?: string;
  onWarning?: (message: string) => void;
  /** `toolgate serve`: a SQLite store is held by this server alone until it closes (`STORE_IN_USE` when another holds it). */
  server?: boolean;
}): Promise<ToolgateStore> {
  const { location } = options;
  // Loaded only when named: the embedded default never loads the PostgreSQL driver.
  if (isPostgresLocation(location)) {
    const { openPostgresStore } = await import('./postgres-store.ts');
    return openPostgresStore({ url: location, ...(options.instance === undefined ? {} : { instance: options.instance }) });
  }
  const warn = options.onWarning;
  const open = () => openSqliteStore({ file: location, ...(warn === undefined ? {} : { onCheckpointError: (error: Error) => warn(error.message) }) });
  if (options.server !== true) return open();
  // Opened first, so that a file that is not a store is refused as such; then held, before any run is touched.
  const store = open();
  let lock;
  try {
    lock = holdSqliteServerLock({ file: location });
  } catch (error) {
    await store.close();
    throw error;
  }
  const held = lock;
  const close = store.close.bind(store);
  store.close = async () => {
    try {
      await close();
    } finally {
      held.release();
    }
  };
  return store;
}

