import { openSqliteStore } from './sqlite-store.ts';
import { isPostgresLocation } from './store-location.ts';
import type { ToolgateStore } from './store.ts';

/**
 * The store a `--store` value names: a SQLite file (the embedded default),
 * or a `postgres://` URL. `exclusive`: for the server, which must be the only
 * one driving the runs of a PostgreSQL database (`PostgresStoreOptions`).
 *
 * @example
 * const store = await openStore({ location: '.toolgate/toolgate.db' });
 */
export async function openStore(options: { location: string; exclusive?: boolean }): Promise<ToolgateStore> {
  const { location } = options;
  // Loaded only when named: the embedded default never loads the PostgreSQL driver.
  if (isPostgresLocation(location)) return (await import('./postgres-store.ts')).openPostgresStore({ url: location, exclusive: options.exclusive === true });
  return openSqliteStore({ file: location });
}

