import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacSha256, proofOf, sameProof } from './hook-decider-proof.ts';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const reference = (key: Uint8Array, message: Uint8Array): string => createHmac('sha256', key).update(message).digest('hex');

describe('hmacSha256', () => {
  it("gives RFC 4231's HMAC-SHA256 test vectors", () => {
    const vectors: Array<[key: Buffer, message: Buffer, mac: string]> = [
      [Buffer.alloc(20, 0x0b), Buffer.from('Hi There'), 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'],
      [Buffer.from('Jefe'), Buffer.from('what do ya want for nothing?'), '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'],
      [Buffer.alloc(20, 0xaa), Buffer.alloc(50, 0xdd), '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe'],
      [Buffer.from('0102030405060708090a0b0c0d0e0f10111213141516171819', 'hex'), Buffer.alloc(50, 0xcd), '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b'],
      [Buffer.alloc(131, 0xaa), Buffer.from('Test Using Larger Than Block-Size Key - Hash Key First'), '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54'],
      [
        Buffer.alloc(131, 0xaa),
        Buffer.from('This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.'),
        '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
      ],
    ];
    for (const [key, message, mac] of vectors) expect(hex(hmacSha256(key, message))).toBe(mac);
  });

  it('agrees with node:crypto for keys and messages of every length around the block and padding boundaries', () => {
    for (const keyLength of [0, 1, 32, 63, 64, 65, 128]) {
      for (let messageLength = 0; messageLength <= 200; messageLength++) {
        const key = Buffer.alloc(keyLength, (keyLength * 7) & 0xff);
        const message = Buffer.from(Array.from({ length: messageLength }, (_, index) => (index * 31 + keyLength) & 0xff));
        expect(hex(hmacSha256(key, message)), `key ${keyLength} bytes, message ${messageLength} bytes`).toBe(reference(key, message));
      }
    }
  });

  it('agrees with node:crypto on random keys and messages', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 2000 }), (key, message) => {
        expect(hex(hmacSha256(key, message))).toBe(reference(key, message));
      }),
      { numRuns: 500 },
    );
  });
});

describe('proofOf', () => {
  it('is the HMAC of the label and the parts, joined by NUL, under the token, whichever token came last', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.array(fc.string(), { maxLength: 4 }), (first, second, parts) => {
        for (const token of [first, second, first]) {
          const expected = createHmac('sha256', Buffer.from(token, 'utf8')).update(Buffer.from(['client', ...parts].join('\u0000'), 'utf8')).digest('hex');
          expect(proofOf({ token, label: 'client', parts })).toBe(expected);
        }
      }),
    );
  });

  it('differs by label, by part and by where the parts split', () => {
    const token = 'a'.repeat(64);
    const proofs = [
      proofOf({ token, label: 'client', parts: ['n1', 'n2'] }),
      proofOf({ token, label: 'decider', parts: ['n1', 'n2'] }),
      proofOf({ token, label: 'client', parts: ['n2', 'n1'] }),
      proofOf({ token, label: 'client', parts: ['n1n', '2'] }),
      proofOf({ token: 'b'.repeat(64), label: 'client', parts: ['n1', 'n2'] }),
    ];
    expect(new Set(proofs).size).toBe(proofs.length);
  });
});

describe('sameProof', () => {
  it('accepts only the same string', () => {
    const proof = proofOf({ token: 't', label: 'answer', parts: ['x'] });
    expect(sameProof(proof, proof)).toBe(true);
    expect(sameProof(`${proof.slice(0, -1)}${proof.endsWith('0') ? '1' : '0'}`, proof)).toBe(false);
    expect(sameProof(proof.slice(1), proof)).toBe(false);
    expect(sameProof(undefined, proof)).toBe(false);
    expect(sameProof(42, proof)).toBe(false);
  });
});
