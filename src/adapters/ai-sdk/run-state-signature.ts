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
import { digests, equalBytes, fromBase64url, toBase64url } from './digests.ts';

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
  const sign = await stateKey(options.secret);
  return toBase64url(await sign(signedBytes(options.state)));
}

/**
 * Whether `signature` signs this state (every field but `signature`) with
 * this secret. Compared in constant time; false for anything that cannot be
 * read.
 *
 * @example
 * if (!(await runStateSignatureMatches({ state, signature: state.signature, secret }))) refuse();
 */
export async function runStateSignatureMatches(options: { state: object; signature: string; secret: string | Uint8Array }): Promise<boolean> {
  try {
    if (!/^[A-Za-z0-9_-]{43}$/.test(options.signature)) return false;
    const sign = await stateKey(options.secret);
    return equalBytes(await sign(signedBytes(options.state)), fromBase64url(options.signature));
  } catch {
    return false;
  }
}

function signedBytes(state: object): Uint8Array {
  const { signature: _signature, ...unsigned } = state as { signature?: unknown };
  // As stored: JSON drops `undefined` members and turns bytes into objects, on both sides alike.
  return encoder.encode(fingerprint(JSON.parse(JSON.stringify(unsigned))));
}

type Signer = (data: Uint8Array) => Promise<Uint8Array>;

/** Signers under the derived key, by secret (its text, or its bytes in hex): a server signs and checks under one secret. */
const derivedKeys = new Map<string, Promise<Signer>>();
const MAX_DERIVED_KEYS = 16;

function stateKey(secret: string | Uint8Array): Promise<Signer> {
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

/** The signing key, HMAC-SHA256 of the label under the secret, prepared for signing. */
async function deriveKey(raw: Uint8Array): Promise<Signer> {
  return await digests.hmacSha256Signer(await digests.hmacSha256(raw, encoder.encode(KEY_LABEL)));
}
