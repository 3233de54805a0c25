import type { AuditEntry, AuditSink } from '../core/audit-entry.ts';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { auditLine } from './audit-log.ts';
import { errorMessage } from '../core/run-tool-check.ts';
import type { SharedRecords } from '../store/store.ts';

/** The audit trail of servers sharing a store: `record` resolves once the entry is committed there. */
export interface StoreAuditLog extends AuditSink {
  /** Resolves once every entry recorded before the call is committed (or has failed). */
  flush(): Promise<void>;
  /** Flushes; the store stays open (its owner closes it). */
  close(): Promise<void>;
}

/**
 * The audit log of a server on a store other servers share: each entry is
 * the line a lone server would append to its audit.jsonl, appended to the
 * store's audit table instead, so one trail holds every server's decisions
 * in the order they were recorded. Group commit as in the file log: entries recorded while a
 * batch is being committed wait for the next batch, so N concurrent calls
 * cost about one commit. A failed commit rejects every entry of its batch,
 * and the gate denies those calls (fail closed).
 *
 * @example
 * const audit = createStoreAuditLog(store.shared!);
 * const gate = createGate({ policy, audit });
 */
export function createStoreAuditLog(shared: SharedRecords): StoreAuditLog {
  let queued: Array<{ line: string; resolve: () => void; reject: (error: unknown) => void }> = [];
  let writing: Promise<void> | undefined;

  const commitQueued = async (): Promise<void> => {
    while (queued.length > 0) {
      const batch = queued;
      queued = [];
      try {
        await shared.appendAudit(batch.map((pending) => pending.line));
        for (const pending of batch) pending.resolve();
      } catch (error) {
        const failure = new ToolgateError({ code: 'AUDIT_WRITE_FAILED', message: `the shared store could not record the audit entry: ${errorMessage(error)}`, cause: error });
        for (const pending of batch) pending.reject(failure);
      }
    }
    writing = undefined;
  };

  const flush = async (): Promise<void> => {
    while (writing !== undefined) await writing;
  };

  return {
    record(entry: AuditEntry) {
      let text: string;
      try {
        text = auditLine(entry, 'the shared store');
      } catch (error) {
        return Promise.reject(error);
      }
      return new Promise<void>((resolve, reject) => {
        queued.push({ line: text, resolve, reject });
        // A microtask, so entries recorded in the same tick share the first batch.
        writing ??= Promise.resolve().then(commitQueued);
      });
    },
    flush,
    close: flush,
  };
}
