/** Bytes in a generated approval secret (HMAC-SHA256 keys gain nothing past the hash size). */
export const SECRET_BYTES = 32;

/** Secrets drawn per refill: one call to the random source serves many gated sets. */
const POOL_SECRETS = 128;

let pool = new Uint8Array(0);
let offset = 0;

/**
 * A fresh random approval secret. Bytes come from the platform's
 * cryptographic source in batches, because a call per gated set costs a
 * short tool loop measurably; each secret is used once and wiped from the
 * batch as it is handed out.
 *
 * @example
 * const secret = randomSecret(); // Uint8Array(32)
 */
export function randomSecret(): Uint8Array {
  if (offset + SECRET_BYTES > pool.length) {
    pool = globalThis.crypto.getRandomValues(new Uint8Array(SECRET_BYTES * POOL_SECRETS));
    offset = 0;
  }
  const secret = pool.slice(offset, offset + SECRET_BYTES);
  pool.fill(0, offset, offset + SECRET_BYTES);
  offset += SECRET_BYTES;
  return secret;
}
