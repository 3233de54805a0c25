import { ToolgateError } from '../core/errors/toolgate-error.ts';
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
  if (/^postgres(ql)?:\/\//i.test(location)) {
    throw new ToolgateError({ code: 'USAGE', message: 'a PostgreSQL store is not available in this version of toolgate; give --store a SQLite file (the default is .toolgate/toolgate.db beside the policy)' });
  }
  return openSqliteStore({ file: location });
}
