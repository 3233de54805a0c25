/**
 * MACs over the records toolgate keeps in a store and acts on later — a
 * decision on a paused call, a session's remembered decision, an "approve
 * always" — under a key derived from the server's secret (apart from the
 * key that seals run states). Whoever can write the store but does not hold
 * the secret cannot make a record that verifies.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

const VERSION = 'v1';

/**
 * The key records are signed with, derived from the server's secret.
 *
 * @example
 * const key = recordKey(runtime.secret);
 */
export function recordKey(secret: string | Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret, Buffer.alloc(0), 'toolgate decision mac v1', 32));
}

/**
 * The MAC of a record toolgate keeps in a store and acts on later (a
 * session's remembered decision, an "approve always"): `purpose` names the
 * kind of record, so that no record's MAC stands for another kind's.
 *
 * @example
 * const mac = recordMac(key, 'memory', [memoryKey, decision.approved, decision.reason ?? null]);
 */
export function recordMac(key: Buffer, purpose: string, fields: readonly unknown[]): string {
  return `${VERSION}.${createHmac('sha256', key).update(JSON.stringify([VERSION, purpose, ...fields])).digest('base64url')}`;
}

/** Whether `given` (read from a store, any type) is `expected`, compared in constant time. */
export function macMatches(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

