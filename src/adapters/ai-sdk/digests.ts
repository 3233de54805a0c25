/**
 * SHA-256 and HMAC-SHA256 for the adapter's signatures: Node's `node:crypto`,
 * synchronously, where the runtime offers it through
 * `process.getBuiltinModule` (Node 22.3 and later); WebCrypto elsewhere.
 * Both give the same bytes (the tests check one against the other).
 *
 * Why not WebCrypto everywhere: on Node each WebCrypto call is a job handed
 * to the thread pool, and an HMAC needs a key imported first. A signature
 * checked that way cost 40–60 µs against 2–3 µs, and a resumed run checks
 * several. No static `import 'node:crypto'`: the adapter runs wherever the
 * AI SDK does, browsers and edge runtimes included.
 */

export interface Digests {
  sha256(data: Uint8Array): Promise<Uint8Array>;
  hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array>;
  /**
   * HMAC-SHA256 under one key, prepared once (a KeyObject on Node, an
   * imported CryptoKey elsewhere): preparing a raw key took about half of
   * each HMAC. The key's bytes are copied: changing them later changes nothing.
   */
  hmacSha256Signer(key: Uint8Array): Promise<(data: Uint8Array) => Promise<Uint8Array>>;
}

type NodeCrypto = typeof import('node:crypto');

const nodeCrypto = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;

const subtle = () => globalThis.crypto.subtle;

/** WebCrypto's: every platform has it. */
export const webCryptoDigests: Digests = {
  async sha256(data) {
    return new Uint8Array(await subtle().digest('SHA-256', data as Uint8Array<ArrayBuffer>));
  },
  async hmacSha256(key, data) {
    const imported = await subtle().importKey('raw', key as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return new Uint8Array(await subtle().sign('HMAC', imported, data as Uint8Array<ArrayBuffer>));
  },
  async hmacSha256Signer(key) {
    // Awaited here: a key WebCrypto refuses makes no signer (and a cache of signers never keeps it).
    const imported = await subtle().importKey('raw', new Uint8Array(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return async (data) => new Uint8Array(await subtle().sign('HMAC', imported, data as Uint8Array<ArrayBuffer>));
  },
};

/** Node's, when the runtime has `node:crypto`. */
export const nodeDigests: Digests | undefined =
  nodeCrypto === undefined
    ? undefined
    : {
        async sha256(data) {
          return nodeCrypto.createHash('sha256').update(data).digest();
        },
        async hmacSha256(key, data) {
          return nodeCrypto.createHmac('sha256', key).update(data).digest();
        },
        async hmacSha256Signer(key) {
          const keyObject = nodeCrypto.createSecretKey(Uint8Array.from(key));
          return async (data) => nodeCrypto.createHmac('sha256', keyObject).update(data).digest();
        },
      };

/** What the adapter uses. */
export const digests: Digests = nodeDigests ?? webCryptoDigests;

/**
 * Whether two byte strings are equal, in time that depends on their length
 * only (so a forger learns nothing from how long a refusal took).
 *
 * @example
 * equalBytes(expected, presented) // true | false
 */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  // One way on every platform (so the tests run the code every platform runs): signatures are 32 bytes.
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}

// btoa/atob rather than Buffer: not every platform the adapter runs on has Buffer.
export function toBase64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Throws on text that is not base64 (callers check the shape first). */
export function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}
