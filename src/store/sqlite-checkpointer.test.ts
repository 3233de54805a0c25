import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/server-harness.ts';
import { startCheckpointer, type Checkpointer } from './sqlite-checkpointer.ts';
import { openSqliteStore } from './sqlite-store.ts';
import { newEvent, newRun } from './store-contract-fixtures.ts';
import type { ToolgateStore } from './store.ts';

let directory: string;
let file: string;
beforeEach(() => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-checkpoint-'));
  file = path.join(directory, 'toolgate.db');
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** The harness's `waitFor`, for a synchronous condition. */
const eventually = (check: () => boolean, what: string) => waitFor(async () => (check() ? true : undefined), { timeoutMs: 10_000, intervalMs: 10, describe: () => what });

/** Whether the database file itself (not only its WAL) holds `rows` rows of 2,000 bytes: a checkpoint copied them there. */
const databaseFileHolds = (rows: number) => statSync(file).size >= rows * 2000;

describe('the SQLite store checkpoints its WAL on a worker thread', () => {
  let store: ToolgateStore | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('copies committed pages into the database file without the committing connection checkpointing, and loses nothing', async () => {
    store = openSqliteStore({ file });
    const emptySize = statSync(file).size;
    await store.createRun(newRun('run-1'), []);
    // One write at a time: each is a batch of its own, so each is a COMMIT the checkpointer counts.
    // Past the 64 commits that start a checkpoint.
    for (let index = 0; index < 70; index++) await store.appendEvents([newEvent('run-1', 'text', { index })]);
    // Far below the safety net's 4,000 pages: only the worker can have grown the database file.
    await eventually(() => statSync(file).size > emptySize, 'the database file to receive checkpointed pages');
    const events = await store.readEvents({ afterId: 0, runId: 'run-1', limit: 100 });
    expect(events.map((event) => event.data.index)).toEqual(Array.from({ length: 70 }, (_, index) => index));
    await store.close();
    store = undefined;

    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
      expect((raw.prepare('SELECT count(*) FROM events').pluck().get() as number)).toBe(70);
    } finally {
      raw.close();
    }
  });
  it('lets a process close the store and exit while the worker runs (its worker never holds the process, and close still waits for it)', () => {
    const script = `
      import { openSqliteStore } from ${JSON.stringify(new URL('./sqlite-store.ts', import.meta.url).pathname)};
      import { newEvent, newRun } from ${JSON.stringify(new URL('./store-contract-fixtures.ts', import.meta.url).pathname)};
      const store = openSqliteStore({ file: ${JSON.stringify(file)} });
      await store.createRun(newRun('run-1'), []);
      // With createRun, 64 commits: the 64th starts the worker and its first checkpoint, and close comes while both are under way.
      for (let index = 0; index < 63; index++) await store.appendEvents([newEvent('run-1', 'text', { index })]);
      await store.close();
      console.log('closed');
    `;
    // Five times: whether other pending I/O happens to keep such a process alive until the worker exits is a matter of timing.
    for (let attempt = 0; attempt < 5; attempt++) {
      rmSync(file, { force: true });
      rmSync(`${file}-wal`, { force: true });
      rmSync(`${file}-shm`, { force: true });
      const child = spawnSync(process.execPath, ['--input-type=module', '--eval', script], { encoding: 'utf8', timeout: 10_000 });
      // stderr is shown on failure, not required empty: a runtime warning is no failure of close.
      expect({ attempt, status: child.status, stdout: child.stdout.trim() }, child.stderr).toEqual({ attempt, status: 0, stdout: 'closed' });
    }
  });
});

