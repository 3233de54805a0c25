import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizePolicy } from './policy/normalize-policy.ts';
import { DEFAULT_REDACT_KEYS, maskSecrets, REDACTED, redact, redactSecretsInText, secretMask } from './redact.ts';

const KEYS = new Set(['password', 'secret', 'token', 'api_key', 'authorization']);

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

describe('redact', () => {
  it('replaces the values of sensitive keys at any depth, in arrays too', () => {
    const input = {
      user: 'alice',
      password: 'hunter2',
      config: { db: { secret: 's3', host: 'db' }, list: [{ token: 't1' }, { name: 'x' }] },
    };
    expect(redact(input, KEYS)).toEqual({
      user: 'alice',
      password: REDACTED,
      config: { db: { secret: REDACTED, host: 'db' }, list: [{ token: REDACTED }, { name: 'x' }] },
    });
  });

  it('matches keys case-insensitively and ignores - and _ (X-Api-Key, apiKey, API_KEY)', () => {
    const output = redact({ 'X-Api-Key': 'a', apiKey: 'b', API_KEY: 'c', Authorization: 'Bearer x', 'api-key': 'd' }, KEYS) as Record<string, unknown>;
    expect(Object.values(output)).toEqual([REDACTED, REDACTED, REDACTED, REDACTED, REDACTED]);
  });

  it('matches keys that contain a sensitive word (db_password, accessToken, client_secret)', () => {
    const output = redact({ db_password: 'a', accessToken: 'b', client_secret: 'c', passwd: 'not matched', username: 'u' }, KEYS);
    expect(output).toEqual({ db_password: REDACTED, accessToken: REDACTED, client_secret: REDACTED, passwd: 'not matched', username: 'u' });
  });

  it('replaces a whole object or array under a sensitive key', () => {
    expect(redact({ secret: { nested: 'x', list: [1, 2] }, token: ['a', 'b'] }, KEYS)).toEqual({ secret: REDACTED, token: REDACTED });
  });

  it('redacts null, numbers and booleans under sensitive keys, too', () => {
    expect(redact({ password: null, token: 0, secret: false }, KEYS)).toEqual({ password: REDACTED, token: REDACTED, secret: REDACTED });
  });

  it('never mutates its input', () => {
    const input = deepFreeze({ password: 'p', nested: { token: 't', list: [{ secret: 's' }] } });
    const before = JSON.stringify(input);
    expect(() => redact(input, KEYS)).not.toThrow();
    expect(JSON.stringify(input)).toBe(before);
    expect(redact(input, KEYS)).not.toBe(input);
  });

  it('returns primitives as they are', () => {
    for (const value of ['password', 1, true, null, undefined]) expect(redact(value, KEYS)).toBe(value);
  });

  it('with no keys, returns the value unchanged', () => {
    const input = { password: 'p' };
    expect(redact(input, new Set())).toBe(input);
  });

  it('keeps __proto__ a data key (no prototype pollution) and redacts inside it', () => {
    const input = JSON.parse('{"__proto__": {"password": "p", "isAdmin": true}, "constructor": {"token": "t"}}') as unknown;
    const output = redact(input, KEYS) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.keys(output)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(output, '__proto__')?.value).toEqual({ password: REDACTED, isAdmin: true });
    expect((output as { isAdmin?: unknown }).isAdmin).toBeUndefined();
    expect(({} as { isAdmin?: unknown }).isAdmin).toBeUndefined();
    expect(output.constructor).toEqual({ token: REDACTED });
  });

  it('terminates on cycles and absurd depth, without throwing and without leaking', () => {
    const cyclic: Record<string, unknown> = { name: 'x', password: 'p' };
    cyclic.self = cyclic;
    const output = redact(cyclic, KEYS);
    expect(JSON.stringify(output, (_key, value: unknown) => value)).not.toContain('"p"');

    let deep: unknown = { password: 'deep-secret' };
    for (let index = 0; index < 200; index++) deep = { d: deep };
    expect(JSON.stringify(redact(deep, KEYS))).not.toContain('deep-secret');
  });

  it('never lets a value under a sensitive key through (property)', () => {
    const sensitiveKey = fc.constantFrom('password', 'Password', 'db_password', 'X-Api-Key', 'apiKey', 'authorization', 'refresh_token', 'SECRET');
    const plainKey = fc.constantFrom('name', 'path', 'to', 'body', 'items', 'id');
    const marker = 'MARKER-5ecret';
    const tree = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('plain', 1, null, true),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(plainKey, tie('node'), { maxKeys: 3 }),
        fc.tuple(sensitiveKey, tie('node')).map(([key, node]) => ({ [key]: { marker, node } })),
        fc.tuple(sensitiveKey).map(([key]) => ({ [key]: marker })),
      ),
    })).node;
    fc.assert(
      fc.property(tree, (value) => {
        const before = JSON.stringify(value);
        const output = redact(value, KEYS);
        expect(JSON.stringify(output) ?? '').not.toContain(marker);
        expect(JSON.stringify(value)).toBe(before);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the shape of data with no sensitive keys (property)', () => {
    const safeKey = fc.string().filter((key) => !/pass|secret|token|api|auth/i.test(key.replace(/[-_]/g, '')));
    const safe = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 0 }), fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(safeKey, tie('node'), { maxKeys: 3 })),
    })).node;
    fc.assert(
      fc.property(safe, (value) => {
        expect(redact(value, KEYS)).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });
});

