import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGate } from '../core/gate.ts';
import { normalizePolicy } from '../core/policy/normalize-policy.ts';
import { openApprovalsFile } from './approvals-file.ts';

function temporaryFile(): string {
  return path.join(mkdtempSync(path.join(os.tmpdir(), 'toolgate-approvals-')), '.toolgate', 'approvals.json');
}

describe('the approvals file', () => {
  it('keeps "approve always" across instances, keyed by tool identity and canonical payload', async () => {
    const file = temporaryFile();
    const first = openApprovalsFile({ path: file });
    await first.add({ tool: 'send_email', payload: { to: 'a@x', cc: ['b'] }, description: 'Send an email' });
    const second = openApprovalsFile({ path: file });
    expect(second.has({ tool: 'send_email', payload: { cc: ['b'], to: 'a@x' } })).toBe(true);
    expect(second.has({ tool: 'send_email', payload: { to: 'a@x', cc: 'b' } })).toBe(false);
    expect(second.has({ tool: 'send_mail', payload: { to: 'a@x', cc: ['b'] } })).toBe(false);
    expect(second.has({ tool: 'send_email', identity: 'server:v2', payload: { to: 'a@x', cc: ['b'] } })).toBe(false);
    expect(second.list()).toHaveLength(1);
  });

  it('is written atomically, private, and leaves no temporary files', async () => {
    const file = temporaryFile();
    const approvals = openApprovalsFile({ path: file });
    await approvals.add({ tool: 't', payload: 1, description: 'd' });
    await approvals.add({ tool: 't', payload: 1, description: 'd' });
    expect(readdirSync(path.dirname(file))).toEqual(['approvals.json']);
    const document = JSON.parse(readFileSync(file, 'utf8'));
    expect(document.v).toBe(1);
    expect(document.approvals).toHaveLength(1);
    // eslint-disable-next-line no-bitwise
    expect((await import('node:fs')).statSync(file).mode & 0o777).toBe(0o600);
  });

  it('redacts secrets in what it shows people, but still matches the full payload', async () => {
    const file = temporaryFile();
    const approvals = openApprovalsFile({ path: file, redactKeys: new Set(['password']) });
    await approvals.add({ tool: 'login', payload: { user: 'ana', password: 'hunter2' }, description: 'Log in' });
    expect(readFileSync(file, 'utf8')).not.toContain('hunter2');
    expect(approvals.list()[0]!.payload_preview).toContain('[REDACTED]');
    expect(approvals.has({ tool: 'login', payload: { user: 'ana', password: 'hunter2' } })).toBe(true);
    expect(approvals.has({ tool: 'login', payload: { user: 'ana', password: 'other' } })).toBe(false);
  });

  it('sees a revoke made by another instance at the next lookup', async () => {
    const file = temporaryFile();
    const agent = openApprovalsFile({ path: file });
    await agent.add({ tool: 't', payload: { a: 1 }, description: 'd' });
    await agent.add({ tool: 't', payload: { a: 2 }, description: 'd' });
    expect(agent.has({ tool: 't', payload: { a: 1 } })).toBe(true);
    const terminal = openApprovalsFile({ path: file });
    const [first] = terminal.list();
    expect(terminal.revoke([first!.id.slice(0, 6)])).toHaveLength(1);
    expect(agent.has({ tool: 't', payload: { a: 1 } })).toBe(false);
    expect(agent.has({ tool: 't', payload: { a: 2 } })).toBe(true);
    expect(terminal.revoke(['abc'])).toEqual([]);
    expect(terminal.revokeAll()).toHaveLength(1);
    expect(agent.has({ tool: 't', payload: { a: 2 } })).toBe(false);
  });

  it('refuses a damaged file at open, and approves nothing if it is damaged later', async () => {
    const file = temporaryFile();
    const approvals = openApprovalsFile({ path: file });
    await approvals.add({ tool: 't', payload: 1, description: 'd' });
    writeFileSync(file, '{"v":1,"approvals":[{"id":1}]}');
    expect(approvals.has({ tool: 't', payload: 1 })).toBe(false);
    expect(() => openApprovalsFile({ path: file })).toThrow(/approvals\.json: approvals\.0\.id/);
    writeFileSync(file, 'not json');
    expect(() => openApprovalsFile({ path: file })).toThrow(/not valid JSON.*delete it/);
  });

  it('answers asks through the gate with source memory, in any session', async () => {
    const file = temporaryFile();
    const approvals = openApprovalsFile({ path: file });
    const policy = normalizePolicy({ tools: { deploy: 'ask' } });
    let asked = 0;
    const gate = createGate({
      policy,
      tools: [{ name: 'deploy' }],
      always: approvals,
      approver: { ask: async () => (asked++, { approved: true, scope: 'always' }) },
    });
    const call = { tool: 'deploy', args: { env: 'staging' }, callId: 'c' };
    expect(await gate.authorize(call, { sessionId: 'one' })).toMatchObject({ decision: 'approved', source: 'person' });
    expect(await gate.authorize(call, { sessionId: 'two' })).toMatchObject({ decision: 'approved', source: 'memory', reason: 'approved always (approvals file)' });
    expect(await gate.authorize({ ...call, args: { env: 'production' } }, { sessionId: 'two' })).toMatchObject({ source: 'person' });
    expect(asked).toBe(2);
    expect(existsSync(file)).toBe(true);
  });
});

