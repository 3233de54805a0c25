import { describe, expect, it } from 'vitest';
import { digests, equalBytes, fromBase64url, nodeDigests, toBase64url, webCryptoDigests } from './digests.ts';

const encoder = new TextEncoder();
const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

describe('digests: node:crypto where the runtime has it, WebCrypto elsewhere, the same bytes', () => {
  it('uses node:crypto on Node', () => {
    expect(nodeDigests).toBeDefined();
    expect(digests).toBe(nodeDigests);
  });

  for (const [name, implementation] of [
    ['node:crypto', nodeDigests!],
    ['WebCrypto', webCryptoDigests],
  ] as const) {
    it(`${name}: the published test vectors (FIPS 180-2 "abc", RFC 4231 test case 2)`, async () => {
      expect(hex(await implementation.sha256(encoder.encode('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      expect(hex(await implementation.hmacSha256(encoder.encode('Jefe'), encoder.encode('what do ya want for nothing?')))).toBe(
        '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
      );
    });

    it(`${name}: a signer prepared for one key signs as hmacSha256 does, every time, and keeps the key it was given`, async () => {
      const key = encoder.encode('Jefe');
      const sign = await implementation.hmacSha256Signer(key);
      // Changing the caller's bytes afterwards must not change the signer's key.
      key.fill(0);
      for (let round = 0; round < 3; round++) {
        expect(hex(await sign(encoder.encode('what do ya want for nothing?')))).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
      }
      const other = Uint8Array.from({ length: 100 }, (_, index) => index);
      expect(hex(await (await implementation.hmacSha256Signer(other))(encoder.encode('data')))).toBe(hex(await implementation.hmacSha256(other, encoder.encode('data'))));
    });
  }

  it('agrees between the two on keys and data of every length, keys longer than a block included', async () => {
    // From 1: WebCrypto refuses an empty HMAC key (and no secret is empty).
    for (const length of [1, 31, 32, 63, 64, 65, 200, 5000]) {
      const key = Uint8Array.from({ length }, (_, index) => (index * 7 + length) & 0xff);
      const data = Uint8Array.from({ length: length * 3 }, (_, index) => (index * 13) & 0xff);
      expect(hex(await nodeDigests!.hmacSha256(key, data))).toBe(hex(await webCryptoDigests.hmacSha256(key, data)));
      expect(hex(await nodeDigests!.sha256(data))).toBe(hex(await webCryptoDigests.sha256(data)));
    }
  });

  it('WebCrypto: no signer is made for a key it refuses (empty): the promise of one rejects', async () => {
    await expect(webCryptoDigests.hmacSha256Signer(new Uint8Array(0))).rejects.toThrow();
  });

  it('compares bytes: equal, one bit off, another length', () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, index) => index);
    expect(equalBytes(bytes, Uint8Array.from(bytes))).toBe(true);
    const flipped = Uint8Array.from(bytes);
    flipped[31] = flipped[31]! ^ 1;
    expect(equalBytes(bytes, flipped)).toBe(false);
    expect(equalBytes(bytes, bytes.subarray(0, 31))).toBe(false);
  });

  it('round-trips base64url without padding', () => {
    for (const length of [0, 1, 2, 3, 32]) {
      const bytes = Uint8Array.from({ length }, (_, index) => 250 - index);
      const text = toBase64url(bytes);
      expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
      expect(Array.from(fromBase64url(text))).toEqual(Array.from(bytes));
    }
  });
});
