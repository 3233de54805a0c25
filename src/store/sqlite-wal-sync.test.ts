/**
 * The SQLite store's own WAL sync: COMMIT only writes the WAL, and a write is
 * acknowledged only after an fdatasync that began after its COMMIT. These
 * tests hold a sync back (or make it fail) through the group commit's
 * `beforeSync` hook, on a real file, and watch what is acknowledged and
 * what is refused.
 */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite-store.ts';
import { openWalSync } from './sqlite-wal-sync.ts';
import { newEvent, newRun } from './store-contract-fixtures.ts';
import type { ToolgateStore } from './store.ts';

/** A gate for syncs: each sync waits at `beforeSync` until the test opens it (or fails it). */
interface HeldSyncs {
  beforeSync(): Promise<void>;
  readonly started: number;
  release(): void;
  fail(error: Error): void;
  releaseAll(): void;
}

const held: HeldSyncs[] = [];

function heldSyncs(): HeldSyncs {
  const waiting: Array<{ release: () => void; fail: (error: Error) => void }> = [];
  let started = 0;
  const syncs: HeldSyncs = {
    beforeSync: () =>
      new Promise<void>((resolve, reject) => {
        started++;
        waiting.push({ release: resolve, fail: reject });
      }),
    get started() {
      return started;
    },
    /** Lets the oldest held sync go on (it then runs the real fdatasync). */
    release() {
      waiting.shift()!.release();
    },
    fail(error: Error) {
      waiting.shift()!.fail(error);
    },
    /** Lets every held sync go on (so that a failed test can still close its store). */
    releaseAll() {
      while (waiting.length > 0) waiting.shift()!.release();
    },
  };
  held.push(syncs);
  return syncs;
}

