/**
 * The writer thread: what crosses threads (results, errors with their
 * codes), what close promises, and that a thread that fails refuses every
 * write instead of leaving it hanging or reporting it written.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from './sqlite-store-error.ts';
import { openSqliteStore } from './sqlite-store.ts';
import { threadWriter } from './sqlite-writer.ts';
import { newEvent, newRun } from './store-contract-fixtures.ts';

describe('the SQLite store with its writes on a writer thread', () => {
  let directory: string;
  let file: string;
  beforeEach(() => {
    directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-writer-'));
    file = path.join(directory, 'toolgate.db');
  });
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("passes a store's own refusals back as StoreErrors with their codes, and SQLite's with theirs", async () => {
    const store = openSqliteStore({ file, writer: 'thread' });
    try {
      await store.createRun(newRun('run-1'), []);
      const unknownCall = await store.finishCall('run-1', 'never-begun', 'completed', null).catch((error: unknown) => error);
      expect(unknownCall).toBeInstanceOf(StoreError);
      expect(unknownCall).toMatchObject({ code: 'STORE_INVALID_RECORD', message: expect.stringContaining('no call never-begun of run run-1 was begun') });
      const duplicate = await store.createRun(newRun('run-1'), []).catch((error: unknown) => error);
      expect(duplicate).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
      // The refused writes changed nothing; the thread goes on writing.
      expect((await store.appendEvents([newEvent('run-1', 'after')]))[0]?.type).toBe('after');
    } finally {
      await store.close();
    }
  });

  it('commits every write sent before close, and refuses writes after it', async () => {
    const store = openSqliteStore({ file, writer: 'thread' });
    await store.createRun(newRun('run-1'), []);
    const sent = Array.from({ length: 500 }, (_, index) => store.appendEvents([newEvent('run-1', `event-${index}`)]));
    await store.close();
    expect((await Promise.all(sent)).map((events) => events[0]!.id)).toEqual(Array.from({ length: 500 }, (_, index) => index + 1));
    await expect(store.appendEvents([newEvent('run-1', 'late')])).rejects.toThrow();
    const reopened = openSqliteStore({ file });
    try {
      expect(await reopened.lastEventId()).toBe(500);
    } finally {
      await reopened.close();
    }
  });

  it('refuses every write, waiting or later, when the thread cannot work: none hangs, none is reported written', async () => {
    writeFileSync(file, 'not a database, and toolgate will not overwrite it\n');
    const writer = threadWriter({ file, busyTimeoutMs: 1000 });
    const waiting = writer.write('appendEvents', { events: [{ runId: 'run-1', owner: 'alice', type: 'x', data: '{}' }], at: new Date().toISOString() });
    await expect(waiting).rejects.toThrow(/writer thread (failed|stopped)/);
    await expect(writer.write('revokeToken', { name: 'bob', at: new Date().toISOString() })).rejects.toThrow(/writer thread (failed|stopped)/);
    await writer.close();
  });
});
