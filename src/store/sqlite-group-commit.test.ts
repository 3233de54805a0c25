/**
 * Group commit in the SQLite store: concurrent writes share one transaction
 * and one fsync, yet each keeps its own outcome: a write that fails or loses
 * a compare-and-set changes nothing and fails nothing else; a batch whose
 * COMMIT fails rejects every write in it and leaves nothing written; a write
 * resolves only once another connection can read it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';
import { decideOne, decision, newApproval, newEvent, newRun } from './store-contract-fixtures.ts';
import type { ToolgateStore } from './store.ts';

/** Settles every promise, keeping each outcome (a rejection is not a test failure here). */
async function outcomes<T>(promises: Promise<T>[]): Promise<Array<{ ok: true; value: T } | { ok: false; error: unknown }>> {
  return Promise.all(promises.map((promise) => promise.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }))));
}

describe('group commit in the SQLite store', () => {
  let directory: string;
  let file: string;
  let batches: number[];
  const stores: ToolgateStore[] = [];
  const open = (options: Partial<SqliteStoreOptions> = {}): ToolgateStore => {
    const store = openSqliteStore({ file, hooks: { afterCommit: (batch) => batches.push(batch.writes) }, ...options });
    stores.push(store);
    return store;
  };
  beforeEach(() => {
    directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-group-commit-'));
    file = path.join(directory, 'toolgate.db');
    batches = [];
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('commits 500 concurrent writes of every kind in a handful of transactions, each write whole', async () => {
    const store = open();
    const runIds = Array.from({ length: 100 }, (_, index) => `run-${index}`);
    await Promise.all(runIds.map((runId) => store.createRun(newRun(runId), [newEvent(runId, 'run_started')])));
    expect(batches).toEqual([100]);

    batches = [];
    const writes = await Promise.all(
      runIds.flatMap((runId) => [
        store.updateRun(runId, 1, { status: 'paused_checkpoint' }, { events: [newEvent(runId, 'run_paused')], approvals: [newApproval(runId, 'call-1')] }),
        store.beginCall({ runId, toolCallId: 'call-0', tool: 'shell', input: 'x' }),
        store.appendEvents([newEvent(runId, 'text', { n: 1 })]),
        store.remember({ key: `key-${runId}`, sessionId: 's', chatId: null, decision: { approved: true } }),
        store.createToken({ name: `token-${runId}`, role: 'approver', hash: runId.padStart(64, '0') }),
      ]),
    );
    // Per run: the update's result, beginCall true, the appended event, remember (nothing), createToken true.
    expect(writes.filter((_, index) => index % 5 === 0 && writes[index] === undefined)).toEqual([]);
    expect(writes.filter((_, index) => index % 5 === 1 || index % 5 === 4)).toEqual(Array.from({ length: 200 }, () => true));
    // 500 fsyncs before; now one batch per turn of the event loop.
    expect(batches).toEqual([256, 244]);
    for (const runId of runIds) {
      expect((await store.getRun(runId))?.revision).toBe(2);
      expect((await store.readEvents({ afterId: 0, runId, limit: 10 })).map((event) => event.type)).toEqual(['run_started', 'run_paused', 'text']);
    }
    expect((await store.listApprovals({})).length).toBe(100);
    expect((await store.listTokens()).length).toBe(100);
    expect((await store.allRemembered()).length).toBe(100);
  });

  it('commits a batch as soon as it holds maxBatch writes', async () => {
    const store = open({ maxBatch: 7 });
    await Promise.all(Array.from({ length: 20 }, (_, index) => store.createRun(newRun(`run-${index}`), [])));
    expect(batches).toEqual([7, 7, 6]);
    expect(() => openSqliteStore({ file, maxBatch: 0 })).toThrow(/maxBatch must be a positive integer, got 0/);
  });

  it('lets a write that fails or loses a race change nothing, and fail nothing else of its batch', async () => {
    const store = open();
    const first = await store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
    batches = [];
    const results = await outcomes<unknown>([
      store.createRun(newRun('run-2'), [newEvent('run-2', 'run_started')]),
      // A taken id: its run and its event are rolled back.
      store.createRun(newRun('run-1', { owner: 'mallory' }), [newEvent('run-1', 'run_started', {}, 'mallory')]),
      // The first event lands, the second breaks the foreign key: neither is kept.
      store.appendEvents([newEvent('run-1', 'ok'), newEvent('ghost', 'orphan')]),
      store.updateRun('run-1', 1, { text: 'winner' }, { events: [newEvent('run-1', 'won')] }),
      // Same revision, queued later in the same batch: it sees the winner's write and loses.
      store.updateRun('run-1', 1, { text: 'loser' }, { events: [newEvent('run-1', 'lost')] }),
      // Its approval already exists: the run's move and its event are rolled back.
      store.updateRun('run-1', 2, { status: 'paused_checkpoint' }, { events: [newEvent('run-1', 'dup')], approvals: [newApproval('run-1', 'call-1'), newApproval('run-1', 'call-1')] }),
      store.finishCall('run-1', 'never-begun', 'completed', null),
      store.beginCall({ runId: 'run-1', toolCallId: 'call-9', tool: 'shell', input: 'a' }),
      store.beginCall({ runId: 'run-1', toolCallId: 'call-9', tool: 'shell', input: 'b' }),
      store.appendEvents([newEvent('run-2', 'last')]),
    ]);
    expect(batches).toEqual([10]);
    expect(results.map((result) => result.ok)).toEqual([true, false, false, true, true, false, false, true, true, true]);
    expect((results[3] as { value: { run: { text: string } } }).value.run.text).toBe('winner');
    expect((results[4] as { value: unknown }).value).toBeUndefined();
    expect(String((results[6] as { error: unknown }).error)).toMatch(/no call never-begun of run run-1 was begun/);
    expect((results[7] as { value: unknown }).value).toBe(true);
    expect((results[8] as { value: unknown }).value).toBe(false);

    const run1 = await store.getRun('run-1');
    expect(run1).toMatchObject({ owner: 'alice', text: 'winner', status: 'running', revision: 2 });
    expect(await store.listApprovals({ runId: 'run-1', includeDecided: true })).toEqual([]);
    expect((await store.getCall('run-1', 'call-9'))?.input).toBe('a');
    const events = await store.readEvents({ afterId: 0, limit: 100 });
    expect(events.map((event) => `${event.runId}:${event.type}`)).toEqual(['run-1:run_started', 'run-2:run_started', 'run-1:won', 'run-2:last']);
    expect(events[0]).toEqual(first.events[0]);
  });

  it('decides a call once and gives events ids in the order the writes were queued, within a batch', async () => {
    const store = open();
    await store.createRun(newRun('run-1'), []);
    await store.updateRun('run-1', 1, { status: 'paused_checkpoint' }, { approvals: [newApproval('run-1', 'call-1')] });
    batches = [];
    const [bob, carol, appended] = await Promise.all([
      decideOne(store, 'run-1', 'call-1', decision({ decidedBy: 'bob' }), [newEvent('run-1', 'approval_decided', { by: 'bob' })]),
      decideOne(store, 'run-1', 'call-1', decision({ decidedBy: 'carol' }), [newEvent('run-1', 'approval_decided', { by: 'carol' })]),
      store.appendEvents([newEvent('run-1', 'after')]),
    ]);
    expect(batches).toEqual([3]);
    expect(bob.decided).toBe(true);
    expect(carol).toEqual({ decided: false, events: [] });
    expect(appended[0]?.id).toBeGreaterThan(bob.events[0]?.id ?? Infinity);
    expect((await store.listApprovals({ runId: 'run-1', includeDecided: true }))[0]?.decision?.decidedBy).toBe('bob');
    expect((await store.readEvents({ afterId: 0, limit: 10 })).map((event) => event.data.by ?? event.type)).toEqual(['bob', 'after']);
  });

  it('rejects every write of a batch whose COMMIT fails and leaves none of them written; the next batch commits', async () => {
    let failNext = false;
    const store = open({
      hooks: {
        afterCommit: (batch) => batches.push(batch.writes),
        beforeCommit: (database) => {
          if (!failNext) return;
          failNext = false;
          // A foreign key checked only at COMMIT: the real COMMIT statement fails, with the transaction still open.
          database.pragma('defer_foreign_keys = ON');
          database.prepare(`INSERT INTO events (run_id, owner, type, data, at, schema_version) VALUES ('ghost', 'x', 'orphan', '{}', 'now', 1)`).run();
        },
      },
    });
    await store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
    const before = await store.lastEventId();
    failNext = true;
    batches = [];
    const results = await outcomes<unknown>([
      store.createRun(newRun('run-2'), [newEvent('run-2', 'run_started')]),
      store.updateRun('run-1', 1, { status: 'completed', state: null }, { events: [newEvent('run-1', 'run_completed')] }),
      store.beginCall({ runId: 'run-1', toolCallId: 'call-1', tool: 'shell', input: 'x' }),
      store.createToken({ name: 'ci', role: 'admin', hash: 'a'.repeat(64) }),
      store.remember({ key: 'k', sessionId: 's', chatId: null, decision: { approved: true } }),
    ]);
    expect(batches).toEqual([]);
    for (const result of results) {
      expect(result.ok).toBe(false);
      expect((result as { error: { code?: string } }).error.code).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
    }
    const state = async () => ({
      run2: await store.getRun('run-2'),
      run1: (await store.getRun('run-1'))?.revision,
      call: await store.getCall('run-1', 'call-1'),
      tokens: await store.listTokens(),
      memory: await store.allRemembered(),
      lastEventId: await store.lastEventId(),
    });
    expect(await state()).toEqual({ run2: undefined, run1: 1, call: undefined, tokens: [], memory: [], lastEventId: before });

    // The connection is usable again: nothing of the failed transaction is left open.
    expect(await store.beginCall({ runId: 'run-1', toolCallId: 'call-1', tool: 'shell', input: 'x' })).toBe(true);
    expect(batches).toEqual([1]);
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare(`SELECT count(*) FROM events WHERE run_id = 'ghost'`).pluck().get()).toBe(0);
    raw.close();
  });

  it('rejects the whole batch when another connection holds the write lock past the busy timeout, then writes once it is free', async () => {
    const store = open({ busyTimeoutMs: 50 });
    await store.createRun(newRun('run-1'), []);
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const results = await outcomes<unknown>([store.createRun(newRun('run-2'), []), store.appendEvents([newEvent('run-1', 'x')])]);
      expect(results.map((result) => (result.ok ? 'ok' : (result.error as { code?: string }).code))).toEqual(['SQLITE_BUSY', 'SQLITE_BUSY']);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(await store.getRun('run-2')).toBeUndefined();
    expect(await store.lastEventId()).toBe(0);
    expect((await store.createRun(newRun('run-2'), [])).run.revision).toBe(1);
  });

  it('resolves a write only once another connection can read it', async () => {
    const store = open();
    const reader = new Database(file, { readonly: true });
    try {
      const seen = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          store.createRun(newRun(`run-${index}`), []).then(() => reader.prepare('SELECT count(*) FROM runs WHERE run_id = ?').pluck().get(`run-${index}`)),
        ),
      );
      expect(seen).toEqual(Array.from({ length: 50 }, () => 1));
    } finally {
      reader.close();
    }
  });

  it('commits the writes queued before close, and refuses writes after it', async () => {
    const store = open();
    const queued = [store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]), store.createToken({ name: 'ci', role: 'admin', hash: 'b'.repeat(64) })];
    await store.close();
    expect((await Promise.all(queued))[1]).toBe(true);
    await expect(store.createRun(newRun('run-2'), [])).rejects.toThrow(/the store is closed/);
    const reopened = open();
    expect((await reopened.getRun('run-1'))?.revision).toBe(1);
    expect(await reopened.lastEventId()).toBe(1);
  });
});