/** Whether a promise has settled by the time the event loop has turned a few times. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('the SQLite store syncs its WAL itself, off the event loop', () => {
  let directory: string;
  let file: string;
  const stores: ToolgateStore[] = [];
  beforeEach(() => {
    directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-wal-sync-'));
    file = path.join(directory, 'toolgate.db');
  });
  afterEach(async () => {
    for (const syncs of held.splice(0)) syncs.releaseAll();
    for (const store of stores.splice(0)) await store.close().catch(() => undefined);
    rmSync(directory, { recursive: true, force: true });
  });
  const open = (hooks: Parameters<typeof openSqliteStore>[0]['hooks'] = {}) => {
    const store = openSqliteStore({ file, hooks });
    stores.push(store);
    return store;
  };

  it('commits with synchronous = NORMAL: the COMMIT does not wait for the disk, the acknowledgement does', async () => {
    const syncs = heldSyncs();
    const store = open({ beforeSync: syncs.beforeSync });
    const created = store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
    expect(await settledSoon(created)).toBe(false);
    // Committed (another connection reads it), but not acknowledged until the sync has run.
    const reader = new Database(file, { readonly: true });
    try {
      expect(reader.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(1);
    } finally {
      reader.close();
    }
    expect(syncs.started).toBe(1);
    syncs.release();
    expect((await created).run.runId).toBe('run-1');
  });

  it('does not count a sync that began before a commit: that commit waits for the next sync', async () => {
    const syncs = heldSyncs();
    const store = open({ beforeSync: syncs.beforeSync });
    const first = store.createRun(newRun('run-1'), []);
    await settledSoon(first);
    expect(syncs.started).toBe(1);
    // Committed while the first sync is under way: that sync may have passed its pages already.
    const second = store.createRun(newRun('run-2'), []);
    const third = store.createRun(newRun('run-3'), []);
    expect(await settledSoon(second)).toBe(false);
    syncs.release();
    await first;
    expect(await settledSoon(second)).toBe(false);
    // One more sync covers both commits made meanwhile.
    expect(syncs.started).toBe(2);
    syncs.release();
    expect((await Promise.all([second, third])).map((created) => created.run.runId)).toEqual(['run-2', 'run-3']);
    expect(syncs.started).toBe(2);
  });

  it('rejects the writes of a failed sync, and every later write, read of events and durable answer: nothing is believed after a failed fsync', async () => {
    const syncs = heldSyncs();
    const store = open({ beforeSync: syncs.beforeSync });
    const created = store.createRun(newRun('run-1'), []);
    await settledSoon(created);
    syncs.fail(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await expect(created).rejects.toThrow(/EIO/);
    // No later sync is tried: the kernel may call the next one clean though the pages were lost.
    await expect(store.createRun(newRun('run-2'), [])).rejects.toThrow(/EIO/);
    await expect(store.appendEvents([newEvent('run-1', 'text')])).rejects.toThrow(/EIO/);
    await expect(store.readEvents({ afterId: 0, limit: 10 })).rejects.toThrow(/EIO/);
    await expect(store.lastEventId()).rejects.toThrow(/EIO/);
    expect(syncs.started).toBe(1);
  });

  it('streams events only once they are on disk, also those another process committed', async () => {
    const syncs = heldSyncs();
    const reader = open({ beforeSync: syncs.beforeSync });
    const writer = open();
    await writer.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
    const events = reader.readEvents({ afterId: 0, limit: 10 });
    const last = reader.lastEventId();
    expect(await settledSoon(events)).toBe(false);
    syncs.release();
    expect((await events).map((event) => event.type)).toEqual(['run_started']);
    // Read while the first sync was under way: it waits for a sync of its own.
    expect(await settledSoon(last)).toBe(false);
    syncs.release();
    expect(await last).toBe(1);
  });

  it('fails closed when the WAL file is deleted behind the store: the commit went to a file SQLite no longer reads', async () => {
    const store = open();
    await store.createRun(newRun('run-1'), []);
    unlinkSync(`${file}-wal`);
    const error = await store.createRun(newRun('run-2'), []).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((error as Error).message).toContain(`${file}-wal: the write-ahead log was deleted while the store was open`);
    expect((error as Error).message).toContain('restart toolgate');
    await expect(store.createRun(newRun('run-3'), [])).rejects.toThrow(/deleted/);
  });

  it('acknowledges writes that still reach a reopened store after close, and refuses writes once closed', async () => {
    const store = open();
    const queued = store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
    await store.close();
    expect((await queued).run.runId).toBe('run-1');
    await expect(store.createRun(newRun('run-2'), [])).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', message: expect.stringMatching(/the store is closed/) });
    const reopened = open();
    expect((await reopened.getRun('run-1'))?.status).toBe('running');
  });
});

describe('openWalSync', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-wal-file-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('syncs an existing file, and refuses once closed', async () => {
    const wal = path.join(directory, 'x.db-wal');
    writeFileSync(wal, 'frames');
    const sync = openWalSync(wal);
    await expect(sync.sync()).resolves.toBeUndefined();
    sync.close();
    await expect(sync.sync()).rejects.toThrow(/the write-ahead log is closed/);
  });

  it('names the file when the WAL cannot be opened', () => {
    const wal = path.join(directory, 'missing.db-wal');
    expect(() => openWalSync(wal)).toThrow(expect.objectContaining({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining(`${wal}: the write-ahead log could not be opened to sync it: ENOENT`) }));
  });
});

describe('closing the SQLite store', () => {
  it('closed twice at once: both closes wait until the queued write is synced, and it is kept', async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-close-twice-'));
    try {
      const file = path.join(directory, 'toolgate.db');
      let release!: () => void;
      const store = openSqliteStore({ file, hooks: { beforeSync: () => new Promise<void>((resolve) => (release = resolve)) } });
      const queued = store.createRun(newRun('run-1'), []);
      const first = store.close();
      const second = store.close();
      expect(await settledSoon(second)).toBe(false);
      release();
      await Promise.all([first, second]);
      expect((await queued).run.runId).toBe('run-1');
      const reopened = openSqliteStore({ file });
      expect((await reopened.getRun('run-1'))?.status).toBe('running');
      await reopened.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
