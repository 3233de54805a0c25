import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApprovalsFile } from '../src/approvals/approvals-file.ts';
import { runCli } from './cli-harness.ts';

async function project(): Promise<string> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-approvals-cli-'));
  writeFileSync(path.join(root, 'toolgate.yaml'), 'redact: { keys: [password] }\n');
  const file = openApprovalsFile({ path: path.join(root, '.toolgate', 'approvals.json'), redactKeys: new Set(['password']) });
  await file.add({ tool: 'login', payload: { user: 'ana', password: 'hunter2' }, description: 'Log in as ana' });
  await file.add({ tool: 'deploy\u001b[2J', payload: { env: 'prod' }, description: 'Deploy' });
  return root;
}

describe('toolgate approvals', () => {
  it('lists approvals with secrets redacted and control characters escaped', async () => {
    const root = await project();
    const listed = await runCli(['approvals', 'list'], { cwd: root });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('Log in as ana');
    expect(listed.stdout).toContain('[REDACTED]');
    expect(listed.stdout).not.toContain('hunter2');
    expect(listed.stdout).toContain('deploy\\x1b[2J');
    expect(listed.stdout).not.toContain('\u001b');
    const json = await runCli(['approvals', 'list', '--json'], { cwd: root });
    expect(json.stdout.trim().split('\n').map((line) => JSON.parse(line).tool)).toEqual(['login', 'deploy\u001b[2J']);
  });

  it('revokes by id prefix, then --all, and says when nothing matched', async () => {
    const root = await project();
    const [first] = (await runCli(['approvals', 'list', '--json'], { cwd: root })).stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: string });
    const revoked = await runCli(['approvals', 'revoke', first!.id.slice(0, 6)], { cwd: root });
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain('revoked');
    const again = await runCli(['approvals', 'revoke', first!.id], { cwd: root });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('nothing matched');
    expect((await runCli(['approvals', 'revoke', '--all'], { cwd: root })).code).toBe(0);
    expect((await runCli(['approvals', 'list'], { cwd: root })).stdout).toContain('no "approve always" decisions');
  });

  it('rejects bad usage with exit code 2', async () => {
    const root = await project();
    for (const argv of [['approvals'], ['approvals', 'revoke'], ['approvals', 'revoke', 'abc'], ['approvals', 'revoke', 'abcdef', '--all'], ['approvals', 'frobnicate'], ['approvals', 'list', 'x'], ['approvals', 'list', '--all'],
      // The approvals a server on a SQLite file keeps are in the file beside its policy; a shared store is named by its URL.
      ['approvals', 'list', '--store', '.toolgate/toolgate.db'], ['approvals', 'list', '--store', 'postgres://127.0.0.1:1/toolgate', '--policy', 'toolgate.yaml'],
      // Checked before the store is reached (this one is not there).
      ['approvals', 'revoke', 'abc', '--store', 'postgres://127.0.0.1:1/toolgate']]) {
      const result = await runCli(argv, { cwd: root });
      expect(result.code, argv.join(' ')).toBe(2);
    }
  });

  it('exits 1 saying why when the shared store cannot be reached', async () => {
    const root = await project();
    const result = await runCli(['approvals', 'list', '--store', 'postgres://toolgate:s3cret@127.0.0.1:1/toolgate'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot be reached/);
    expect(result.stderr).not.toContain('s3cret');
  });
});
