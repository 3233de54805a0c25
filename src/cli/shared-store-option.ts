import { openStore } from '../store/open-store.ts';
import { StoreError } from '../store/sqlite-store-error.ts';
import { describeStoreLocation, isPostgresLocation } from '../store/store-location.ts';
import type { SharedRecords, ToolgateStore } from '../store/store.ts';
import { UsageError } from './cli-support.ts';

/**
 * Opens the store named by `--store` for what servers sharing it keep there
 * ("approve always", the audit trail). Only a PostgreSQL store has them: a
 * lone server on a SQLite file keeps both in files beside its policy, which
 * the commands read without `--store`. Throws a UsageError for any other
 * value, and a StoreError when the store cannot be opened.
 *
 * @example
 * const { store, shared, where } = await openSharedStore('postgres://toolgate@db/toolgate', 'toolgate approvals');
 */
export async function openSharedStore(value: string, command: string): Promise<{ store: ToolgateStore; shared: SharedRecords; where: string }> {
  if (!isPostgresLocation(value)) {
    throw new UsageError(
      `${command} --store takes the postgres:// URL of a store servers share, not ${JSON.stringify(value)}: a server on a SQLite file keeps this in a file beside its policy (use --policy)`,
    );
  }
  const where = describeStoreLocation(value);
  const store = await openStore({ location: value });
  if (store.shared === undefined) {
    await store.close();
    throw new StoreError({ code: 'STORE_NOT_TOOLGATE', message: `${where} keeps no shared records` });
  }
  return { store, shared: store.shared, where };
}