describe('approvals changed by several processes', () => {
  it('keeps every approval when processes add at the same time (each change under the lock)', async () => {
    const file = temporaryFile();
    const { spawn } = await import('node:child_process');
    const script = `
      const { openApprovalsFile } = await import(${JSON.stringify(path.resolve(import.meta.dirname, 'approvals-file.ts'))});
      const approvals = openApprovalsFile({ path: process.argv[1] });
      for (let index = 0; index < 25; index++) await approvals.add({ tool: 'tool-' + process.argv[2], payload: index, description: 'approval ' + index });
    `;
    const writers = Array.from({ length: 4 }, (_, writer) =>
      new Promise<number | null>((resolve) => spawn(process.execPath, ['--input-type=module', '-e', script, file, String(writer)], { stdio: 'inherit' }).once('exit', resolve)),
    );
    expect(await Promise.all(writers)).toEqual([0, 0, 0, 0]);
    const kept = openApprovalsFile({ path: file }).list();
    expect(kept).toHaveLength(100);
    expect(new Set(kept.map((record) => record.tool))).toEqual(new Set(['tool-0', 'tool-1', 'tool-2', 'tool-3']));
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('takes over the lock of a process that died holding it', async () => {
    const file = temporaryFile();
    const { spawnSync } = await import('node:child_process');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const approvals = openApprovalsFile({ path: file });
    (await import('node:fs')).mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.lock`, `${dead.stdout}\n`);
    await approvals.add({ tool: 't', payload: 1, description: 'd' });
    expect(approvals.list()).toHaveLength(1);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("waits for a live holder, then says who holds it instead of writing past the lock", async () => {
    const file = temporaryFile();
    const { withFileLock } = await import('./file-lock.ts');
    openApprovalsFile({ path: file });
    (await import('node:fs')).mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.lock`, `${process.ppid}\n`);
    const started = Date.now();
    expect(() => withFileLock(file, () => 'written', { waitMs: 200 })).toThrow(new RegExp(`approvals\\.json\\.lock is held by process ${process.ppid} and did not come free in 200 ms`));
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });
});

describe('approvals of a tool whose identity changed', () => {
  it('are marked void (once, naming the identity the tool has now), others untouched, and still never match', async () => {
    const file = temporaryFile();
    const approvals = openApprovalsFile({ path: file, clock: () => new Date('2026-11-24T12:00:00.000Z') });
    await approvals.add({ tool: 'echo', identity: 'mcp:fixture:v1', payload: { text: 'a' }, description: 'Echo a' });
    await approvals.add({ tool: 'echo', identity: 'mcp:fixture:v2', payload: { text: 'b' }, description: 'Echo b' });
    await approvals.add({ tool: 'other', identity: 'mcp:fixture:v1', payload: 1, description: 'Other' });
    await approvals.add({ tool: 'echo', payload: { text: 'c' }, description: 'No identity' });
    expect(approvals.retire({ tool: 'echo', identity: 'mcp:fixture:v2' }).map((record) => record.description)).toEqual(['Echo a']);
    expect(approvals.retire({ tool: 'echo', identity: 'mcp:fixture:v2' })).toEqual([]);
    const byDescription = new Map(openApprovalsFile({ path: file }).list().map((record) => [record.description, record]));
    expect(byDescription.get('Echo a')).toMatchObject({ voided_at: '2026-11-24T12:00:00.000Z', voided_for: 'mcp:fixture:v2' });
    for (const untouched of ['Echo b', 'Other', 'No identity']) expect(byDescription.get(untouched)).not.toHaveProperty('voided_at');
    expect(approvals.has({ tool: 'echo', identity: 'mcp:fixture:v2', payload: { text: 'a' } })).toBe(false);
    expect(approvals.has({ tool: 'echo', identity: 'mcp:fixture:v2', payload: { text: 'b' } })).toBe(true);
  });

  it('stay void when the tool\'s identity changes back, until a person approves again, which replaces the void record', async () => {
    const file = temporaryFile();
    const approvals = openApprovalsFile({ path: file });
    const entry = { tool: 'echo', identity: 'mcp:fixture:v1', payload: { text: 'a' }, description: 'Echo a' };
    await approvals.add(entry);
    approvals.retire({ tool: 'echo', identity: 'mcp:fixture:v2' });
    // The server changes the definition back: the approval people were told is dead must not come back to life.
    expect(approvals.has(entry)).toBe(false);
    expect(openApprovalsFile({ path: file }).has(entry)).toBe(false);
    await approvals.add(entry);
    expect(approvals.has(entry)).toBe(true);
    expect(approvals.list()).toHaveLength(1);
    expect(approvals.list()[0]).not.toHaveProperty('voided_at');
  });

  it('are marked when a gate learns the tool under its new identity', async () => {
    const file = temporaryFile();
    const approvals = openApprovalsFile({ path: file });
    await approvals.add({ tool: 'deploy', identity: 'builtin:deploy@1', payload: {}, description: 'Deploy' });
    const gate = createGate({ policy: normalizePolicy({}), always: approvals, tools: [] });
    gate.register({ name: 'deploy', identity: 'builtin:deploy@2' });
    expect(approvals.list()[0]).toMatchObject({ voided_for: 'builtin:deploy@2' });
  });
});

describe('the lock itself', () => {
  it('is released when the work fails, so the next change is not held up', async () => {
    const file = temporaryFile();
    const { withFileLock } = await import('./file-lock.ts');
    (await import('node:fs')).mkdirSync(path.dirname(file), { recursive: true });
    expect(() => withFileLock(file, () => {
      throw new Error('the rewrite failed');
    })).toThrow('the rewrite failed');
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(withFileLock(file, () => 'next', { waitMs: 0 })).toBe('next');
  });
});
