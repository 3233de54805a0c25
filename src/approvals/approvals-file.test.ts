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
