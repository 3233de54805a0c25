import type { AlwaysApprovals } from '../core/gate.ts';
import { macMatches, recordMac } from '../store/record-mac.ts';
import type { SharedRecords, StoredAlwaysApproval } from '../store/store.ts';
import type { AlwaysScope } from '../core/types.ts';
import { approvalFingerprint, approvalRecordOf, scopeOfRecord, scopesByTool, scopesKey } from './approvals-file.ts';

/** "Approve always" kept in a store servers share, as the gate reads it. */
export interface StoreApprovals extends AlwaysApprovals {
  /** Reads every approval again from the store (another server or `toolgate approvals` changed them). */
  refresh(): Promise<void>;
}

/**
 * "Approve always" for servers sharing one store: the approvals live in the
 * store, and each server holds a copy of their fingerprints that the gate
 * looks calls up in (synchronously, as it reads the approvals file). Adding
 * writes to the store and waits for its commit; a change anywhere (an add
 * on another server, a revoke with `toolgate approvals --store`) reaches
 * every server through the store's watch, which calls `refresh`.
 * A voided approval (the tool's identity changed) never matches, not even
 * when the tool's identity changes back to the one it names.
 * Each approval is stored with a MAC under the server's key over what it
 * matches (fingerprint, tool, identity, when): one without a valid MAC
 * (written into the store by anyone without the secret, or by a toolgate
 * from before approvals were signed) matches nothing, and `onRefused`
 * hears of it.
 *
 * @example
 * const always = await loadStoreApprovals({ shared: store.shared!, key: runtime.recordKey, redactKeys: policy.redact.keys });
 * const gate = createGate({ policy, always });
 */
export async function loadStoreApprovals(options: {
  shared: SharedRecords;
  key: Buffer;
  redactKeys?: ReadonlySet<string>;
  clock?: () => Date;
  onRefused?: (refused: StoredAlwaysApproval[]) => void;
}): Promise<StoreApprovals> {
  const { shared } = options;
  const macOf = (record: StoredAlwaysApproval) => recordMac(options.key, 'always', [record.fingerprint, record.tool, record.identity, record.created_at]);
  const clock = options.clock ?? (() => new Date());
  let fingerprints = new Set<string>();
  let scopes = new Map<string, AlwaysScope[]>();
  /** Tool → the identity this server last voided the tool's other approvals for (one write per tool and identity). */
  const retired = new Map<string, string>();
  const read = async (): Promise<void> => {
    // A voided approval never matches again, even once the tool's identity is back to the one it names.
    const live = (await shared.listAlways()).filter((record) => record.voided_at === undefined);
    const refused = live.filter((record) => !macMatches(record.mac, macOf(record)));
    if (refused.length > 0) options.onRefused?.(refused);
    const trusted = live.filter((record) => !refused.includes(record));
    fingerprints = new Set(trusted.map((record) => record.fingerprint));
    scopes = scopesByTool(trusted);
  };
  // One read at a time, each after the one before: the latest change is in a read that starts after it.
  let reading = Promise.resolve();
  await read();
  return {
    where: 'the shared store',
    has: (entry) => fingerprints.has(approvalFingerprint(entry)),
    scoped: (entry) => scopes.get(scopesKey(entry)) ?? [],
    async add(entry) {
      const unsigned = approvalRecordOf(entry, { redactKeys: options.redactKeys, at: clock() });
      const record = { ...unsigned, mac: macOf(unsigned) };
      await shared.addAlways(record);
      fingerprints.add(record.fingerprint);
      const scope = scopeOfRecord(record);
      if (scope !== undefined) scopes.set(scopesKey(entry), [...(scopes.get(scopesKey(entry)) ?? []), scope]);
    },
    retire(entry) {
      if (retired.get(entry.tool) === entry.identity) return;
      retired.set(entry.tool, entry.identity);
      // The mark is for people reading the list; has() never matches another identity anyway.
      shared.voidAlways({ ...entry, at: clock().toISOString() }).catch(() => retired.delete(entry.tool));
    },
    refresh() {
      reading = reading.then(read, read);
      return reading;
    },
  };
}
