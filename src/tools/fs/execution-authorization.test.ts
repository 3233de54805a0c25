/** A path swapped between the check and the run cannot slip past an ask (security review). */
import { linkSync, mkdirSync, mkdtempSync, renameSync, symlinkSync, unlinkSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGate } from '../../core/gate.ts';
import { normalizePolicy } from '../../core/policy/normalize-policy.ts';
import { createFsTools } from './create-fs-tools.ts';
import { zonesFromPolicy } from './zones.ts';

function project() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-exec-auth-'));
  mkdirSync(path.join(root, 'ws', 'd'), { recursive: true });
  mkdirSync(path.join(root, 'ws', 'secure'), { recursive: true });
  const policy = normalizePolicy({
    fs: {
      zones: [
        { name: 'ws', root: './ws', mode: 'rw', approval: { read: 'allow', write: 'allow', delete: 'ask' } },
        { name: 'secure', root: './ws/secure', mode: 'rw', approval: { read: 'allow', write: 'ask', delete: 'ask' } },
      ],
    },
  });
  const tools = createFsTools({ zones: zonesFromPolicy({ policy, policyDirectory: root }), cwd: root });
  return { root, policy, tools, write: tools.find((tool) => tool.name === 'write_file')! };
}

describe('fs execution re-checks how the gate let the call through', () => {
  it('a write allowed by its zone is refused when the path now leads into a zone that asks', async () => {
    const { root, policy, tools, write } = project();
    const gate = createGate({ policy, tools });
    const args = { path: 'ws/d/x.txt', content: 'x' };
    const result = await gate.authorize({ tool: 'write_file', args, callId: 'c' }, { sessionId: 's' });
    expect(result.decision).toBe('allow');
    // The swap: ws/d becomes a symlink into the zone that asks.
    renameSync(path.join(root, 'ws', 'd'), path.join(root, 'ws', 'd-old'));
    symlinkSync(path.join(root, 'ws', 'secure'), path.join(root, 'ws', 'd'));
    await expect(write.execute(result.args, { authorization: { decision: 'allow' } })).rejects.toThrow(/needs approval; nothing was done/);
    expect(existsSync(path.join(root, 'ws', 'secure', 'x.txt'))).toBe(false);
  });

  it('an approved write is refused when the path now resolves somewhere other than what was approved', async () => {
    const { root, write } = project();
    writeFileSync(path.join(root, 'ws', 'secure', 'a.txt'), 'a');
    await expect(
      write.execute({ path: 'ws/secure/a.txt', content: 'b' }, { authorization: { decision: 'approved', payload: { zone: 'secure', path: 'other.txt' } } }),
    ).rejects.toThrow(/is not what was approved/);
    await expect(write.execute({ path: 'ws/secure/a.txt', content: 'b' }, { authorization: { decision: 'approved', payload: { zone: 'secure', path: 'a.txt' } } })).resolves.toBeDefined();
  });
});

describe('a move approved from memory is held to both of its approved ends', () => {
  it('"approve for session" of a move does not cover the same call once its source directory is swapped for a symlink into another zone', async () => {
    const { root, policy, tools } = project();
    mkdirSync(path.join(root, 'ws', 'out'));
    writeFileSync(path.join(root, 'ws', 'd', 'report.txt'), 'draft\n');
    writeFileSync(path.join(root, 'ws', 'secure', 'report.txt'), 'SECRET\n');
    const move = tools.find((tool) => tool.name === 'move_file')!;
    const gate = createGate({ policy, tools, approver: { ask: async () => ({ approved: true, scope: 'session' }) } });
    const args = { source: 'ws/d/report.txt', destination: 'ws/out/report.txt' };
    expect((await gate.authorize({ tool: 'move_file', args, callId: 'c1' }, { sessionId: 's' })).source).toBe('person');
    const remembered = await gate.authorize({ tool: 'move_file', args, callId: 'c2' }, { sessionId: 's' });
    expect(remembered).toMatchObject({ decision: 'approved', source: 'memory' });
    renameSync(path.join(root, 'ws', 'd'), path.join(root, 'ws', 'd-old'));
    symlinkSync(path.join(root, 'ws', 'secure'), path.join(root, 'ws', 'd'));
    // What the AI SDK adapter passes a built-in tool: the authorization and its payload, and no presentation (nobody was shown one).
    const authorization = { decision: 'approved' as const, payload: remembered.request?.payload };
    await expect(move.execute(remembered.args, { authorization })).rejects.toThrow(/is not what was approved \(ws:d\/report\.txt\)/);
    expect(existsSync(path.join(root, 'ws', 'secure', 'report.txt'))).toBe(true);
    expect(existsSync(path.join(root, 'ws', 'out', 'report.txt'))).toBe(false);
    // The destination is held to its half too.
    unlinkSync(path.join(root, 'ws', 'd'));
    renameSync(path.join(root, 'ws', 'd-old'), path.join(root, 'ws', 'd'));
    const elsewhere = { decision: 'approved' as const, payload: { source: { zone: 'ws', path: 'd/report.txt' }, destination: { zone: 'ws', path: 'out/other.txt' } } };
    await expect(move.execute(remembered.args, { authorization: elsewhere })).rejects.toThrow(/is not what was approved \(ws:out\/other\.txt\)/);
    await expect(move.execute(remembered.args, { authorization })).resolves.toMatchObject({ destination: 'ws/out/report.txt' });
  });
});

