import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite-store.ts';
import type { ToolgateStore } from '../store/store.ts';
import { createApiToken, hashToken, isAdminToken, newToken, principalForToken, TokenNameError, tokenNameProblem } from './tokens.ts';

let directory: string;
let store: ToolgateStore;

beforeAll(() => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-tokens-'));
  store = openSqliteStore({ file: path.join(directory, 'toolgate.db') });
});
afterAll(async () => {
  await store.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('tokens', () => {
  it('newToken: tg_ and 32 random bytes in base64url, never the same twice', () => {
    const tokens = Array.from({ length: 200 }, () => newToken());
    for (const token of tokens) {
      expect(token).toMatch(/^tg_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token.slice(3), 'base64url')).toHaveLength(32);
    }
    expect(new Set(tokens).size).toBe(200);
  });

  it('hashToken: SHA-256, hex', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('createApiToken stores only the hash, under the name and role', async () => {
    const token = await createApiToken({ store, name: 'alice', role: 'approver' });
    const [stored] = await store.listTokens();
    expect(stored).toMatchObject({ name: 'alice', role: 'approver', hash: hashToken(token), revokedAt: null });
    expect(JSON.stringify(await store.listTokens())).not.toContain(token);
  });

  it('names: 1 to 64 of [A-Za-z0-9._-], not reserved, not taken (also after a revoke)', async () => {
    for (const name of ['a', 'ci.bot-2_x', 'x'.repeat(64)]) expect(tokenNameProblem(name)).toBeUndefined();
    for (const name of ['', 'x'.repeat(65), 'with space', 'ünï', 'a/b', 'a\nb', '../x']) expect(tokenNameProblem(name)).toMatch(/may hold only letters, digits/);
    for (const name of ['admin', 'Admin', 'timeout', 'system']) expect(tokenNameProblem(name)).toMatch(/is reserved/);
    await expect(createApiToken({ store, name: 'bad name', role: 'admin' })).rejects.toMatchObject({ name: 'TokenNameError', code: 'TOKEN_NAME_INVALID' });
    await expect(createApiToken({ store, name: 'x', role: 'root' as 'admin' })).rejects.toMatchObject({ code: 'TOKEN_ROLE_INVALID' });
    await createApiToken({ store, name: 'gone', role: 'submitter' });
    await store.revokeToken('gone');
    const taken = createApiToken({ store, name: 'gone', role: 'submitter' });
    await expect(taken).rejects.toBeInstanceOf(TokenNameError);
    await expect(taken).rejects.toThrow('a token named "gone" exists already (names stay taken after a revoke): choose another name');
  });

  it('principalForToken: the admin token, a live token; never a revoked, unknown or malformed one', async () => {
    const admin = newToken();
    const adminTokenHash = hashToken(admin);
    const token = await createApiToken({ store, name: 'bob', role: 'submitter' });
    expect(await principalForToken({ token: admin, store, adminTokenHash })).toEqual({ name: 'admin', role: 'admin' });
    expect(await principalForToken({ token, store, adminTokenHash })).toEqual({ name: 'bob', role: 'submitter' });
    expect(await principalForToken({ token: newToken(), store, adminTokenHash })).toBeUndefined();
    expect(await principalForToken({ token: hashToken(token), store, adminTokenHash })).toBeUndefined();
    await store.revokeToken('bob');
    expect(await principalForToken({ token, store, adminTokenHash })).toBeUndefined();
  });

  it('isAdminToken compares hashes; a configured hash of the wrong length never matches', () => {
    const admin = 'any admin text from the environment';
    expect(isAdminToken({ token: admin, adminTokenHash: hashToken(admin) })).toBe(true);
    expect(isAdminToken({ token: `${admin} `, adminTokenHash: hashToken(admin) })).toBe(false);
    expect(isAdminToken({ token: admin, adminTokenHash: '' })).toBe(false);
    expect(isAdminToken({ token: admin, adminTokenHash: hashToken(admin).slice(0, 32) })).toBe(false);
    expect(isAdminToken({ token: admin, adminTokenHash: 'zz' })).toBe(false);
  });
});
