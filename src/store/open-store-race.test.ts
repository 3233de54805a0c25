/**
 * Two servers started on one new SQLite store at the same moment: at
 * least one serves, and the other serves or is refused as `STORE_IN_USE`:
 * never both refused, never "database is locked" (SQLite answers SQLITE_BUSY at once, without waiting, when two
 * connections both want to switch the file to WAL). Worker threads, each
 * with its own connections, on real files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';

const OPEN_STORE_MODULE = new URL('./open-store.ts', import.meta.url).href;

/** Opens the store as a server, holds it a moment, closes it: 'served', or the refusal's code and message. */
const WORKER_SOURCE = `
const { workerData, parentPort } = await import('node:worker_threads');
const { openStore } = await import(workerData.module);
try {
  const store = await openStore({ location: workerData.file, server: true });
  await new Promise((resolve) => setTimeout(resolve, 20));
  await store.close();
  parentPort.postMessage('served');
} catch (error) {
  parentPort.postMessage(error.code + ': ' + error.message);
}
`;

function openAsServer(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(WORKER_SOURCE)}`), { workerData: { file, module: OPEN_STORE_MODULE } });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

let directory: string;
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe('openStore on one new SQLite file from two servers at once', () => {
  it('serves or refuses as in use, round after round, and never fails to open', async () => {
    directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-open-race-'));
    const outcomes = new Map<string, number>();
    let roundsNobodyServed = 0;
    for (let round = 0; round < 40; round++) {
      const file = path.join(directory, `store-${round}.db`);
      const kinds = (await Promise.all([openAsServer(file), openAsServer(file)])).map((outcome) =>
        outcome === 'served' ? 'served' : outcome.startsWith('STORE_IN_USE: ') && outcome.includes('one server per SQLite store') ? 'in use' : outcome,
      );
      for (const kind of kinds) outcomes.set(kind, (outcomes.get(kind) ?? 0) + 1);
      // One may have closed before the other started, so both may serve; both refused would leave nobody serving.
      if (!kinds.includes('served')) roundsNobodyServed++;
    }
    expect([...outcomes.keys()].filter((kind) => kind !== 'served' && kind !== 'in use')).toEqual([]);
    expect(roundsNobodyServed).toBe(0);
  }, 120_000);
});
