import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from './sqlite-store-error.ts';
import { openSqliteStore } from './sqlite-store.ts';
import { describeStoreContract } from './store-contract.ts';
import { newEvent, newRun } from './store-contract-fixtures.ts';
import { STORE_SCHEMA_VERSION } from './store.ts';
import type { ToolgateStore } from './store.ts';

describeStoreContract('sqlite', async () => {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-store-'));
  const file = path.join(directory, 'nested', 'toolgate.db');
  const opened: ToolgateStore[] = [openSqliteStore({ file })];
  const closeAll = async () => {
    for (const store of opened) await store.close();
  };
  return {
    store: opened[0] as ToolgateStore,
    async reopen() {
      await closeAll();
      const store = openSqliteStore({ file });
      opened.push(store);
      return store;
    },
    async cleanup() {
      await closeAll();
      rmSync(directory, { recursive: true, force: true });
    },
  };
});

describe('openSqliteStore', () => {
  let directory: string;
  let file: string;
  beforeEach(() => {
    directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-sqlite-'));
    file = path.join(directory, '.toolgate', 'state', 'toolgate.db');
  });
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  const modeOf = (target: string) => statSync(target).mode & 0o777;
  const expectStoreError = (open: () => unknown, code: string, ...fragments: string[]) => {
    let caught: unknown;
    try {
      open();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StoreError);
    expect((caught as StoreError).code).toBe(code);
    for (const fragment of fragments) expect((caught as StoreError).message).toContain(fragment);
  };

  it('creates the directory, and the database and its -wal and -shm files readable by the owner only', async () => {
    const previous = process.umask(0);
    let store: ToolgateStore;
    try {
      store = openSqliteStore({ file });
    } finally {
      process.umask(previous);
    }
    await store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(`${file}-wal`)).toBe(0o600);
    expect(modeOf(`${file}-shm`)).toBe(0o600);
    expect(modeOf(path.dirname(file))).toBe(0o700);
    expect(store.kind).toBe('sqlite');
    await store.close();
  });

  it('tightens the mode of a database file that others could read', async () => {
    await openSqliteStore({ file }).close();
    chmodSync(file, 0o644);
    const store = openSqliteStore({ file });
    expect(modeOf(file)).toBe(0o600);
    await store.close();
  });

  it('puts the database in WAL journal mode, with every record at our schema version', async () => {
    const store = openSqliteStore({ file });
    await store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
    await store.beginCall({ runId: 'run-1', toolCallId: 'call-1', tool: 'shell', input: 'x' });
    await store.remember({ key: 'k', sessionId: 's', chatId: null, decision: { approved: true } });
    await store.createToken({ name: 'ci', role: 'admin', hash: 'a'.repeat(64) });
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).pluck().get()).toBe(String(STORE_SCHEMA_VERSION));
      for (const table of ['runs', 'events', 'calls', 'memory', 'tokens']) {
        expect(raw.prepare(`SELECT DISTINCT schema_version FROM ${table}`).pluck().all()).toEqual([STORE_SCHEMA_VERSION]);
      }
      const indexes = raw.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND name NOT LIKE 'sqlite_%'`).pluck().all();
      expect(indexes).toEqual(expect.arrayContaining(['runs_by_owner_created', 'runs_by_status', 'approvals_pending_by_run', 'approvals_pending_by_owner', 'events_by_run', 'events_by_owner']));
    } finally {
      raw.close();
    }
    await store.close();
  });

  it('refuses a database written by a newer toolgate, naming the file and both versions, and leaves it as it was', async () => {
    const store = openSqliteStore({ file });
    await store.createRun(newRun('run-1'), []);
    await store.close();
    const raw = new Database(file);
    raw.prepare(`UPDATE meta SET value = ? WHERE key = 'schema_version'`).run(String(STORE_SCHEMA_VERSION + 1));
    raw.close();

    expectStoreError(() => openSqliteStore({ file }), 'STORE_SCHEMA_NEWER', file, `version ${STORE_SCHEMA_VERSION + 1}`, `this toolgate's ${STORE_SCHEMA_VERSION}`);
    const after = new Database(file, { readonly: true });
    expect(after.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).pluck().get()).toBe(String(STORE_SCHEMA_VERSION + 1));
    expect(after.prepare('SELECT run_id FROM runs').pluck().all()).toEqual(['run-1']);
    after.close();
  });

  it('refuses a file that is not a SQLite database, naming it, without changing it', () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const content = 'my notes, not a database\n'.repeat(200);
    writeFileSync(file, content);
    expectStoreError(() => openSqliteStore({ file }), 'STORE_NOT_A_DATABASE', file, 'not a SQLite database');
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it("refuses another program's SQLite database and one whose schema version is not a number", async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const foreign = new Database(file);
    foreign.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)');
    foreign.close();
    expectStoreError(() => openSqliteStore({ file }), 'STORE_NOT_TOOLGATE', file, 'invoices');

    const broken = path.join(directory, 'broken.db');
    await openSqliteStore({ file: broken }).close();
    const raw = new Database(broken);
    raw.prepare(`UPDATE meta SET value = 'two' WHERE key = 'schema_version'`).run();
    raw.close();
    expectStoreError(() => openSqliteStore({ file: broken }), 'STORE_NOT_TOOLGATE', broken);
  });

  it('refuses an empty file name', () => {
    expectStoreError(() => openSqliteStore({ file: '' }), 'STORE_INVALID_RECORD', 'non-empty path');
  });

  it('uses the injected clock for every stored time', async () => {
    const store = openSqliteStore({ file, now: () => new Date('2030-01-02T03:04:05.000Z') });
    const { run, events } = await store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
    expect(run.createdAt).toBe('2030-01-02T03:04:05.000Z');
    expect(events[0]?.at).toBe('2030-01-02T03:04:05.000Z');
    await store.close();
  });

  it('serves a page of 10,000 runs', async () => {
    const store = openSqliteStore({ file });
    const raw = new Database(file);
    const insert = raw.prepare(
      `INSERT INTO runs (run_id, owner, status, mode, session_id, chat_id, model, input, state, created_at, updated_at, revision, schema_version)
       VALUES (?, 'alice', 'paused_checkpoint', 'interactive', 's', NULL, 'm', 'task', '{}', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 1, 1)`,
    );
    raw.transaction(() => {
      for (let index = 0; index < 12_000; index++) insert.run(`run-${index}`);
    })();
    raw.close();
    const page = await store.listRuns({ limit: 10_000, status: 'paused_checkpoint' });
    expect(page.runs).toHaveLength(10_000);
    expect(page.runs[0]?.runId).toBe('run-11999');
    const rest = await store.listRuns({ limit: 10_000, status: 'paused_checkpoint', before: page.next ?? '' });
    expect(rest.runs.map((run) => run.runId)).toEqual(Array.from({ length: 2_000 }, (_, index) => `run-${1999 - index}`));
    expect(rest.next).toBeNull();
    expect((await store.countRuns()).paused_checkpoint).toBe(12_000);
    await store.close();
  });
});
