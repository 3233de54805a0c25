import { describe, expect, it } from 'vitest';
import type { AuditRecordStages } from '../audit/audit-log.ts';
import type { AuditEntry } from '../core/audit-entry.ts';
import { createDeferredDurability } from './deferred-durability.ts';

/** A staged log whose stages the test settles by hand. */
function manualLog() {
  const pending: { entry: AuditEntry; write(): void; sync(error?: Error): void }[] = [];
  return {
    pending,
    recordInStages(entry: AuditEntry): AuditRecordStages {
      let write!: () => void;
      let resolveDurable!: () => void;
      let rejectDurable!: (error: Error) => void;
      const written = new Promise<void>((resolve) => (write = resolve));
      const durable = new Promise<void>((resolve, reject) => {
        resolveDurable = resolve;
        rejectDurable = reject;
      });
      pending.push({ entry, write, sync: (error) => (error === undefined ? resolveDurable() : rejectDurable(error)) });
      return { written, durable };
    },
  };
}

const entry = (callId: string) => ({ call_id: callId }) as AuditEntry;
const settled = async (promise: Promise<unknown>) => {
  let state = 'pending';
  promise.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  await new Promise((resolve) => setTimeout(resolve, 10));
  return state;
};

describe('createDeferredDurability', () => {
  it('lets the decision go on once written and reports durability separately', async () => {
    const log = manualLog();
    const durability = createDeferredDurability(log);
    const collecting = durability.collect(async () => {
      await durability.sink.record(entry('a'));
      return 'decided';
    });
    expect(log.pending).toHaveLength(1);
    log.pending[0]!.write();
    const { value, durable } = await collecting;
    expect(value).toBe('decided');
    expect(await settled(durable)).toBe('pending');
    log.pending[0]!.sync();
    expect(await settled(durable)).toBe('resolved');
  });

  it('waits for every record of the decision, and fails if one cannot be made durable', async () => {
    const log = manualLog();
    const durability = createDeferredDurability(log);
    const collecting = durability.collect(async () => {
      const first = durability.sink.record(entry('a'));
      log.pending[0]!.write();
      await first;
      const second = durability.sink.record(entry('a'));
      log.pending[1]!.write();
      await second;
    });
    const { durable } = await collecting;
    log.pending[0]!.sync();
    expect(await settled(durable)).toBe('pending');
    log.pending[1]!.sync(new Error('EIO'));
    await expect(durable).rejects.toThrow('EIO');
  });

  it('keeps records made outside a collection whole: they resolve only once durable', async () => {
    const log = manualLog();
    const durability = createDeferredDurability(log);
    const recorded = durability.sink.record(entry('outside'));
    log.pending[0]!.write();
    expect(await settled(recorded)).toBe('pending');
    log.pending[0]!.sync();
    expect(await settled(recorded)).toBe('resolved');
  });

  it('does not mix up the records of concurrent decisions', async () => {
    const log = manualLog();
    const durability = createDeferredDurability(log);
    const decide = (callId: string) =>
      durability.collect(async () => {
        await new Promise((resolve) => setTimeout(resolve, callId === 'a' ? 5 : 1));
        await durability.sink.record(entry(callId));
      });
    const both = Promise.all([decide('a'), decide('b')]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const record of log.pending) record.write();
    const [a, b] = await both;
    log.pending.find((record) => record.entry.call_id === 'b')!.sync();
    expect(await settled(b.durable)).toBe('resolved');
    expect(await settled(a.durable)).toBe('pending');
    log.pending.find((record) => record.entry.call_id === 'a')!.sync(new Error('EIO'));
    await expect(a.durable).rejects.toThrow('EIO');
  });

  it('turns a decision that throws at once into a rejection, not a throw', async () => {
    const durability = createDeferredDurability(manualLog());
    let collecting: Promise<unknown> | undefined;
    expect(() => {
      collecting = durability.collect(() => {
        throw new Error('gate exploded');
      });
    }).not.toThrow();
    await expect(collecting).rejects.toThrow('gate exploded');
  });

  it('leaves no rejection unhandled when the decision fails after writing a record that then cannot be made durable', async () => {
    const log = manualLog();
    const durability = createDeferredDurability(log);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const collecting = durability.collect(async () => {
        const recorded = durability.sink.record(entry('a'));
        log.pending[0]!.write();
        await recorded;
        throw new Error('decision failed');
      });
      await expect(collecting).rejects.toThrow('decision failed');
      log.pending[0]!.sync(new Error('EIO'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