describe('maskSecrets', () => {
  it('masks secret values with their size, counts them, and leaves the rest', () => {
    const { value, masked } = maskSecrets({ to: 'bob', password: 'hunter2', nested: { api_key: { id: 1 } }, list: [{ token: null }] }, KEYS);
    expect(value).toEqual({ to: 'bob', password: '‹secret: 7 characters›', nested: { api_key: '‹secret: object›' }, list: [{ token: '‹secret: null›' }] });
    expect(masked).toBe(3);
    expect(JSON.stringify(value)).not.toContain('hunter2');
  });

  it('counts characters, not UTF-16 units, and never shows any of them', () => {
    expect(maskSecrets({ secret: '😀x' }, KEYS).value).toEqual({ secret: '‹secret: 2 characters›' });
    expect(secretMask('a')).toBe('‹secret: 1 character›');
  });

  it('masks nothing without keys', () => {
    expect(maskSecrets({ password: 'p' }, new Set())).toEqual({ value: { password: 'p' }, masked: 0 });
  });
});

describe('DEFAULT_REDACT_KEYS', () => {
  it('is what a policy without redact.keys redacts; a policy list replaces it, an empty one redacts nothing', () => {
    expect([...normalizePolicy({}).redact.keys].sort()).toEqual([...DEFAULT_REDACT_KEYS].sort());
    expect([...normalizePolicy({ redact: { keys: ['PIN'] } }).redact.keys]).toEqual(['pin']);
    expect(normalizePolicy({ redact: { keys: [] } }).redact.keys.size).toBe(0);
  });

  it('covers the usual secret names', () => {
    const keys = new Set(DEFAULT_REDACT_KEYS);
    const output = redact(
      { password: 'a', client_secret: 'b', access_token: 'c', 'X-Api-Key': 'd', Authorization: 'e', Cookie: 'f', private_key: 'g', aws_access_key_id: 'h', credentials: 'i', path: 'j' },
      keys,
    ) as Record<string, unknown>;
    expect(Object.entries(output).filter(([, value]) => value !== REDACTED)).toEqual([['path', 'j']]);
  });
});

describe('redactSecretsInText', () => {
  it('replaces secret values quoted in a message, raw and JSON-escaped, at any depth', () => {
    const value = { user: 'ana', password: 'p"ss-word', nested: { api_key: ['key-1234', 'key-5678'] } };
    const text = `invalid input: {"user":"ana","password":"p\\"ss-word","nested":{"api_key":["key-1234","key-5678"]}} (p"ss-word)`;
    const result = redactSecretsInText({ text, value, keys: KEYS });
    expect(result).not.toMatch(/ss-word|key-1234|key-5678/);
    expect(result).toContain('"user":"ana"');
  });

  it('catches the start of a secret cut off at the end of a shortened message', () => {
    const value = { token: 'sekret-0123456789' };
    expect(redactSecretsInText({ text: 'failed: Value: {"token":"sekret-01...', value, keys: KEYS })).toBe(`failed: Value: {"token":"${REDACTED}...`);
    expect(redactSecretsInText({ text: 'failed: {"token":"sekret-0123…', value, keys: KEYS })).toBe(`failed: {"token":"${REDACTED}…`);
  });

  it('leaves very short secrets and text without secrets alone', () => {
    expect(redactSecretsInText({ text: 'abc def', value: { token: 'ab' }, keys: KEYS })).toBe('abc def');
    expect(redactSecretsInText({ text: 'plain', value: { token: 'zzzzzz' }, keys: KEYS })).toBe('plain');
  });
});
