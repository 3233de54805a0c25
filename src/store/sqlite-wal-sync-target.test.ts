/**
 * What the SQLite store syncs is the WAL file itself: every fdatasync it
 * asks for goes to a descriptor of `<store>-wal`, and a write is
 * acknowledged only after one of them has finished. (Which descriptor a
 * sync names is read back from /proc, so this runs on Linux.)
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openSqliteStore } from './sqlite-store.ts';
import { newEvent, newRun } from './store-contract-fixtures.ts';

const syncs = vi.hoisted(() => ({ started: [] as string[], finished: 0, failStat: false }));

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return {
    ...actual,
    fstatSync(...args: Parameters<typeof actual.fstatSync>) {
      if (syncs.failStat) throw Object.assign(new Error('EIO: i/o error, fstat'), { code: 'EIO' });
      return actual.fstatSync(...args);
    },
    fdatasync(fd: number, callback: (error: NodeJS.ErrnoException | null) => void) {
      syncs.started.push(actual.readlinkSync(`/proc/self/fd/${fd}`));
      actual.fdatasync(fd, (error) => {
        syncs.finished++;
        callback(error);
      });
    },
  };
});

describe.runIf(process.platform === 'linux')('the SQLite store fdatasyncs its WAL file', () => {
  let directory: string;
  beforeEach(() => {
    directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-wal-target-')));
    syncs.started.length = 0;
    syncs.finished = 0;
    syncs.failStat = false;
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('syncs the -wal file of this store, and acknowledges a write only after a sync has finished', async () => {
    const file = path.join(directory, 'toolgate.db');
    const store = openSqliteStore({ file });
    try {
      const created = store.createRun(newRun('run-1'), [newEvent('run-1', 'run_started')]);
      let finishedWhenAcknowledged = -1;
      await created.then(() => (finishedWhenAcknowledged = syncs.finished));
      expect(finishedWhenAcknowledged).toBeGreaterThanOrEqual(1);
      expect(syncs.started.length).toBeGreaterThanOrEqual(1);
      expect(new Set(syncs.started)).toEqual(new Set([`${file}-wal`]));
    } finally {
      await store.close();
    }
  });

  it('fails the write, not the process, when the WAL cannot be checked after its sync', async () => {
    const file = path.join(directory, 'toolgate.db');
    const store = openSqliteStore({ file });
    try {
      syncs.failStat = true;
      const error = await store.createRun(newRun('run-1'), []).then(
        () => undefined,
        (rejection: unknown) => rejection,
      );
      syncs.failStat = false;
      expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect((error as Error).message).toContain(`${file}-wal: the write-ahead log could not be checked after its sync (EIO: i/o error, fstat)`);
      await expect(store.createRun(newRun('run-2'), [])).rejects.toThrow(/could not be checked/);
    } finally {
      syncs.failStat = false;
      await store.close();
    }
  });
});
