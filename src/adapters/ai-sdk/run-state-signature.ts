/**
 * The signature of a saved run state: an HMAC-SHA256, with a key derived
 * from the gated set's approval secret, over the whole state but its
 * signature — the session, chat and run it belongs to, its messages, and
 * every field of every pending approval a person is shown (arguments,
 * payload, description, presentation, tool name, call id). An edit to any of
 * them, or a pending approval added or removed, breaks it.
 *
 * The state is signed as the JSON it is stored as (a canonical fingerprint
 * of it, so key order never matters), so what is checked on resume is what
 * was signed whatever store kept it.
 */
import { fingerprint } from '../../core/fingerprint.ts';

/** Separates these signatures from the SDK's approval signatures made with the same secret. */
const KEY_LABEL = 'toolgate/ai-sdk run state signing key v2';

const encoder = new TextEncoder();

/**
 * Signs a state (every field but `signature`); base64url.
 *
 * @example
 * const signature = await signRunState({ state: unsigned, secret });
 */
export async function signRunState(options: { state: object; secret: string | Uint8Array }): Promise<string> {
  const key = await stateKey(options.secret);
  const signature = await globalThis.crypto.subtle.sign('HMAC', key, signedBytes(options.state));
  return toBase64url(new Uint8Array(signature));
}

/**
 * Whether `signature` signs this state (every field but `signature`) with
 * this secret. Compared in constant time by the platform; false for anything
 * that cannot be read.
 *
 * @example
 * if (!(await runStateSignatureMatches({ state, signature: state.signature, secret }))) refuse();
 */
export async function runStateSignatureMatches(options: { state: object; signature: string; secret: string | Uint8Array }): Promise<boolean> {
  try {
    if (!/^[A-Za-z0-9_-]{43}$/.test(options.signature)) return false;
    const key = await stateKey(options.secret);
    const signature = fromBase64url(options.signature);
    return await globalThis.crypto.subtle.verify('HMAC', key, signature, signedBytes(options.state));
  } catch {
    return false;
  }
}

function signedBytes(state: object): Uint8Array<ArrayBuffer> {
  const { signature: _signature, ...unsigned } = state as { signature?: unknown };
  // As stored: JSON drops `undefined` members and turns bytes into objects, on both sides alike.
  return encoder.encode(fingerprint(JSON.parse(JSON.stringify(unsigned))));
}

type StateKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;

/** Derived keys by secret (its text, or its bytes in hex): deriving one costs three platform calls, and a server signs and checks under one secret. */
const derivedKeys = new Map<string, Promise<StateKey>>();
const MAX_DERIVED_KEYS = 16;

function stateKey(secret: string | Uint8Array): Promise<StateKey> {
  // Keyed by the content, not the object: a secret changed in place gets its own key.
  const id = typeof secret === 'string' ? `text:${secret}` : `bytes:${Array.from(secret, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  let key = derivedKeys.get(id);
  if (key === undefined) {
    key = deriveKey(typeof secret === 'string' ? encoder.encode(secret) : new Uint8Array(secret));
    // A failed derivation is not kept: the next call tries again.
    key.catch(() => derivedKeys.delete(id));
    if (derivedKeys.size >= MAX_DERIVED_KEYS) derivedKeys.delete(derivedKeys.keys().next().value!);
    derivedKeys.set(id, key);
  }
  return key;
}

async function deriveKey(raw: Uint8Array<ArrayBuffer>): Promise<StateKey> {
  const master = await globalThis.crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const derived = await globalThis.crypto.subtle.sign('HMAC', master, encoder.encode(KEY_LABEL));
  return globalThis.crypto.subtle.importKey('raw', derived, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

// btoa/atob rather than Buffer: the adapter runs wherever the AI SDK does, not only on Node.
function toBase64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}
