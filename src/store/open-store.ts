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
export async function openStore(options: { location: string; instance?: string; onWarning?: (message: string) => void }): Promise<ToolgateStore> {
  const { location } = options;
  // Loaded only when named: the embedded default never loads the PostgreSQL driver.
  if (isPostgresLocation(location)) {
    const { openPostgresStore } = await import('./postgres-store.ts');
    return openPostgresStore({ url: location, ...(options.instance === undefined ? {} : { instance: options.instance }) });
  }
  const warn = options.onWarning;
  return openSqliteStore({ file: location, ...(warn === undefined ? {} : { onCheckpointError: (error: Error) => warn(error.message) }) });
}

