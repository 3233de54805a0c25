import { describe, expect, it } from 'vitest';
import { runStateSignatureMatches, signRunState } from './run-state-signature.ts';

const state = { sessionId: 's1', messages: [{ role: 'user', content: 'hi' }], pending: [{ toolCallId: 'c1', args: { path: 'a.txt' } }] };

describe('run state signatures under remembered keys', () => {
  it('checks each signature only under the secret that made it, across more secrets than are remembered', async () => {
    const secrets = Array.from({ length: 20 }, (_, index) => `secret-${index}-`.padEnd(40, 'x'));
    const signatures = await Promise.all(secrets.map((secret) => signRunState({ state, secret })));
    expect(new Set(signatures).size).toBe(secrets.length);
    for (const [index, secret] of secrets.entries()) {
      expect(await runStateSignatureMatches({ state, signature: signatures[index]!, secret })).toBe(true);
      expect(await runStateSignatureMatches({ state, signature: signatures[(index + 1) % secrets.length]!, secret })).toBe(false);
    }
  });

  it('derives a new key when a byte secret is changed in place, and tells a text secret from the same bytes', async () => {
    const bytes = new Uint8Array(32).fill(7);
    const before = await signRunState({ state, secret: bytes });
    bytes[0] = 8;
    const after = await signRunState({ state, secret: bytes });
    expect(after).not.toBe(before);
    expect(await runStateSignatureMatches({ state, signature: before, secret: bytes })).toBe(false);
    expect(await runStateSignatureMatches({ state, signature: after, secret: bytes })).toBe(true);
    // The same key material given as text or as bytes signs alike: the cache keeps them apart, not the signature.
    const text = 'a'.repeat(32);
    expect(await signRunState({ state, secret: new TextEncoder().encode(text) })).toBe(await signRunState({ state, secret: text }));
  });

  it('still accepts the signatures earlier versions made (states paused before an upgrade resume after it)', async () => {
    // Made by the WebCrypto implementation of 2026-11-28, before signing moved to digests.ts.
    const secret = 'a secret of earlier toolgate versions, 0123456789';
    expect(await signRunState({ state, secret })).toBe('ulW3T-FQNxZjKD-y-sKs_2uvdr93btNWQKfnhmdgC_Y');
    expect(await runStateSignatureMatches({ state, signature: 'ulW3T-FQNxZjKD-y-sKs_2uvdr93btNWQKfnhmdgC_Y', secret })).toBe(true);
  });

  it('refuses a changed state or a malformed signature', async () => {
    const secret = 'the-one-secret-of-this-test-0123456789';
    const signature = await signRunState({ state, secret });
    expect(await runStateSignatureMatches({ state: { ...state, sessionId: 's2' }, signature, secret })).toBe(false);
    expect(await runStateSignatureMatches({ state, signature: `${signature.slice(0, -1)}A`, secret })).toBe(signature.endsWith('A'));
    expect(await runStateSignatureMatches({ state, signature: 'not base64url!', secret })).toBe(false);
  });
});
