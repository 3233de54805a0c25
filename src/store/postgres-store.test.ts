import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { freshDatabase, TEST_POSTGRES_SOCKET_URL_VARIABLE } from '../../test/postgres-server.ts';
import { createPostgresGroupCommit, laneOf } from './postgres-group-commit.ts';
import { commitLanes, commitStagedEvents } from './postgres-event-commit.ts';
import { openPostgresStore } from './postgres-store.ts';
import { describeStoreContract } from './store-contract.ts';
import { decision, newApproval, newEvent, newRun } from './store-contract-fixtures.ts';
import { STORE_SCHEMA_VERSION, type StoreChange, type StoredAlwaysApproval } from './store.ts';
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

  it("works through PostgreSQL's Unix socket, named as the URL's host (percent-encoded)", async () => {
    const socketUrl = process.env[TEST_POSTGRES_SOCKET_URL_VARIABLE]!;
    expect(new URL(socketUrl).hostname).toMatch(/^%2F/);
    const database = await freshDatabase({ admin: socketUrl });
    expect(new URL(database.url).hostname).toBe(new URL(socketUrl).hostname);
    try {
      const store = await openPostgresStore({ url: database.url });
      try {
        await store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
        expect((await store.getRun('run-1'))?.status).toBe('running');
        expect((await store.readEvents({ afterId: 0, limit: 10 })).map((event) => event.type)).toEqual(['run_started']);
      } finally {
        await store.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('says the server cannot be reached (STORE_UNAVAILABLE), without the password', async () => {
    const error = await openPostgresStore({ url: 'postgres://toolgate:hunter2@127.0.0.1:9/none', connectTimeoutMs: 2000 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((error as Error).message).toContain('127.0.0.1:9');
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('says a Unix socket that is not there cannot be reached (STORE_UNAVAILABLE), naming it, without the password', async () => {
    const error = await openPostgresStore({ url: 'postgres://toolgate:hunter2@%2Fnonexistent%2Ftoolgate-socket/none', connectTimeoutMs: 2000 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((error as Error).message).toContain('/nonexistent/toolgate-socket/.s.PGSQL.5432');
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

describe('servers sharing the store: leases and the events watch', () => {
  it('stamps runs with the server that moved them; a run of a server whose lease ran out is an orphan', async () => {
    const database = await freshDatabase();
    const alpha = await openPostgresStore({ url: database.url, instance: 'alpha' });
    const beta = await openPostgresStore({ url: database.url, instance: 'beta' });
    try {
      await alpha.instances!.renew(60_000);
      await beta.instances!.renew(60_000);
      const created = await alpha.createRun(newRun('run-1'), []);
      await beta.createRun(newRun('run-2'), []);
      // Alive: each sees only its own running runs (which it may have stopped driving).
      expect((await alpha.instances!.orphanedRuns(10)).map((run) => run.runId)).toEqual(['run-1']);
      expect((await beta.instances!.orphanedRuns(10)).map((run) => run.runId)).toEqual(['run-2']);
      // alpha's lease runs out: its run is beta's to take over, by revision like any move; then it is beta's.
      await alpha.instances!.renew(1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await beta.instances!.orphanedRuns(10)).map((run) => run.runId)).toEqual(['run-1', 'run-2']);
      const taken = await beta.updateRun('run-1', created.run.revision, {}, { events: [newEvent('run-1', 'run_recovered')] });
      expect(taken?.run.revision).toBe(created.run.revision + 1);
      expect(await alpha.updateRun('run-1', created.run.revision, { status: 'completed' })).toBeUndefined();
      await alpha.instances!.renew(60_000);
      expect((await alpha.instances!.orphanedRuns(10)).map((run) => run.runId)).toEqual([]);
      // A clean stop ends the lease at once.
      await beta.instances!.release();
      expect((await alpha.instances!.orphanedRuns(10)).map((run) => run.runId)).toEqual(['run-1', 'run-2']);
      // Paused and finished runs are nobody's orphans.
      const paused = await alpha.updateRun('run-1', taken!.run.revision, { status: 'paused_checkpoint' });
      expect(paused?.run.status).toBe('paused_checkpoint');
      expect((await alpha.instances!.orphanedRuns(10)).map((run) => run.runId)).toEqual(['run-2']);
      // A store opened without an instance (toolgate token) offers no leases.
      const shared = await openPostgresStore({ url: database.url });
      expect(shared.instances).toBeUndefined();
      await shared.close();
    } finally {
      await alpha.close();
      await beta.close();
      await database.drop();
    }
  });

  it('fences a server that lost its lease: it can neither start a call nor record a model call of the run, before or after another server takes it over', async () => {
    const database = await freshDatabase();
    const alpha = await openPostgresStore({ url: database.url, instance: 'alpha' });
    const beta = await openPostgresStore({ url: database.url, instance: 'beta' });
    try {
      await alpha.instances!.renew(60_000);
      await beta.instances!.renew(60_000);
      const created = await alpha.createRun(newRun('run-1'), []);
      // The driver with a live lease writes.
      expect(await alpha.beginCall({ runId: 'run-1', toolCallId: 'tg_0_0', tool: 'shell', input: 'sealed' })).toBe(true);
      expect(await alpha.recordStep({ runId: 'run-1', seq: 0, body: 'answer-0' })).toBe(true);
      // Another server, not the run's driver, is refused, and writes nothing.
      await expect(beta.beginCall({ runId: 'run-1', toolCallId: 'tg_0_1', tool: 'shell', input: 'sealed' })).rejects.toMatchObject({ code: 'STORE_FENCED' });
      await expect(beta.recordStep({ runId: 'run-1', seq: 1, body: 'answer-1' })).rejects.toMatchObject({ code: 'STORE_FENCED' });
      // alpha's lease runs out (paused, partitioned, slow): before anyone takes the run over, it is refused already.
      await alpha.instances!.renew(1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await expect(alpha.beginCall({ runId: 'run-1', toolCallId: 'tg_0_1', tool: 'shell', input: 'sealed' })).rejects.toThrow(/alpha may no longer run the call tg_0_1 of run run-1/);
      await expect(alpha.recordStep({ runId: 'run-1', seq: 1, body: 'answer-1' })).rejects.toMatchObject({ code: 'STORE_FENCED' });
      expect(await alpha.updateRun('run-1', created.run.revision, { status: 'completed' })).toBeUndefined();
      // beta takes the run over; it is beta's to drive, and alpha stays fenced even once its lease is renewed.
      const taken = await beta.updateRun('run-1', created.run.revision, {}, { events: [newEvent('run-1', 'run_recovered')] });
      expect(taken?.run.revision).toBe(created.run.revision + 1);
      await alpha.instances!.renew(60_000);
      await expect(alpha.beginCall({ runId: 'run-1', toolCallId: 'tg_0_1', tool: 'shell', input: 'sealed' })).rejects.toMatchObject({ code: 'STORE_FENCED' });
      expect(await beta.beginCall({ runId: 'run-1', toolCallId: 'tg_0_1', tool: 'shell', input: 'sealed' })).toBe(true);
      expect(await beta.recordStep({ runId: 'run-1', seq: 1, body: 'answer-1' })).toBe(true);
      // A call begun before is "begun before" to anyone, not a fencing error: nobody runs it again.
      expect(await beta.beginCall({ runId: 'run-1', toolCallId: 'tg_0_0', tool: 'shell', input: 'again' })).toBe(false);
      expect((await beta.listCalls('run-1')).map((call) => call.toolCallId)).toEqual(['tg_0_0', 'tg_0_1']);
      expect((await beta.listSteps('run-1', 0)).map((step) => step.body)).toEqual(['answer-0', 'answer-1']);
    } finally {
      await alpha.close();
      await beta.close();
      await database.drop();
    }
  });

  it("tells a watcher of another server's events and remembered decisions when they commit (not before), and to resync after its connection is cut", async () => {
    const database = await freshDatabase();
    const writer = await openPostgresStore({ url: database.url, instance: 'writer' });
    const reader = await openPostgresStore({ url: database.url, instance: 'reader' });
    let woken = 0;
    const changes: StoreChange[] = [];
    const stop = reader.watch!((change) => {
      woken++;
      changes.push(change);
    });
    try {
      await writer.createRun(newRun('run-1'), []);
      await vi.waitFor(async () => {
        const before = woken;
        await writer.appendEvents([newEvent('run-1', 'text')]);
        await vi.waitFor(() => expect(woken).toBeGreaterThan(before), { timeout: 500, interval: 10 });
      }, { timeout: 10_000, interval: 100 });
      // A transaction that rolls back notifies nobody.
      const before = woken;
      await expect(writer.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')])).rejects.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(woken).toBe(before);
      // The watch's connection is cut: it connects again and wakes the listener once for what it may have missed.
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND datname = current_database()`);
      await admin.end();
      await vi.waitFor(() => expect(woken).toBe(before + 1), { timeout: 5000, interval: 50 });
      await writer.appendEvents([newEvent('run-1', 'text')]);
      await vi.waitFor(() => expect(woken).toBe(before + 2), { timeout: 5000, interval: 50 });
      expect(changes.slice(-2)).toEqual([{ kind: 'resync' }, { kind: 'events' }]);

      // Remembered decisions: the key that changed; a forgotten chat reloads them all; forgetting nothing tells nobody.
      await writer.remember({ key: 'k1', sessionId: 's', chatId: null, decision: { approved: true } });
      await vi.waitFor(() => expect(changes.at(-1)).toEqual({ kind: 'memory', key: 'k1' }), { timeout: 5000, interval: 20 });
      await writer.forgetChat('s', null);
      await vi.waitFor(() => expect(changes.at(-1)).toEqual({ kind: 'memory', key: null }), { timeout: 5000, interval: 20 });
      const settled = changes.length;
      expect(await writer.forgetChat('s', null)).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(changes).toHaveLength(settled);
    } finally {
      await stop();
      await writer.close();
      await reader.close();
      await database.drop();
    }
  });
});

/**
 * A fresh database for one test: `open` opens stores on it and `admin` a
 * plain client, all closed afterwards, and the database is dropped.
 */
async function onFreshDatabase(work: (database: { url: string; open(instance?: string): Promise<ToolgateStore>; admin(): Promise<pg.Client> }) => Promise<void>): Promise<void> {
  const database = await freshDatabase();
  const stores: ToolgateStore[] = [];
  const clients: pg.Client[] = [];
  try {
    await work({
      url: database.url,
      async open(instance) {
        const store = await openPostgresStore({ url: database.url, ...(instance === undefined ? {} : { instance }) });
        stores.push(store);
        return store;
      },
      async admin() {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        clients.push(client);
        return client;
      },
    });
  } finally {
    for (const client of clients) await client.end().catch(() => undefined);
    // Closing a store stops its watches too.
    for (const store of stores) await store.close();
    await database.drop();
  }
}

describe('servers sharing the store: "approve always" and the audit trail', () => {
  const record = (id: string, tool: string, identity: string | null): StoredAlwaysApproval => ({
    id,
    tool,
    identity,
    fingerprint: `sha256:${id}${'0'.repeat(64 - id.length)}`,
    description: `${tool} of ${id}`,
    payload_preview: '{"path":"a.txt"}',
    created_at: '2026-11-25T08:00:00.000Z',
  });

  it('keeps one approval per fingerprint, revokes by id prefix or all, voids other identities, and tells every watcher of each change', () =>
    onFreshDatabase(async (database) => {
      const one = await database.open('one');
      const two = await database.open('two');
      const changes: StoreChange[] = [];
      two.watch!((change) => changes.push(change));
      const alwaysChanges = () => changes.filter((change) => change.kind === 'always').length;
      // The watch listens once its connection is up: wait for a change to arrive before counting.
      let attempt = 0;
      await vi.waitFor(async () => {
        await one.shared!.addAlways(record(`aaaaaa${attempt++}`, 'write_file', 'builtin:write_file'));
        await vi.waitFor(() => expect(alwaysChanges()).toBeGreaterThan(0), { timeout: 300, interval: 10 });
      }, { timeout: 10_000, interval: 50 });
      await one.shared!.revokeAlways('all');
      await vi.waitFor(() => expect(alwaysChanges()).toBeGreaterThan(1), { timeout: 5000, interval: 20 });
      const counted = alwaysChanges();

      expect(await one.shared!.addAlways(record('abcdef012345', 'write_file', 'builtin:write_file'))).toBe(true);
      expect(await two.shared!.addAlways({ ...record('abcdef012345', 'write_file', 'builtin:write_file'), description: 'again' })).toBe(false);
      expect(await two.shared!.addAlways(record('abc999000111', 'shell', null))).toBe(true);
      expect(await two.shared!.addAlways(record('fedcba000111', 'mcp_tool', 'mcp:files:v1'))).toBe(true);
      expect((await one.shared!.listAlways()).map((each) => [each.id, each.description])).toEqual([
        ['abcdef012345', 'write_file of abcdef012345'],
        ['abc999000111', 'shell of abc999000111'],
        ['fedcba000111', 'mcp_tool of fedcba000111'],
      ]);
      // Three commits that added something: three changes told; the refused duplicate tells nobody.
      await vi.waitFor(() => expect(alwaysChanges()).toBe(counted + 3), { timeout: 5000, interval: 20 });

      // A prefix is text, not a pattern; shorter than 6 characters is refused before anything is removed.
      await expect(one.shared!.revokeAlways(['abc'])).rejects.toMatchObject({ code: 'STORE_INVALID_RECORD' });
      expect(await one.shared!.revokeAlways(['abc_%_'])).toEqual([]);
      expect((await one.shared!.revokeAlways(['abcdef'])).map((each) => each.id)).toEqual(['abcdef012345']);

      // Voiding: only the tool's approvals under another identity, once; approvals without an identity stay.
      expect(await one.shared!.voidAlways({ tool: 'mcp_tool', identity: 'mcp:files:v1', at: '2026-11-25T09:00:00.000Z' })).toEqual([]);
      const voided = await one.shared!.voidAlways({ tool: 'mcp_tool', identity: 'mcp:files:v2', at: '2026-11-25T09:00:00.000Z' });
      expect(voided).toEqual([{ ...record('fedcba000111', 'mcp_tool', 'mcp:files:v1'), voided_at: '2026-11-25T09:00:00.000Z', voided_for: 'mcp:files:v2' }]);
      expect(await one.shared!.voidAlways({ tool: 'mcp_tool', identity: 'mcp:files:v3', at: '2026-11-25T10:00:00.000Z' })).toEqual([]);
      // Approved again after it was voided: the new record replaces the void one (a live duplicate is still refused).
      const again = { ...record('fedcba000222', 'mcp_tool', 'mcp:files:v1'), fingerprint: voided[0]!.fingerprint };
      expect(await two.shared!.addAlways(again)).toBe(true);
      expect(await two.shared!.addAlways({ ...again, id: 'fedcba000333' })).toBe(false);
      expect((await one.shared!.listAlways()).find((each) => each.fingerprint === again.fingerprint)).toEqual(again);
      expect(await one.shared!.voidAlways({ tool: 'shell', identity: 'builtin:shell', at: '2026-11-25T10:00:00.000Z' })).toEqual([]);

      expect((await two.shared!.revokeAlways('all')).map((each) => each.id)).toEqual(['abc999000111', 'fedcba000222']);
      expect(await two.shared!.listAlways()).toEqual([]);
    }));

  it('appends audit lines of several servers in the order recorded, each stamped with its server, and reads them a page at a time', () =>
    onFreshDatabase(async (database) => {
      const one = await database.open('one');
      const two = await database.open('two');
      const reader = await database.open();
      await one.shared!.appendAudit(['{"n":1}', '{"n":2}']);
      await two.shared!.appendAudit(['{"n":3}']);
      await one.shared!.appendAudit([]);
      await Promise.all([one.shared!.appendAudit(['{"n":4}']), two.shared!.appendAudit(['{"n":5}'])]);
      const all = await reader.shared!.readAudit({ afterSeq: 0, limit: 100 });
      expect(all.slice(0, 3).map((row) => [row.line, row.instance])).toEqual([
        ['{"n":1}', 'one'],
        ['{"n":2}', 'one'],
        ['{"n":3}', 'two'],
      ]);
      expect(all.map((row) => row.line).sort()).toEqual(['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}', '{"n":5}']);
      const first = await reader.shared!.readAudit({ afterSeq: 0, limit: 2 });
      const rest = await reader.shared!.readAudit({ afterSeq: first.at(-1)!.seq, limit: 100 });
      expect([...first, ...rest]).toEqual(all);
      // What the store writes is kept as written: the line is the record.
      await expect(reader.shared!.readAudit({ afterSeq: 0, limit: 0 })).rejects.toThrow(/limit/);
    }));

  it('gives a store made before these tables existed the tables on its next start, changing nothing else', async () => {
    const database = await freshDatabase();
    const first = await openPostgresStore({ url: database.url });
    await first.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
    await first.close();
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query('DROP TABLE toolgate.always_approvals; DROP TABLE toolgate.audit');
      const again = await openPostgresStore({ url: database.url });
      try {
        expect(await again.shared!.listAlways()).toEqual([]);
        await again.shared!.appendAudit(['{"n":1}']);
        expect((await again.getRun('run-1'))?.runId).toBe('run-1');
      } finally {
        await again.close();
      }
    } finally {
      await admin.end();
      await database.drop();
    }
  });
});

describe('group commit: the writes that store events', () => {
  /** Transactions this database committed so far (the statistics collector's count, flushed first). */
  async function commitsOf(admin: pg.Client): Promise<number> {
    await admin.query('SELECT pg_stat_clear_snapshot()');
    return Number((await admin.query<{ commits: string }>('SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = current_database()')).rows[0]!.commits);
  }

  it('commits writes made together in far fewer transactions than writes, each with its own events and ids in order', () =>
    onFreshDatabase(async (database) => {
      const store = await database.open();
      await store.createRun(newRun('run-1'), []);
      const before = await store.lastEventId();
      const written = await Promise.all(Array.from({ length: 40 }, (_, index) => store.appendEvents([newEvent('run-1', `e${index}a`), newEvent('run-1', `e${index}b`)])));
      // Each write's events have consecutive ids in the order given, and every id is a stored event.
      const ids = written.flatMap((events) => events.map((event) => event.id));
      expect(new Set(ids).size).toBe(80);
      for (const events of written) expect(events[1]!.id).toBe(events[0]!.id + 1);
      const stored = await store.readEvents({ afterId: before, limit: 100 });
      expect(stored.map((event) => event.id)).toEqual([...ids].sort((a, b) => a - b));
      expect(stored.map((event) => event.type)).toEqual(written.flat().sort((a, b) => a.id - b.id).map((event) => event.type));
    }));

  it('shares one commit among concurrent writes (counted by the database)', () =>
    onFreshDatabase(async (database) => {
      const store = await database.open();
      const admin = await database.admin();
      await store.createRun(newRun('run-1'), []);
      await admin.query('SELECT pg_stat_force_next_flush()');
      const before = await commitsOf(admin);
      await Promise.all(Array.from({ length: 50 }, (_, index) => store.appendEvents([newEvent('run-1', `e${index}`)])));
      await admin.query('SELECT pg_stat_force_next_flush()');
      // 50 writes; a transaction each would be 50 commits (the counting queries add a few of their own).
      expect((await commitsOf(admin)) - before).toBeLessThan(10);
    }));

  /** Resolves once some connection to this database waits for a lock. */
  async function untilALockIsAwaited(admin: pg.Client): Promise<void> {
    await vi.waitFor(async () => expect((await admin.query(`SELECT 1 FROM pg_locks WHERE NOT granted AND pid IN (SELECT pid FROM pg_stat_activity WHERE datname = current_database())`)).rowCount).toBeGreaterThan(0), {
      timeout: 10_000,
      interval: 20,
    });
  }

  /** A run id in the same commit lane as `runId` (`same`) or in another one, with the store's default lanes. */
  function runInLane(runId: string, same: boolean): string {
    const lanes = commitLanes(10);
    for (let index = 0; ; index++) {
      const candidate = `run-${index}`;
      if (candidate !== runId && (laneOf(candidate, lanes) === laneOf(runId, lanes)) === same) return candidate;
    }
  }

  it('runs a write that lost a deadlock again on its own: every write of the batch lands', { timeout: 30_000 }, () =>
    onFreshDatabase(async (database) => {
      const store = await database.open();
      const admin = await database.admin();
      // Two runs whose writes share one lane, so that they share a batch.
      const y = runInLane('run-x', true);
      for (const runId of ['run-x', y]) {
        await store.createRun(newRun(runId), []);
        await store.updateRun(runId, 1, { status: 'paused_checkpoint' }, { approvals: [newApproval(runId, 'call-1')] });
      }
      // Another writer holds the second run; the batch decides run-x (locking it), then waits for the second.
      await admin.query('BEGIN');
      await admin.query(`SELECT 1 FROM toolgate.runs WHERE run_id = $1 FOR NO KEY UPDATE`, [y]);
      const decisions = [
        store.decideApprovals('run-x', [{ toolCallId: 'call-1', events: [newEvent('run-x', 'decided')] }], decision(), { revision: 2, events: [newEvent('run-x', 'run_resumed')] }),
        store.decideApprovals(y, [{ toolCallId: 'call-1', events: [newEvent(y, 'decided')] }], decision(), { revision: 2, events: [newEvent(y, 'run_resumed')] }),
      ];
      await untilALockIsAwaited(admin);
      // The other writer now wants run-x: a cycle. The batch waited first, so its deadlock check fires first: its write on the second run loses.
      // (it waits until the batch commits what it kept: run-x is then free.)
      await admin.query(`SELECT 1 FROM toolgate.runs WHERE run_id = 'run-x' FOR NO KEY UPDATE`);
      await admin.query('COMMIT');
      const [onX, onY] = await Promise.all(decisions);
      expect(onX).toMatchObject({ decided: ['call-1'], waiting: [], resumed: { run: { status: 'running' } } });
      expect(onY).toMatchObject({ decided: ['call-1'], waiting: [], resumed: { run: { status: 'running' } } });
      const types = (await store.readEvents({ afterId: 0, limit: 100 })).map((event) => `${event.runId}:${event.type}`);
      expect(types).toEqual(['run-x:decided', 'run-x:run_resumed', `${y}:decided`, `${y}:run_resumed`]);
    }));

  it('commits in lanes: a write waiting for a row holds up only its own run\'s lane, and one run\'s writes keep their order', { timeout: 30_000 }, () =>
    onFreshDatabase(async (database) => {
      const store = await database.open();
      const admin = await database.admin();
      const other = runInLane('run-x', false);
      for (const runId of ['run-x', other]) await store.createRun(newRun(runId), []);
      // Another writer holds run-x: its move waits for that writer's COMMIT.
      await admin.query('BEGIN');
      await admin.query(`SELECT 1 FROM toolgate.runs WHERE run_id = 'run-x' FOR NO KEY UPDATE`);
      let moved = false;
      const waiting = store.updateRun('run-x', 1, { status: 'paused_checkpoint' }, { events: [newEvent('run-x', 'paused')] }).then((result) => {
        moved = true;
        return result;
      });
      await untilALockIsAwaited(admin);
      // Meanwhile the other run's writes, made one after another without waiting, commit, in the order made.
      const written = await Promise.all(['first', 'second', 'third'].map((type) => store.appendEvents([newEvent(other, type)])));
      expect(written.map(([event]) => event!.type)).toEqual(['first', 'second', 'third']);
      expect(written.map(([event]) => event!.id)).toEqual([...written.map(([event]) => event!.id)].sort((a, b) => a - b));
      expect(moved).toBe(false);
      await admin.query('COMMIT');
      expect((await waiting)?.run.status).toBe('paused_checkpoint');
      const types = (await store.readEvents({ afterId: 0, limit: 10 })).map((event) => `${event.runId}:${event.type}`);
      expect(types).toEqual([`${other}:first`, `${other}:second`, `${other}:third`, 'run-x:paused']);
    }));

  it('stores every event exactly as given, whatever its text: quotes, backslashes, dollars, escapes, other scripts, a megabyte', () =>
    onFreshDatabase(async (database) => {
      const store = await database.open();
      const hostile = `'; COMMIT; DROP TABLE toolgate.events; -- \\ \\u0000 $$ $1 \u202e \u200b 日本語 🚀 "quoted" \n\t`;
      await store.createRun(newRun('run-1', { owner: hostile }), []);
      const data = [{ text: hostile }, { nested: { list: [hostile, 1, null, true] } }, { big: 'x'.repeat(1_000_000) }];
      const written = await store.appendEvents(data.map((item, index) => newEvent('run-1', index === 0 ? hostile : `e${index}`, item, hostile)));
      const stored = await store.readEvents({ afterId: 0, limit: 10 });
      expect(stored).toEqual(written);
      expect(stored.map((event) => event.data)).toEqual(data.map((item) => ({ run_id: 'run-1', ...item })));
      expect(stored.map((event) => [event.type, event.owner])).toEqual([[hostile, hostile], ['e1', hostile], ['e2', hostile]]);
    }));
});

describe('group commit: transaction control sent ahead of the statements (pipelined)', () => {
  /** A client that sends `replacement` instead of any statement starting with `prefix`, while `prefix` is set. */
  const sabotage: { prefix?: string; replacement?: string } = {};
  class SabotagedClient extends pg.Client {
    override query(...args: unknown[]): never {
      if (sabotage.prefix !== undefined && typeof args[0] === 'string' && args[0].startsWith(sabotage.prefix)) args[0] = sabotage.replacement;
      return (super.query as (...args: unknown[]) => never)(...args);
    }
  }

  it('fails every write of the batch with the error of a savepoint sent ahead, commits none of them, and the next batch commits', () =>
    onFreshDatabase(async (database) => {
      const admin = await database.admin();
      await admin.query('CREATE TABLE written (value TEXT NOT NULL)');
      const pool = new pg.Pool({ connectionString: database.url, max: 2, pipeline: true, Client: SabotagedClient });
      try {
        const commits = createPostgresGroupCommit({ pool, commitEvents: async (client) => (await client.query('COMMIT'), []), failure: (error) => error, lanes: 1 });
        const write = (value: string) =>
          commits.write('run-1', async (client) => {
            await client.query('INSERT INTO written (value) VALUES ($1)', [value]);
            return { events: [], result: () => value };
          });
        // Made together: one batch. The second write's savepoint message fails, which aborts the transaction.
        Object.assign(sabotage, { prefix: 'RELEASE SAVEPOINT', replacement: 'SELECT 1/0' });
        const outcomes = await Promise.allSettled(['a', 'b', 'c'].map(write));
        // Not "current transaction is aborted" (what the write's own statement met): the savepoint's own error, for all three.
        expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as { code?: string }).code : outcome.value))).toEqual(['22012', '22012', '22012']);
        expect((await admin.query('SELECT value FROM written')).rows).toEqual([]);
        delete sabotage.prefix;
        expect(await Promise.all(['d', 'e'].map(write))).toEqual(['d', 'e']);
        expect((await admin.query('SELECT value FROM written ORDER BY value')).rows).toEqual([{ value: 'd' }, { value: 'e' }]);
      } finally {
        delete sabotage.prefix;
        await pool.end();
      }
    }));

  it('commits nothing when the staged events cannot be set: the final message fails before its COMMIT, with the setting\'s own error', () =>
    onFreshDatabase(async (database) => {
      const store = await database.open();
      await store.createRun(newRun('run-1'), []);
      const client = new SabotagedClient({ connectionString: database.url, pipeline: true, options: '-c search_path=toolgate' });
      await client.connect();
      try {
        const events = [{ runId: 'run-1', owner: 'alice', type: 'staged', data: '{"n":1}', at: new Date().toISOString() }];
        Object.assign(sabotage, { prefix: 'SELECT set_config', replacement: 'SELECT 1/0, $1::text, $2::text' });
        await client.query('BEGIN');
        await expect(commitStagedEvents(client, events)).rejects.toMatchObject({ code: '22012' });
        expect(client.getTransactionStatus()).toBe('E');
        await client.query('ROLLBACK');
        delete sabotage.prefix;
        expect(await store.readEvents({ afterId: 0, limit: 10 })).toEqual([]);
        await client.query('BEGIN');
        const ids = await commitStagedEvents(client, events);
        expect(client.getTransactionStatus()).toBe('I');
        expect((await store.readEvents({ afterId: 0, limit: 10 })).map((event) => [event.id, event.type])).toEqual([[Number(ids[0]), 'staged']]);
      } finally {
        delete sabotage.prefix;
        await client.end();
      }
    }));
});
