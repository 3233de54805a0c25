import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
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
    writeFileSync(path.join(state, 'server-token'), '\n', { mode: 0o600 });
    expect(() => loadServerSecrets({ stateDirectory: state, env: {} })).toThrow(/server-token is empty; delete it to have a new one made/);
    expect(readFileSync(path.join(state, 'server-token'), 'utf8')).toBe('\n');
  });

  it('takes a long enough secret written by hand into a 0600 file', () => {
    const state = stateDirectory();
    mkdirSync(state, { recursive: true });
    writeFileSync(path.join(state, 'server-token'), 'a-hand-made-admin-token\n', { mode: 0o600 });
    writeFileSync(path.join(state, 'server-secret'), `${'s'.repeat(32)}\n`, { mode: 0o600 });
    const secrets = loadServerSecrets({ stateDirectory: state, env: {} });
    expect(secrets.adminToken).toBe('a-hand-made-admin-token');
    expect(secrets.secret).toBe('s'.repeat(32));
  });

  it('gives servers started at the same moment one and the same secret, never an empty file', async () => {
    // Real processes racing on one fresh directory: a file made empty and
    // filled afterwards was read empty by the loser (CI saw it).
    const state = stateDirectory();
    const program = `import { loadServerSecrets } from ${JSON.stringify(path.resolve('src/server/server-secrets.ts'))};
const start = Number(process.argv[1]);
while (Date.now() < start) {}
const { adminToken, secret } = loadServerSecrets({ stateDirectory: ${JSON.stringify(state)}, env: {} });
process.stdout.write(JSON.stringify({ adminToken, secret }));`;
    const start = Date.now() + 1_500;
    const results = await Promise.all(
      Array.from({ length: 12 }, () => new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', program, String(start)], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.once('exit', (code) => resolve({ code, stdout, stderr }));
      })),
    );
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    expect(new Set(results.map((result) => result.stdout)).size).toBe(1);
    expect(readdirSync(state).sort(), 'no temporary file is left behind').toEqual(['server-secret', 'server-token']);
  }, 60_000);
});

describe('loadServerSecrets refuses secret files it cannot trust', () => {
  /** A state directory holding `name` with `content` at `mode`. */
  function stateWith(name: string, content: string, mode = 0o600): { state: string; file: string } {
    const state = stateDirectory();
    mkdirSync(state, { recursive: true });
    const file = path.join(state, name);
    writeFileSync(file, content);
    chmodSync(file, mode);
    return { state, file };
  }

  it('an admin token file shorter than the 16 characters the environment variable needs', () => {
    const { state, file } = stateWith('server-token', 'a\n');
    expect(() => loadServerSecrets({ stateDirectory: state, env: {} })).toThrow(`${file} (the admin token) is too short to be a secret: 1 character long (at least 16 are needed); delete it to have a new one generated`);
    expect(readFileSync(file, 'utf8'), 'the file is left for the person to look at').toBe('a\n');
  });

  it('a server secret file shorter than 32 bytes: it signs approvals and seals stored runs', () => {
    const { state, file } = stateWith('server-secret', 'b\n');
    writeFileSync(path.join(state, 'server-token'), 'an-admin-token-long-enough\n', { mode: 0o600 });
    expect(() => loadServerSecrets({ stateDirectory: state, env: {} })).toThrow(`${file} (the server secret) is too short to be a secret: 1 byte long (at least 32 are needed)`);
    // The environment variable, when set, is used instead of the file.
    expect(loadServerSecrets({ stateDirectory: state, env: { TOOLGATE_SERVER_SECRET: 'x'.repeat(32) } }).secret).toBe('x'.repeat(32));
  });

  it('a file group or others can read or change, naming its mode and the chmod that fixes it', () => {
    for (const mode of [0o644, 0o640, 0o620, 0o604, 0o602]) {
      const { state, file } = stateWith('server-token', 'an-admin-token-long-enough\n', mode);
      expect(() => loadServerSecrets({ stateDirectory: state, env: {} })).toThrow(`${file} (the admin token) can be read or changed by group or others (mode 0${mode.toString(8)}): run \`chmod 600 ${file}\`, or delete it to have a new one generated`);
      chmodSync(file, 0o600);
      expect(loadServerSecrets({ stateDirectory: state, env: {} }).adminToken).toBe('an-admin-token-long-enough');
    }
  });

  it('a symlink, even to a good file: the secret would be whatever it points to', () => {
    const { state, file } = stateWith('elsewhere', 'an-admin-token-long-enough\n');
    symlinkSync(file, path.join(state, 'server-token'));
    expect(() => loadServerSecrets({ stateDirectory: state, env: {} })).toThrow(/server-token \(the admin token\) is a symlink, so the secret would be whatever it points to: replace the link with a file of its own, or delete it/);
    // A dangling link is not a missing file: nothing is written through it.
    rmSync(file);
    expect(() => loadServerSecrets({ stateDirectory: state, env: {} })).toThrow(/is a symlink/);
    expect(() => statSync(file)).toThrow();
  });

  it('a directory or a named pipe in the file\'s place, without blocking on the pipe', () => {
    const state = stateDirectory();
    mkdirSync(path.join(state, 'server-token'), { recursive: true });
    expect(() => loadServerSecrets({ stateDirectory: state, env: {} })).toThrow(/server-token \(the admin token\) is a directory, not a regular file: delete it to have a new one generated/);
    rmSync(path.join(state, 'server-token'), { recursive: true });
    execFileSync('mkfifo', ['-m', '600', path.join(state, 'server-token')]);
    expect(() => loadServerSecrets({ stateDirectory: state, env: {} })).toThrow(/is a named pipe, not a regular file/);
  });

  it('a file another user owns: its owner could read or replace the secret', () => {
    const { state, file } = stateWith('server-token', 'an-admin-token-long-enough\n');
    const owner = statSync(file).uid;
    const getuid = vi.spyOn(process, 'getuid').mockReturnValue(owner + 1);
    try {
      expect(() => loadServerSecrets({ stateDirectory: state, env: {} })).toThrow(`${file} (the admin token) belongs to user id ${owner}, not to the user running toolgate (${owner + 1}), so its owner could read or replace it: delete it to have a new one generated`);
    } finally {
      getuid.mockRestore();
    }
  });
});
