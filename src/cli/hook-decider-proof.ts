/**
 * What the hook and its decider prove to each other with the decider's
 * token (hook-decider-client.ts): each side shows it holds the token by an
 * HMAC-SHA256 over both sides' fresh nonces, never the token itself, and
 * every frame of the answer is bound to the same nonces. So a process that
 * reaches the socket without the token can neither ask the decider nor pose
 * as it, nor change an answer it relays.
 *
 * SHA-256 and HMAC (FIPS 180-4, RFC 2104) are written here rather than taken
 * from a library, because of where they run: in a fresh Node process for
 * every tool call a host makes, three times. Loading node:crypto (OpenSSL)
 * costs such a process 6–7 ms; @noble/hashes, made for the job, spent about
 * 3 ms running its general-purpose hash classes cold; this one function runs
 * the three in well under one. It is checked against node:crypto on RFC
 * 4231's vectors and on random keys and messages of every length around the
 * block boundaries (hook-decider-proof.test.ts).
 */

/**
 * The proof of `label` over `parts`, keyed with the token.
 *
 * @example
 * proofOf({ token, label: 'decider', parts: [clientNonce, deciderNonce] }) // '3f1c…' (64 hex digits)
 */
export function proofOf(options: { token: string; label: 'decider' | 'client' | 'answer_by' | 'answer'; parts: readonly string[] }): string {
  const message = Buffer.from([options.label, ...options.parts].join('\u0000'), 'utf8');
  return Buffer.from(macWith(keyedWith(options.token), message)).toString('hex');
}

/** Compared in time independent of where they differ. */
export function sameProof(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  let difference = 0;
  for (let index = 0; index < expected.length; index++) difference |= given.charCodeAt(index) ^ expected.charCodeAt(index);
  return difference === 0;
}

/** A nonce: unpredictable enough that an answer cannot be prepared before the call, without loading node:crypto. */
export function freshNonce(): string {
  return `${process.pid.toString(36)}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

/**
 * HMAC-SHA256 of `message` under `key`.
 *
 * @example
 * Buffer.from(hmacSha256(Buffer.from('Jefe'), Buffer.from('what do ya want for nothing?'))).toString('hex') // '5bdcc146…'
 */
export function hmacSha256(key: Uint8Array, message: Uint8Array): Uint8Array {
  return macWith(keyed(key), message);
}

/** An HMAC key taken in: the SHA-256 states after its inner and its outer padded block. */
interface Keyed {
  inner: Int32Array;
  outer: Int32Array;
}

/** Takes the token's key in now, while waiting on the other side: the proofs that follow start from it. */
export function prepareProofs(token: string): void {
  keyedWith(token);
}

/** The key of the last token used (a hook proves and checks three frames with one token, a decider all its calls). */
let lastKeyed: { token: string; keyed: Keyed } | undefined;

function keyedWith(token: string): Keyed {
  if (lastKeyed?.token !== token) lastKeyed = { token, keyed: keyed(Buffer.from(token, 'utf8')) };
  return lastKeyed.keyed;
}

function keyed(key: Uint8Array): Keyed {
  const block = new Uint8Array(BLOCK_BYTES);
  block.set(key.length > BLOCK_BYTES ? digestFrom(INITIAL, key, 0) : key);
  const padded = (pad: number): Int32Array => {
    const state = INITIAL.slice();
    compress(state, new DataView(block.map((byte) => byte ^ pad).buffer), 0);
    return state;
  };
  return { inner: padded(0x36), outer: padded(0x5c) };
}

function macWith(key: Keyed, message: Uint8Array): Uint8Array {
  return digestFrom(key.outer, digestFrom(key.inner, message, BLOCK_BYTES), BLOCK_BYTES);
}

const BLOCK_BYTES = 64;
const INITIAL = Int32Array.of(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19);
// prettier-ignore
const ROUND = Int32Array.of(
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
);
const schedule = new Int32Array(64);

/**
 * The SHA-256 digest of `bytes` following a prefix of `prefixBytes` (whole
 * blocks) already taken into `start`, which is left as it was.
 */
function digestFrom(start: Int32Array, bytes: Uint8Array, prefixBytes: number): Uint8Array {
  const state = start.slice();
  // The message, a 1 bit, zeros, and its length in bits (64 bits, big-endian) closing the last block.
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / BLOCK_BYTES) * BLOCK_BYTES);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  const totalBytes = prefixBytes + bytes.length;
  view.setUint32(padded.length - 8, Math.floor(totalBytes / 0x20000000));
  view.setUint32(padded.length - 4, (totalBytes * 8) >>> 0);
  for (let offset = 0; offset < padded.length; offset += BLOCK_BYTES) compress(state, view, offset);
  const digest = new Uint8Array(32);
  const out = new DataView(digest.buffer);
  for (let word = 0; word < 8; word++) out.setInt32(word * 4, state[word]!);
  return digest;
}

/** One 64-byte block of `view` at `offset` into `state` (FIPS 180-4, 6.2.2). */
function compress(state: Int32Array, view: DataView, offset: number): void {
  const w = schedule;
  for (let index = 0; index < 16; index++) w[index] = view.getInt32(offset + index * 4);
  for (let index = 16; index < 64; index++) {
    const early = w[index - 15]!;
    const late = w[index - 2]!;
    const sigma0 = ((early >>> 7) | (early << 25)) ^ ((early >>> 18) | (early << 14)) ^ (early >>> 3);
    const sigma1 = ((late >>> 17) | (late << 15)) ^ ((late >>> 19) | (late << 13)) ^ (late >>> 10);
    w[index] = (w[index - 16]! + sigma0 + w[index - 7]! + sigma1) | 0;
  }
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  let f = state[5]!;
  let g = state[6]!;
  let h = state[7]!;
  for (let index = 0; index < 64; index++) {
    const sum1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const first = (h + sum1 + ((e & f) ^ (~e & g)) + ROUND[index]! + w[index]!) | 0;
    const sum0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const second = (sum0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + first) | 0;
    d = c;
    c = b;
    b = a;
    a = (first + second) | 0;
  }
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
  state[4] = (state[4]! + e) | 0;
  state[5] = (state[5]! + f) | 0;
  state[6] = (state[6]! + g) | 0;
  state[7] = (state[7]! + h) | 0;
}
