import { openSqliteStore } from './sqlite-store.ts';
import type { ToolgateStore } from './store.ts';

/**
 * The store a `--store` value names: a SQLite file (the embedded default),
 * or a `postgres://` URL.
 *
 * @example
 * const store = await openStore({ location: '.toolgate/toolgate.db' });
 */
export async function openStore(options: { location: string }): Promise<ToolgateStore> {
  const { location } = options;
  // Loaded only when named: the embedded default never loads the PostgreSQL driver.
  if (/^postgres(ql)?:\/\//i.test(location)) return (await import('./postgres-store.ts')).openPostgresStore({ url: location });
  return openSqliteStore({ file: location });
}
