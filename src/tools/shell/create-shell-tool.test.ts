import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyError } from '../../core/errors/policy-error.ts';
import { createGate } from '../../core/gate.ts';
import { normalizePolicy } from '../../core/policy/normalize-policy.ts';
import type { ApprovalRequest, Presentation } from '../../core/types.ts';
import { zonesFromPolicy } from '../fs/zones.ts';
import { createShellTool } from './create-shell-tool.ts';
import { ShellCommandRefusedError } from './errors/shell-command-refused-error.ts';
import { createShellFixture, TEST_RULES, type ShellFixture } from '../../../test/shell-fixture.ts';

let fixture: ShellFixture;
beforeAll(() => {
  fixture = createShellFixture({ shell: { rules: TEST_RULES, timeout: '2s', max_output: 64 } });
});
afterAll(() => fixture.remove());

const call = (args: unknown) => ({ tool: 'shell', args, callId: 'c1' });
const context = { sessionId: 's1', signal: new AbortController().signal };


/** What the gate hands the tool for a call a person approved (the arguments as they stand). */
const APPROVED = { authorization: { decision: 'approved' as const } };
describe('createShellTool', () => {
  it('is the `shell` tool with a strict input schema', () => {
    expect(fixture.tool.name).toBe('shell');
    expect(fixture.tool.inputSchema.safeParse({ command: 'ls' }).success).toBe(true);
    expect(fixture.tool.inputSchema.safeParse({ command: 'ls', extra: 1 }).success).toBe(false);
    expect(fixture.tool.inputSchema.safeParse({ command: '' }).success).toBe(false);
  });

  it('pre-approves, blocks, and asks with the command as presentation and {command, cwd} as payload', async () => {
    // Each names the rule of the policy that decided.
    expect(await fixture.tool.checkApproval(call({ command: 'git status' }), context)).toEqual({ kind: 'allow', reason: 'shell.rules[0] (match: git status) allows it', rule: 'shell.rules[0] (match: git status)' });
    expect(await fixture.tool.checkApproval(call({ command: 'ls; rm -rf x' }), context)).toMatchObject({ kind: 'block', reason: expect.stringContaining('rm -rf x'), rule: 'shell.rules[16] (match: rm)' });
    const request = (await fixture.tool.checkApproval(call({ command: 'ls > out.txt' }), context)) as ApprovalRequest;
    const cwd = path.join(fixture.root, 'ws');
    expect(request).toMatchObject({ tool: 'shell', required: true, payload: { command: 'ls > out.txt', cwd } });
    expect(request.description).toContain('> out.txt');
    const presentation = request.presentation as Presentation;
    expect(presentation).toMatchObject({ type: 'command', content: 'ls > out.txt', metadata: { cwd } });
    expect((presentation.metadata as { reasons: string[] }).reasons[0]).toContain('writes ws:out.txt');
  });

  it('says when the description cut a long command line, how long it is and which commands it runs', async () => {
    const command = `echo ${'A'.repeat(20_000)} ; echo tail > out.txt`;
    const request = (await fixture.tool.checkApproval(call({ command }), context)) as ApprovalRequest;
    expect(request.description).toContain(`[cut: ${command.length.toLocaleString('en-US')} characters in all; it runs 2 commands: echo, echo]`);
    expect((request.presentation as Presentation).content).toBe(command);
    const short = (await fixture.tool.checkApproval(call({ command: 'ls > out.txt' }), context)) as ApprovalRequest;
    expect(short.description).not.toContain('[cut');
  });

  it('blocks invalid arguments and working directories outside the zones', async () => {
    expect(await fixture.tool.checkApproval(call({ command: 1 }), context)).toMatchObject({ kind: 'block' });
    expect(await fixture.tool.checkApproval(call({ command: 'ls', cwd: '/etc' }), context)).toMatchObject({ kind: 'block', reason: expect.stringContaining('outside every zone') });
    expect(await fixture.tool.checkApproval(call({ command: 'ls', cwd: 'ws/link-out' }), context)).toMatchObject({ kind: 'block' });
    expect(await fixture.tool.checkApproval(call({ command: 'ls', cwd: 'ws/notes.txt' }), context)).toMatchObject({ kind: 'block', reason: expect.stringContaining('not an existing directory') });
    expect(await fixture.tool.checkApproval(call({ command: 'ls', cwd: 'docs' }), context)).toMatchObject({ kind: 'allow', rule: 'shell.rules[3] (match: ls)' });
    // Decided by the working directory, not by a rule: no rule is named.
    expect(await fixture.tool.checkApproval(call({ command: 'ls', cwd: '/etc' }), context)).not.toHaveProperty('rule');
  });

  it('names a refused working directory with its hidden characters spelled out, and only its start when long', async () => {
    const deceptive = (await fixture.tool.checkApproval(call({ command: 'ls', cwd: 'ws/evil\u202etxt' }), context)) as { kind: string; reason: string };
    expect(deceptive).toMatchObject({ kind: 'block', reason: expect.stringContaining('the working directory "ws/evil\\u202etxt" is not usable') });
    expect(deceptive.reason).not.toContain('\u202e');
    const long = (await fixture.tool.checkApproval(call({ command: 'ls', cwd: `ws/${'a/'.repeat(3000)}` }), context)) as { kind: string; reason: string };
    expect(long).toMatchObject({ kind: 'block', reason: expect.stringContaining('bytes long; paths longer than 4095 bytes are refused') });
    expect(long.reason.length).toBeLessThan(600);
  });

  it('uses the rule description when one rule asks', async () => {
    // Writes are pre-approved in the zone, so the rule is the only thing that asks (git add writes the index).
    const policy = normalizePolicy({ fs: { zones: [{ name: 'ws', root: 'ws', mode: 'rw', approval: { write: 'allow' } }] }, shell: { rules: [{ match: 'git add', approval: true, description: 'Stage files for commit' }] } });
    const tool = createShellTool({ policy, zones: zonesFromPolicy({ policy, policyDirectory: fixture.root }), cwd: fixture.root });
    const request = (await tool.checkApproval(call({ command: 'git add x' }), context)) as ApprovalRequest;
    expect(request.description).toMatch(/^Stage files for commit/);
  });

  it('runs in the first writable zone by default, or in the given one', async () => {
    expect((await fixture.tool.execute({ command: 'pwd' }, APPROVED)).stdout).toBe(`${path.join(fixture.root, 'ws')}\n`);
    expect((await fixture.tool.execute({ command: 'pwd', cwd: 'ws/src' }, APPROVED)).stdout).toBe(`${path.join(fixture.root, 'ws', 'src')}\n`);
    expect((await fixture.tool.execute({ command: 'pwd', cwd: 'docs' }, APPROVED)).stdout).toBe(`${path.join(fixture.root, 'docs')}\n`);
  });

  it('applies shell.timeout and shell.max_output from the policy', async () => {
    const capped = await fixture.tool.execute({ command: "printf '%0100d' 0" }, APPROVED);
    expect(capped).toMatchObject({ truncated: true, stdout: '0'.repeat(64) });
    const slow = await fixture.tool.execute({ command: 'sleep 30' }, APPROVED);
    expect(slow.timed_out).toBe(true);
  });

  it('refuses to run a blocked command, or one other than the approved presentation', async () => {
    const marker = path.join(fixture.root, 'ws', 'marker');
    await expect(fixture.tool.execute({ command: `touch ${marker}; rm -f ${marker}` })).rejects.toBeInstanceOf(ShellCommandRefusedError);
    await expect(fixture.tool.execute({ command: `touch ${marker}` }, { approvedPresentation: { type: 'command', content: 'ls' } })).rejects.toMatchObject({ code: 'SHELL_COMMAND_REFUSED' });
    expect(existsSync(marker)).toBe(false);
    await expect(fixture.tool.execute({ command: 'ls', cwd: '/etc' })).rejects.toMatchObject({ code: 'SHELL_COMMAND_REFUSED' });
    await expect(fixture.tool.execute({ command: 42 } as never)).rejects.toMatchObject({ code: 'SHELL_INVALID_ARGUMENTS' });
  });

  it('runs an asked command once approved (the gate decided)', async () => {
    const result = await fixture.tool.execute({ command: 'echo hi > approved.txt && cat approved.txt' }, { ...APPROVED, approvedPresentation: { type: 'command', content: 'echo hi > approved.txt && cat approved.txt' } });
    expect(result.stdout).toBe('hi\n');
  });

  it('cancels a running command', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled')), 200);
    await expect(fixture.tool.execute({ command: 'sleep 5' }, { ...APPROVED, signal: controller.signal })).rejects.toThrow('cancelled');
  });

  it('refuses a command the policy asks about when it comes without an authorization (a caller that skipped the gate)', async () => {
    const marker = path.join(fixture.root, 'ws', 'unapproved.txt');
    await expect(fixture.tool.execute({ command: 'echo x > unapproved.txt' })).rejects.toMatchObject({ code: 'SHELL_COMMAND_REFUSED', message: expect.stringMatching(/needs a person's approval/) });
    await expect(fixture.tool.execute({ command: 'echo x > unapproved.txt' }, { approvedPresentation: { type: 'command', content: 'echo x > unapproved.txt' } })).rejects.toMatchObject({ code: 'SHELL_COMMAND_REFUSED' });
    expect(existsSync(marker)).toBe(false);
  });

  it('an approval whose payload names no working directory approves none', async () => {
    const command = 'echo x > payload.txt';
    await expect(fixture.tool.execute({ command, cwd: 'ws/src' }, { authorization: { decision: 'approved', payload: { command } } })).rejects.toMatchObject({ code: 'SHELL_COMMAND_REFUSED' });
    await expect(fixture.tool.execute({ command, cwd: 'ws/src' }, { authorization: { decision: 'approved', payload: { command, cwd: path.join(fixture.root, 'ws') } } })).rejects.toMatchObject({ code: 'SHELL_COMMAND_REFUSED' });
    expect(existsSync(path.join(fixture.root, 'ws', 'src', 'payload.txt'))).toBe(false);
    await fixture.tool.execute({ command, cwd: 'ws/src' }, { authorization: { decision: 'approved', payload: { command, cwd: path.join(fixture.root, 'ws', 'src') } } });
    expect(existsSync(path.join(fixture.root, 'ws', 'src', 'payload.txt'))).toBe(true);
  });

  it('refuses to build from a policy whose examples fail', () => {
    const policy = normalizePolicy({ shell: { rules: [{ match: 'git status', decision: 'allow', examples: { match: ['git statusx'] } }] } });
    expect(() => createShellTool({ policy, zones: [], cwd: fixture.root })).toThrow(PolicyError);
  });

  it('blocks everything when there are no zones', async () => {
    const policy = normalizePolicy({ shell: { default: 'allow' } });
    const tool = createShellTool({ policy, zones: [], cwd: fixture.root });
    expect(await tool.checkApproval(call({ command: 'ls' }), context)).toMatchObject({ kind: 'block', reason: expect.stringContaining('no zones') });
  });
});

describe('through the gate', () => {
  it('gives allow, ask and block verdicts with the tool as the deciding source', async () => {
    const gate = createGate({ policy: fixture.policy, tools: [fixture.tool] });
    const session = { sessionId: 's1' };
    expect((await gate.evaluate(call({ command: 'git status && ls -la' }), session)).kind).toBe('allow');
    const blocked = await gate.evaluate(call({ command: 'git status; rm -rf ~' }), session);
    expect(blocked).toMatchObject({ kind: 'block', rule: 'shell.rules[16] (match: rm)' });
    expect(blocked.reason).toContain('rm -rf ~');
    const asked = await gate.evaluate(call({ command: 'npm test' }), session);
    expect(asked.kind).toBe('ask');
    if (asked.kind === 'ask') expect(asked.request.payload).toEqual({ command: 'npm test', cwd: path.join(fixture.root, 'ws') });
  });

  it('remembers an approval for the session for the exact command text only', async () => {
    const gate = createGate({ policy: fixture.policy, tools: [fixture.tool], approver: { ask: async () => ({ approved: true, scope: 'session' }) } });
    const session = { sessionId: 's2' };
    expect((await gate.authorize(call({ command: 'npm test' }), session)).source).toBe('person');
    expect((await gate.authorize(call({ command: 'npm test' }), session)).source).toBe('memory');
    expect((await gate.authorize(call({ command: 'npm test ' }), session)).source).toBe('person');
  });

  it('creates no file for a blocked redirection', async () => {
    const gate = createGate({ policy: fixture.policy, tools: [fixture.tool] });
    const verdict = await gate.evaluate(call({ command: 'echo x > ../docs/new.md' }), { sessionId: 's3' });
    expect(verdict.kind).toBe('block');
  });
});
