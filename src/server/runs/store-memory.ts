import { createHash } from 'node:crypto';
import type { ApprovalMemory, RememberedDecision, RememberedShown } from '../../core/approval-memory.ts';
import { macMatches, recordMac } from '../../store/record-mac.ts';
import type { ToolgateStore } from '../../store/store.ts';

export interface StoreMemory extends ApprovalMemory {
  /** Forgets one chat's decisions here and in the store; returns how many the store held. */
  forgetChat(sessionId: string, chatId: string | null): Promise<number>;
  /** Every decision remembered (and verified) here, as a list shows them. */
  list(): RememberedEntry[];
  /** Forgets the decision with this id (`RememberedEntry.id`) here and in the store; false when none has it. */
  forget(id: string): Promise<boolean>;
  /** Resolves once every decision stored so far is durable. */
  flush(): Promise<void>;
  /** Reads one decision again from the store (another server changed it), or all of them (`null`). */
  refresh(key: string | null): Promise<void>;
}

/** One remembered decision, as people read it. */
export interface RememberedEntry {
  /** A short hash of its key: what `forget` takes. */
  id: string;
  /** The session it holds for (`["owner","session"]` for a server's runs), and its chat. */
  sessionId: string;
  chatId: string | null;
  approved: boolean;
  reason?: string;
  /** Absent for decisions remembered by a toolgate from before they were shown. */
  shown?: RememberedShown;
}

/**
 * Session memory ("approve for session") kept in the store, so a restart
 * remembers it: read into this process at start, written through on every
 * decision, and read again when another server changes it (`refresh`, from
 * the store's watch). The gate looks decisions up synchronously, from the
 * copy here.
 * A write that fails only means asking again after a restart.
 * Each decision is stored with a MAC under the server's key over its memory
 * key and what it decides: one the store holds without a valid MAC (written
 * by anyone without the secret) is never used, and `onRefused` hears of it.
 *
 * @example
 * const memory = await loadStoreMemory(store, { key: runtime.recordKey });
 * const gate = createGate({ policy, memory });
 */
export async function loadStoreMemory(store: ToolgateStore, options: { key: Buffer; onRefused?: (key: string) => void }): Promise<StoreMemory> {
  const entries = new Map<string, RememberedDecision>();
  // What it shows is signed too, when it has it: a row edited in the database shows nothing that was not decided.
  const macOf = (key: string, decision: RememberedDecision) =>
    recordMac(options.key, 'memory', [key, decision.approved, decision.reason ?? null, ...(decision.shown === undefined ? [] : [JSON.stringify(decision.shown)])]);
  const keep = (key: string, decision: RememberedDecision): void => {
    if (macMatches((decision as { mac?: unknown }).mac, macOf(key, decision))) entries.set(key, decision);
    else {
      entries.delete(key);
      options.onRefused?.(key);
    }
  };
  for (const { key, decision } of await store.allRemembered()) keep(key, decision);
  let writes: Promise<unknown> = Promise.resolve();
  return {
    lookup: (key) => entries.get(key),
    store(key, decision) {
      const signed = { ...decision, mac: macOf(key, decision) };
      entries.set(key, signed);
      const [sessionId, chatId] = scopeOf(key);
      writes = writes.then(() => store.remember({ key, sessionId, chatId, decision: signed })).catch(() => undefined);
    },
    async forgetChat(sessionId, chatId) {
      await writes;
      for (const key of [...entries.keys()]) {
        const [session, chat] = scopeOf(key);
        if (session === sessionId && chat === chatId) entries.delete(key);
      }
      return store.forgetChat(sessionId, chatId);
    },
    list() {
      return [...entries].map(([key, decision]) => {
        const [sessionId, chatId] = scopeOf(key);
        return { id: entryId(key), sessionId, chatId, approved: decision.approved, ...(decision.reason === undefined ? {} : { reason: decision.reason }), ...(decision.shown === undefined ? {} : { shown: decision.shown }) };
      });
    },
    async forget(id) {
      await writes;
      const key = [...entries.keys()].find((candidate) => entryId(candidate) === id);
      if (key === undefined) return false;
      entries.delete(key);
      await store.forgetRemembered(key);
      return true;
    },
    flush: async () => void (await writes),
    async refresh(key) {
      // After this process's own writes, so that a reload never puts back what it has just changed.
      await writes;
      if (key !== null) {
        const decision = await store.recall(key);
        if (decision === undefined) entries.delete(key);
        else keep(key, decision);
        return;
      }
      const all = await store.allRemembered();
      entries.clear();
      for (const { key: each, decision } of all) keep(each, decision);
    },
  };
}

function entryId(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** The session and chat a `memoryKey` starts with: a JSON array, then the payload's fingerprint. */
function scopeOf(key: string): [string, string | null] {
  // memoryKey writes JSON.stringify([session, chat, tool, identity]) first; a JSON array ends at its first "]" outside strings.
  let inString = false;
  for (let index = 0; index < key.length; index++) {
    const char = key[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === ']') {
      const [session, chat] = JSON.parse(key.slice(0, index + 1)) as [string, string | null];
      return [session, chat];
    }
  }
  throw new Error('not a memory key');
}
