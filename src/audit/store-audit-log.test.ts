import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../core/audit-entry.ts';
import { AUDIT_SCHEMA_VERSION } from '../core/audit-entry.ts';
import type { SharedRecords } from '../store/store.ts';
import { createStoreAuditLog } from './store-audit-log.ts';

/** The audit half of a shared store, in memory: what each commit held, and a switch that makes commits fail. */
function memoryShared() {
  const commits: string[][] = [];
  let failing: Error | undefined;
  let release: (() => void) | undefined;
  let held: Promise<void> | undefined;
  const shared = {
    async appendAudit(lines: readonly string[]) {
      await held;
      if (failing !== undefined) throw failing;
      commits.push([...lines]);
    },
  } as unknown as SharedRecords;
  return {
    shared,
    commits,
    fail: (error: Error | undefined) => void (failing = error),
    hold: () => void (held = new Promise<void>((resolve) => (release = resolve))),
    release: () => {
      held = undefined;
      release?.();
    },
  };
}

const entry = (tool: string): AuditEntry => ({ v: AUDIT_SCHEMA_VERSION, time: '2026-11-25T08:00:00.000Z', session: 's', tool, decision: 'allow', source: 'policy', reason: 'r' }) as AuditEntry;

describe('createStoreAuditLog', () => {
  it('commits entries recorded together in one batch, those recorded meanwhile in the next, each resolving once its batch committed', async () => {
    const store = memoryShared();
    const log = createStoreAuditLog(store.shared);
    store.hold();
    const first = [log.record(entry('a')), log.record(entry('b'))];
    await Promise.resolve();
    const later = [log.record(entry('c')), log.record(entry('d'))];
    let settled = false;
    void Promise.all(first).then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    store.release();
    await Promise.all([...first, ...later]);
    expect(store.commits.map((lines) => lines.map((line) => JSON.parse(line).tool))).toEqual([['a', 'b'], ['c', 'd']]);
    // Each line is the entry as the file log would write it.
    expect(JSON.parse(store.commits[0]![0]!)).toEqual(entry('a'));
  });

  it("rejects every entry of a batch whose commit failed (the gate then denies), and the next batch commits again", async () => {
    const store = memoryShared();
    const log = createStoreAuditLog(store.shared);
    store.fail(new Error('the PostgreSQL store cannot be reached'));
    const failed = [log.record(entry('a')), log.record(entry('b'))];
    for (const record of failed) await expect(record).rejects.toMatchObject({ code: 'AUDIT_WRITE_FAILED', message: expect.stringContaining('cannot be reached') });
    store.fail(undefined);
    await log.record(entry('c'));
    expect(store.commits).toEqual([[JSON.stringify(entry('c'))]]);
  });

  it('refuses an entry that is not JSON alone, without taking its batch down; flush waits for what was recorded', async () => {
    const store = memoryShared();
    const log = createStoreAuditLog(store.shared);
    const cyclic = entry('x') as AuditEntry & { self?: unknown };
    cyclic.self = cyclic;
    const good = log.record(entry('a'));
    await expect(log.record(cyclic)).rejects.toMatchObject({ code: 'AUDIT_WRITE_FAILED' });
    await log.flush();
    await good;
    expect(store.commits).toEqual([[JSON.stringify(entry('a'))]]);
  });
});