describe('startCheckpointer', () => {
  let checkpointer: Checkpointer | undefined;
  let database: Database.Database;
  beforeEach(() => {
    database = new Database(file);
    database.pragma('journal_mode = WAL');
    // The test's writer never checkpoints by itself: every checkpoint seen is the worker's.
    database.pragma('wal_autocheckpoint = 0');
    database.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  });
  afterEach(async () => {
    await checkpointer?.close();
    checkpointer = undefined;
    database.close();
  });

  const commit = (count: number) => {
    const insert = database.prepare('INSERT INTO rows (text) VALUES (?)');
    for (let index = 0; index < count; index++) {
      insert.run('x'.repeat(2000));
      checkpointer!.committed();
    }
  };

  it('starts no worker for a store that commits a little (a CLI command, a quiet server): by default only commits count, not time', async () => {
    checkpointer = startCheckpointer({ file });
    commit(63);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(checkpointer.stats.started).toBe(false);
    await checkpointer.close();
    expect(checkpointer.stats).toEqual({ checkpoints: 0, failures: 0, started: false });
  });

  it('checkpoints after everyCommits commits, and again for the commits made meanwhile', async () => {
    checkpointer = startCheckpointer({ file, everyCommits: 16, delayMs: 20 });
    commit(16);
    expect(checkpointer.stats.started).toBe(true);
    await eventually(() => checkpointer!.stats.checkpoints >= 1, 'the first checkpoint');
    await eventually(() => databaseFileHolds(16), 'the 16 rows to be copied into the database file');
    commit(2);
    // Fewer than everyCommits: the delay starts it.
    await eventually(() => checkpointer!.stats.checkpoints >= 2, 'the delayed checkpoint');
    await eventually(() => databaseFileHolds(18), 'the 2 new rows to be copied too');
    expect(checkpointer.stats.failures).toBe(0);
  });

  it('close waits for the running checkpoint and stops the worker', async () => {
    checkpointer = startCheckpointer({ file, everyCommits: 4, delayMs: 10_000 });
    commit(4);
    await checkpointer.close();
    expect(checkpointer.stats).toMatchObject({ checkpoints: 1, failures: 0, started: true });
    expect(databaseFileHolds(4)).toBe(true);
    // Nothing scheduled after close: a late commit starts nothing.
    checkpointer.committed();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(checkpointer.stats.checkpoints).toBe(1);
  });

  it('stops checkpointing when the worker dies, even with a checkpoint already scheduled, reports it, and still closes', async () => {
    // A worker that answers one checkpoint, then dies on its own.
    const workerSource = `
      const { parentPort } = require('node:worker_threads');
      parentPort.on('message', (message) => { if (message === 'checkpoint') parentPort.postMessage({ ok: true }); });
      setTimeout(() => process.exit(3), 100);
    `;
    const errors: string[] = [];
    checkpointer = startCheckpointer({ file, everyCommits: 2, delayMs: 500, workerSource, onError: (error) => errors.push(error.message) });
    commit(2);
    await eventually(() => checkpointer!.stats.checkpoints === 1, 'the first checkpoint');
    // Scheduled for 500 ms from now; the worker dies (100 ms after it started) before that.
    commit(1);
    await new Promise((resolve) => setTimeout(resolve, 700));
    const closed = await Promise.race([checkpointer.close().then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('close hung'), 2000))]);
    expect(closed).toBe('closed');
    expect(checkpointer.stats).toMatchObject({ checkpoints: 1, failures: 1, started: true });
    expect(errors).toEqual([`the checkpoint worker of ${file} exited (code 3); the store connection's own checkpoints take over`]);
    commit(70);
    expect(checkpointer.stats.checkpoints).toBe(1);
  });

  it('survives an error reporter that throws', async () => {
    checkpointer = startCheckpointer({
      file,
      everyCommits: 1,
      workerSource: `process.exit(5);`,
      onError: () => {
        throw new Error('the logger broke');
      },
    });
    commit(1);
    await eventually(() => checkpointer!.stats.failures === 1, 'the worker\'s exit to be reported');
    commit(3);
    await checkpointer.close();
    expect(checkpointer.stats).toMatchObject({ checkpoints: 0, failures: 1, started: true });
  });

  it('checkpoints the file named when it started, after the process changed directory', async () => {
    const before = process.cwd();
    process.chdir(directory);
    try {
      checkpointer = startCheckpointer({ file: 'toolgate.db', everyCommits: 4 });
    } finally {
      process.chdir(before);
    }
    commit(4);
    await eventually(() => checkpointer!.stats.checkpoints + checkpointer!.stats.failures >= 1, 'the first checkpoint');
    expect(checkpointer.stats).toMatchObject({ checkpoints: 1, failures: 0 });
    expect(databaseFileHolds(4)).toBe(true);
  });

  it('reports a checkpoint that fails, naming the file, and keeps trying on later commits', async () => {
    const missing = path.join(directory, 'gone.db');
    const errors: string[] = [];
    checkpointer = startCheckpointer({ file: missing, everyCommits: 1, delayMs: 10, onError: (error) => errors.push(error.message) });
    checkpointer.committed();
    await eventually(() => errors.length >= 1, 'the failure to be reported');
    expect(errors[0]).toContain(`a WAL checkpoint of ${missing} failed:`);
    checkpointer.committed();
    await eventually(() => errors.length >= 2, 'the next checkpoint to be tried and fail');
    expect(checkpointer.stats).toMatchObject({ checkpoints: 0, failures: 2 });
  });
});
