import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadServerSecrets } from './server-secrets.ts';

const directories: string[] = [];
function stateDirectory(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-secrets-'));
  directories.push(root);
  return path.join(root, '.toolgate');
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('loadServerSecrets', () => {
  it('makes both secrets on first start, in 0600 files, and reads the same ones back', () => {
    const state = stateDirectory();
    const first = loadServerSecrets({ stateDirectory: state, env: {} });
    expect(first.adminToken).toMatch(/^tg_/);
    expect(first.adminTokenSource).toBe(path.join(state, 'server-token'));
    for (const name of ['server-token', 'server-secret']) expect(statSync(path.join(state, name)).mode & 0o777).toBe(0o600);
    expect(loadServerSecrets({ stateDirectory: state, env: {} })).toEqual(first);
  });

  it('takes them from the environment, writing no file for them', () => {
    const state = stateDirectory();
    const secrets = loadServerSecrets({ stateDirectory: state, env: { TOOLGATE_ADMIN_TOKEN: 'an-admin-token-long-enough', TOOLGATE_SERVER_SECRET: 'x'.repeat(32) } });
    expect(secrets).toEqual({ adminToken: 'an-admin-token-long-enough', adminTokenSource: 'TOOLGATE_ADMIN_TOKEN', secret: 'x'.repeat(32), secretSource: 'TOOLGATE_SERVER_SECRET' });
    expect(() => statSync(path.join(state, 'server-token'))).toThrow();
  });

  it('refuses a short admin token or secret, and an empty secret file, saying what to do', () => {
    const state = stateDirectory();
    expect(() => loadServerSecrets({ stateDirectory: state, env: { TOOLGATE_ADMIN_TOKEN: 'short' } })).toThrow(/TOOLGATE_ADMIN_TOKEN is too short.*at least 16/);
    expect(() => loadServerSecrets({ stateDirectory: state, env: { TOOLGATE_SERVER_SECRET: 'short' } })).toThrow(/TOOLGATE_SERVER_SECRET must be at least 32 bytes/);
    mkdirSync(state, { recursive: true });
    writeFileSync(path.join(state, 'server-token'), '\n');
    expect(() => loadServerSecrets({ stateDirectory: state, env: {} })).toThrow(/server-token is empty; delete it to have a new one made/);
    expect(readFileSync(path.join(state, 'server-token'), 'utf8')).toBe('\n');
  });
});
