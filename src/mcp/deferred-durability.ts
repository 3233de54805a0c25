import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditRecordStages } from '../audit/audit-log.ts';
import type { AuditEntry, AuditSink } from '../core/audit-entry.ts';

/** An audit log that reports when a record is written and when it is durable (`AuditLog` is one). */
export interface StagedAuditLog {
  recordInStages(entry: AuditEntry): AuditRecordStages;
}

export interface DeferredDurability {
  /** The sink for the gate: inside `collect`, `record` resolves once the line is written; elsewhere once it is durable. */
  readonly sink: AuditSink;
  /**
   * Runs `work` (the gate's decision) and returns its value with `durable`: a
   * promise that resolves once every record written during `work` is
   * durable, and rejects if one of them could not be made so. It never
   * rejects unhandled: the caller awaits it before it answers the client.
   */
  collect<Value>(work: () => Promise<Value>): Promise<{ value: Value; durable: Promise<void> }>;
}

/**
 * The gateway's audit ordering. Without it, each allowed call waits for its
 * own fdatasync before it is forwarded; with it, the record is written to
 * the file first (so a crash of the gateway process after forwarding still
 * leaves it), the call is forwarded while the sync runs, and the caller
 * holds the result back until the record is durable. What is promised: no
 * result, refusal or error of a recorded call reaches the client before its
 * records are fdatasync'ed; if the sync fails, the result is withheld and
 * the client gets an error instead. What is not: a tool can start running
 * before its record is durable, so a crash of the whole machine (power, kernel)
 * in that window can lose the record of a call whose effects happened.
 *
 * The records of one call are found through `AsyncLocalStorage`: whatever
 * the gate records while `collect` runs belongs to that call, whatever its
 * call id (a client cannot make two calls share one).
 *
 * @example
 * const durability = createDeferredDurability(auditLog);
 * const gate = createRuntimeGate({ loaded, audit: durability.sink });
 * const { value: authorization, durable } = await durability.collect(() => gate.authorize(call, context));
 * const result = await forward(call); // the fdatasync runs meanwhile
 * await durable; // only then does the result go back
 */
export function createDeferredDurability(log: StagedAuditLog): DeferredDurability {
  const storage = new AsyncLocalStorage<Promise<void>[]>();
  return {
    sink: {
      record(entry) {
        const stages = log.recordInStages(entry);
        const collected = storage.getStore();
        if (collected === undefined) return stages.durable;
        collected.push(stages.durable);
        return stages.written;
      },
    },
    // Not an async function: the call is forwarded once this settles, and every turn counts.
    collect<Value>(work: () => Promise<Value>) {
      const collected: Promise<void>[] = [];
      // Awaited through `durable` by the caller; a failed `work` leaves nobody to await them.
      const handleAll = (): void => {
        for (const promise of collected) promise.catch(() => undefined);
      };
      let running: Promise<Value>;
      try {
        running = storage.run(collected, work);
      } catch (error) {
        running = Promise.reject(error);
      }
      return running.then(
        (value) => {
          handleAll();
          const durable = collected.length === 0 ? Promise.resolve() : collected.length === 1 ? collected[0]! : Promise.all(collected).then(() => undefined);
          durable.catch(() => undefined);
          return { value, durable };
        },
        (error: unknown) => {
          handleAll();
          throw error;
        },
      );
    },
  };
}