describe('an approval of a hard-linked file covers that file only', () => {
  it('"approve for session" of one hard-linked file does not cover another one given the same name: the person is asked again, and the run refuses it', async () => {
    const { root, policy, tools } = project();
    const read = tools.find((tool) => tool.name === 'read_file')!;
    mkdirSync(path.join(root, 'outside'));
    writeFileSync(path.join(root, 'outside', 'shared.txt'), 'harmless\n');
    writeFileSync(path.join(root, 'outside', 'id_rsa'), 'PRIVATE KEY\n');
    linkSync(path.join(root, 'outside', 'shared.txt'), path.join(root, 'ws', 'notes.txt'));
    const asked: string[] = [];
    let answer = { approved: true, scope: 'session' as 'session' | 'once' };
    const gate = createGate({ policy, tools, approver: { ask: async (request) => (asked.push(request.description), answer) } });
    const authorize = (callId: string) => gate.authorize({ tool: 'read_file', args: { path: 'ws/notes.txt' }, callId }, { sessionId: 's' });

    const first = await authorize('c1');
    expect(first.decision).toBe('approved');
    expect(asked).toHaveLength(1);
    expect(first.request?.payload).toMatchObject({ zone: 'ws', path: 'notes.txt', file: expect.stringMatching(/^\d+:\d+$/) });
    const approvedFirst = { decision: 'approved' as const, payload: first.request?.payload };
    expect(await read.execute(first.args, { authorization: approvedFirst })).toMatchObject({ content: 'harmless\n' });

    // The name now stands for another hard-linked file (outside every zone).
    unlinkSync(path.join(root, 'ws', 'notes.txt'));
    linkSync(path.join(root, 'outside', 'id_rsa'), path.join(root, 'ws', 'notes.txt'));
    answer = { approved: false, scope: 'once' };
    const second = await authorize('c2');
    expect(asked).toHaveLength(2);
    expect(second.decision).toBe('denied');
    // A run holding the first approval is refused at the descriptor: it is not the file that was approved.
    await expect(read.execute({ path: 'ws/notes.txt' }, { authorization: approvedFirst })).rejects.toThrow(/not the file that was approved/);
  });
});

describe('a zone whose reads are stricter than its writes and deletes', () => {
  function inbox(read: 'block' | 'ask') {
    const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-inbox-'));
    mkdirSync(path.join(root, 'ws'));
    mkdirSync(path.join(root, 'inbox', 'archive'), { recursive: true });
    writeFileSync(path.join(root, 'inbox', 'payroll.txt'), 'alice=9000\n');
    const policy = normalizePolicy({
      fs: {
        zones: [
          { name: 'ws', root: './ws', mode: 'rw', approval: { read: 'allow', write: 'allow', delete: 'allow' } },
          { name: 'inbox', root: './inbox', mode: 'rw', approval: { read, write: 'allow', delete: 'allow' } },
        ],
      },
    });
    const tools = createFsTools({ zones: zonesFromPolicy({ policy, policyDirectory: root }), cwd: root });
    const gate = createGate({ policy, tools });
    return (tool: string, args: Record<string, unknown>) => gate.evaluate({ tool, args, callId: 'c' }, { sessionId: 's' });
  }

  it('an edit reads the file it changes: blocked where reading is, asked where reading asks', async () => {
    const blocked = await inbox('block')('edit_file', { path: 'inbox/payroll.txt', old_string: 'a', new_string: 'a' });
    expect(blocked.kind).toBe('block');
    expect(blocked.reason).toMatch(/an edit reads the file it changes: reading inbox\/payroll.txt is blocked/);
    expect((await inbox('ask')('edit_file', { path: 'inbox/payroll.txt', old_string: 'a', new_string: 'a' })).kind).toBe('ask');
  });

  it('a move into a zone that reads more freely counts the source zone read; within the zone it does not', async () => {
    const blocked = await inbox('block')('move_file', { source: 'inbox/payroll.txt', destination: 'ws/payroll.txt' });
    expect(blocked.kind).toBe('block');
    expect(blocked.reason).toMatch(/would make it readable there/);
    expect((await inbox('ask')('move_file', { source: 'inbox/payroll.txt', destination: 'ws/payroll.txt' })).kind).toBe('ask');
    expect((await inbox('block')('move_file', { source: 'inbox/payroll.txt', destination: 'inbox/archive/payroll.txt' })).kind).toBe('allow');
  });
});
