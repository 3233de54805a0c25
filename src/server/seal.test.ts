import { describe, expect, it } from 'vitest';
import { createSealer } from './seal.ts';

const SECRET = 'a-server-secret-of-at-least-32-bytes-0123456789';

describe('createSealer', () => {
  it('opens what it sealed, and the sealed text does not contain the secret it hides', () => {
    const sealer = createSealer(SECRET);
    const text = JSON.stringify({ password: 'hunter2-hunter2' });
    const sealed = sealer.seal(text);
    expect(sealed).not.toContain('hunter2');
    expect(sealer.unseal(sealed)).toBe(text);
    // Fresh IV each time.
    expect(sealer.seal(text)).not.toBe(sealed);
  });

  it('refuses a changed record, another key, and text that was never sealed', () => {
    const sealer = createSealer(SECRET);
    const sealed = sealer.seal('approve me');
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    expect(() => sealer.unseal(`v1.${bytes.toString('base64url')}`)).toThrow(/does not open/);
    expect(() => createSealer(`${SECRET}-other`).unseal(sealed)).toThrow(/does not open/);
    expect(() => sealer.unseal('{"plain":true}')).toThrow(/not a sealed record/);
    expect(() => sealer.unseal('v1.abc')).toThrow(/truncated/);
  });
});
