import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { freshDatabase } from '../../test/postgres-server.ts';
import { SERVER_LOCK } from './postgres-schema.ts';
import { openPostgresStore } from './postgres-store.ts';
import { describeStoreContract } from './store-contract.ts';
import { newEvent, newRun } from './store-contract-fixtures.ts';
import { STORE_SCHEMA_VERSION } from './store.ts';
import type { ToolgateStore } from './store.ts';

describeStoreContract('postgres', async () => {
  const database = await freshDatabase();
  const opened: ToolgateStore[] = [await openPostgresStore({ url: database.url })];
  const closeAll = async () => {
    for (const store of opened) await store.close();
  };
  return {
    store: opened[0] as ToolgateStore,
    async reopen() {
      await closeAll();
      const store = await openPostgresStore({ url: database.url });
      opened.push(store);
      return store;
    },
    async cleanup() {
      await closeAll();
      await database.drop();
    },
  };
});


describe('openPostgresStore', () => {
  it('creates the schema once when instances start together, and each can use it', async () => {
    const database = await freshDatabase();
    try {
      const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore({ url: database.url })));
      await stores[0]!.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
      for (const store of stores) expect((await store.getRun('run-1'))?.runId).toBe('run-1');
      await Promise.all(stores.map((store) => store.close()));
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      const versions = await admin.query(`SELECT value FROM toolgate.meta WHERE key = 'schema_version'`);
      await admin.end();
      expect(versions.rows).toEqual([{ value: String(STORE_SCHEMA_VERSION) }]);
    } finally {
      await database.drop();
    }
  });

  it('refuses a toolgate schema another program made, and one from a newer toolgate, changing nothing', async () => {
    const database = await freshDatabase();
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query('CREATE SCHEMA toolgate; CREATE TABLE toolgate.orders (id int)');
      await expect(openPostgresStore({ url: database.url })).rejects.toMatchObject({ code: 'STORE_NOT_TOOLGATE', message: expect.stringContaining('tables: orders') });
      await admin.query(`DROP TABLE toolgate.orders; CREATE TABLE toolgate.meta (key text primary key, value text not null); INSERT INTO toolgate.meta VALUES ('schema_version', '${STORE_SCHEMA_VERSION + 1}')`);
      await expect(openPostgresStore({ url: database.url })).rejects.toMatchObject({ code: 'STORE_SCHEMA_NEWER' });
      const tables = await admin.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'toolgate'`);
      expect(tables.rows).toEqual([{ table_name: 'meta' }]);
    } finally {
      await admin.end();
      await database.drop();
    }
  });

  it('says the server cannot be reached (STORE_UNAVAILABLE), without the password', async () => {
    const error = await openPostgresStore({ url: 'postgres://toolgate:hunter2@127.0.0.1:9/none', connectTimeoutMs: 2000 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((error as Error).message).toContain('127.0.0.1:9');
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('gives events ids in commit order across instances: a reader that follows the newest id never misses one', async () => {
    const database = await freshDatabase();
    const writers = await Promise.all([openPostgresStore({ url: database.url }), openPostgresStore({ url: database.url })]);
    const reader = await openPostgresStore({ url: database.url });
    try {
      await writers[0]!.createRun(newRun('run-1'), []);
      let writing = true;
      const seen: number[] = [];
      const follow = (async () => {
        let after = 0;
        while (writing || after < (await reader.lastEventId())) {
          const events = await reader.readEvents({ afterId: after, limit: 1000 });
          for (const event of events) seen.push(event.id);
          after = events.at(-1)?.id ?? after;
        }
      })();
      // Many small transactions from two instances (two connection pools), overlapping.
      await Promise.all(
        writers.flatMap((writer, instance) =>
          Array.from({ length: 150 }, (_, index) => writer.appendEvents([newEvent('run-1', 'text', { instance, index }), newEvent('run-1', 'text', { instance, index, second: true })])),
        ),
      );
      writing = false;
      await follow;
      const all = (await reader.readEvents({ afterId: 0, limit: 10_000 })).map((event) => event.id);
      expect(all).toHaveLength(600);
      expect(seen).toEqual(all);
    } finally {
      await Promise.all([...writers, reader].map((store) => store.close()));
      await database.drop();
    }
  });
});

describe('an exclusive store (toolgate serve): one server per database', () => {
  /** Ends the connection that holds the server lock, as a database restart or a cut connection would. */
  async function cutLockConnection(url: string): Promise<void> {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const cut = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted`, [SERVER_LOCK]);
      expect(cut.rowCount).toBe(1);
    } finally {
      await admin.end();
    }
  }

  it('refuses a second server, not a shared opener; takes the lock again when its connection is cut; refuses writes for good once another server took it', async () => {
    const database = await freshDatabase();
    const first = await openPostgresStore({ url: database.url, exclusive: true });
    const opened: ToolgateStore[] = [first];
    try {
      await expect(openPostgresStore({ url: database.url, exclusive: true })).rejects.toMatchObject({ code: 'STORE_IN_USE' });
      const shared = await openPostgresStore({ url: database.url });
      opened.push(shared);
      await shared.createToken({ name: 'ci', role: 'submitter', hash: 'a'.repeat(64) });

      // Cut, nobody else waiting: writes are refused (503) until the lock is held again, then go on.
      // (The client learns of the cut a moment later: a write in that moment still lands, as it would in any database client.)
      await cutLockConnection(database.url);
      await vi.waitFor(() => expect(first.appendEvents([])).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' }), { timeout: 5000, interval: 20 });
      await vi.waitFor(() => expect(first.appendEvents([])).resolves.toEqual([]), { timeout: 5000, interval: 200 });
      expect((await first.createRun(newRun('run-1'), [])).run.runId).toBe('run-1');

      // Cut again, and another server takes the database first: this one never writes again.
      await cutLockConnection(database.url);
      const second = await openPostgresStore({ url: database.url, exclusive: true });
      opened.push(second);
      await vi.waitFor(() => expect(first.createRun(newRun('run-2'), [])).rejects.toMatchObject({ code: 'STORE_IN_USE' }), { timeout: 5000, interval: 200 });
      await expect(first.beginCall({ runId: 'run-1', toolCallId: 'c', tool: 't', input: '{}' })).rejects.toMatchObject({ code: 'STORE_IN_USE' });
      expect((await first.getRun('run-1'))?.runId).toBe('run-1');
      expect((await second.createRun(newRun('run-3'), [])).run.runId).toBe('run-3');
      expect(await second.getRun('run-2')).toBeUndefined();
    } finally {
      for (const store of opened) await store.close();
      await database.drop();
    }
  });
});
