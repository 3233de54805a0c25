import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { hashToken, principalForToken } from '../../server/tokens.ts';
import { openSqliteStore } from '../../store/sqlite-store.ts';
import type { CliIo } from '../cli-io.ts';
import { runTokenCommand } from './token-command.ts';

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

function project(policy?: string): string {
  const directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-token-')));
  directories.push(directory);
  if (policy !== undefined) writeFileSync(path.join(directory, 'toolgate.yaml'), policy);
  return directory;
}

async function token(argv: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text), isTTY: false },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    stdin: Readable.from([]) as unknown as CliIo['stdin'],
    env: { ...process.env, TOOLGATE_STATE_HOME: path.join(cwd, '.state') },
    cwd,
  };
  const code = await runTokenCommand(argv, io);
  return { code, stdout, stderr };
}

/** The exit code main gives a thrown error (UsageError 2, PolicyError 3), with its message. */
async function tokenExit(argv: string[], cwd: string): Promise<{ code: number; message: string }> {
  try {
    const result = await token(argv, cwd);
    return { code: result.code, message: result.stderr };
  } catch (error) {
    const name = (error as Error).name;
    return { code: name === 'UsageError' ? 2 : name === 'PolicyError' ? 3 : 1, message: (error as Error).message };
  }
}

const store = (directory: string) => path.join(directory, '.toolgate', 'toolgate.db');

describe('toolgate token', () => {
  it('create prints the token alone on one line, once; only its hash is stored, beside the policy', async () => {
    const directory = project('mode: interactive\n');
    const result = await token(['create', 'alice', '--role', 'approver'], directory);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^tg_[A-Za-z0-9_-]{43}\n$/);
    expect(result.stderr).toContain(`token "alice" (approver) created in ${store(directory)}; it is shown only this once`);
    const created = result.stdout.trim();
    const opened = openSqliteStore({ file: store(directory) });
    try {
      expect(await principalForToken({ token: created, store: opened, adminTokenHash: hashToken('other') })).toEqual({ name: 'alice', role: 'approver' });
      expect((await opened.listTokens())[0]!.hash).toBe(hashToken(created));
    } finally {
      await opened.close();
    }
    for (const file of ['toolgate.db', 'toolgate.db-wal']) {
      const full = path.join(directory, '.toolgate', file);
      if (existsSync(full)) expect(readFileSync(full).includes(created)).toBe(false);
    }
  });

  it('list shows name, role, created and revoked, never a hash; revoke ends a token', async () => {
    const directory = project();
    const first = (await token(['create', 'ci-bot', '--role', 'submitter'], directory)).stdout.trim();
    await token(['create', 'ops.admin', '--role', 'admin'], directory);
    // It names the store it changed: a revoke in another store than the server's changes nothing there.
    expect((await token(['revoke', 'ci-bot'], directory)).stdout).toBe(`revoked ci-bot in ${store(directory)}: it stops working at once, also on a running server that uses this store\n`);
    const listed = await token(['list'], directory);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+ROLE\s+CREATED\s+REVOKED$/);
    expect(lines[1]).toMatch(/^ci-bot\s+submitter\s+\d{4}-\d\d-\d\dT\S+\s+\d{4}-\d\d-\d\dT\S+$/);
    expect(lines[2]).toMatch(/^ops\.admin\s+admin\s+\d{4}-\d\d-\d\dT\S+\s+-$/);
    expect(listed.stdout).not.toMatch(/[0-9a-f]{64}/);
    expect(listed.stdout).not.toContain(first);
    const json = (await token(['list', '--json'], directory)).stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(json.map((entry) => Object.keys(entry).sort())).toEqual([['created_at', 'name', 'revoked_at', 'role'], ['created_at', 'name', 'revoked_at', 'role']]);
    const opened = openSqliteStore({ file: store(directory) });
    try {
      expect(await principalForToken({ token: first, store: opened, adminTokenHash: hashToken('x') })).toBeUndefined();
    } finally {
      await opened.close();
    }
  });

  it('revoke of a name with no live token: exit 1 saying so', async () => {
    const directory = project();
    await token(['create', 'alice', '--role', 'submitter'], directory);
    const missing = await token(['revoke', 'nobody'], directory);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`toolgate token: no live token named "nobody" in ${store(directory)} (see \`toolgate token list\`): nothing revoked\n`);
    await token(['revoke', 'alice'], directory);
    expect((await token(['revoke', 'alice'], directory)).code).toBe(1);
  });

  it('a taken name (also a revoked one): exit 1; nothing printed on stdout', async () => {
    const directory = project();
    await token(['create', 'alice', '--role', 'submitter'], directory);
    await token(['revoke', 'alice'], directory);
    const again = await token(['create', 'alice', '--role', 'admin'], directory);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('a token named "alice" exists already');
  });

  it('usage errors (exit 2): bad names, roles, actions, a store of another kind', async () => {
    const directory = project();
    const cases: Array<[string[], string]> = [
      [['create', 'bad name', '--role', 'admin'], 'may hold only letters, digits'],
      [['create', 'x'.repeat(65), '--role', 'admin'], '1 to 64'],
      [['create', 'admin', '--role', 'admin'], 'is reserved'],
      [['create', 'alice'], 'create needs --role submitter|approver|admin'],
      [['create', 'alice', '--role', 'root'], '--role must be one of submitter, approver, admin, not "root"'],
      [['create'], 'create takes one token name'],
      [['list', 'alice'], 'list takes no name'],
      [['revoke', 'a', '--role', 'admin'], '--role is for create'],
      [['rotate', 'a'], 'unknown action "rotate"'],
      [['list', '--store', 'mysql://db/toolgate'], '--store takes a SQLite file or a postgres:// URL, not a "mysql":// URL'],
      [['list', '--store', ''], '--store needs a SQLite file or a postgres:// URL'],
      [['list', '--bogus'], 'unknown option --bogus'],
    ];
    for (const [argv, message] of cases) {
      const result = await tokenExit(argv, directory);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.message).toContain(message);
    }
    expect(existsSync(path.join(directory, '.toolgate'))).toBe(false);
  });

  it('--store names the file; --policy puts it beside that policy; an invalid policy is exit 3', async () => {
    const directory = project();
    mkdirSync(path.join(directory, 'conf'));
    writeFileSync(path.join(directory, 'conf', 'p.yaml'), 'mode: interactive\n');
    await token(['create', 'a', '--role', 'admin', '--policy', 'conf/p.yaml'], directory);
    expect(existsSync(path.join(directory, 'conf', '.toolgate', 'toolgate.db'))).toBe(true);
    await token(['create', 'b', '--role', 'admin', '--store', 'elsewhere.db'], directory);
    expect((await token(['list', '--store', 'elsewhere.db'], directory)).stdout).toMatch(/^NAME.*\nb\s+admin/);
    writeFileSync(path.join(directory, 'toolgate.yaml'), 'mode: [\n');
    expect((await tokenExit(['list'], directory)).code).toBe(3);
  });

  it('list or revoke without a store: nothing is created', async () => {
    const directory = project();
    expect((await token(['list'], directory)).stdout).toBe(`no tokens: there is no store at ${store(directory)}\n`);
    expect((await token(['revoke', 'x'], directory)).code).toBe(1);
    expect(existsSync(path.join(directory, '.toolgate'))).toBe(false);
  });

  it('--help explains, exit 0; no action: help, exit 2', async () => {
    const directory = project();
    const help = await token(['--help'], directory);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('toolgate token create NAME --role submitter|approver|admin');
    expect(help.stdout).toContain('Exit codes:');
    expect((await token([], directory)).code).toBe(2);
  });
});
