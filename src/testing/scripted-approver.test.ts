import { describe, expect, it } from 'vitest';
import type { PresentedRequest } from '../core/approver.ts';
import { createGate } from '../core/gate.ts';
import { normalizePolicy } from '../core/policy/normalize-policy.ts';
import type { ToolDeclaration } from '../core/tool-declaration.ts';
import type { GateContext } from '../core/types.ts';
import { createScriptedApprover, OUT_OF_ANSWERS_REASON } from './scripted-approver.ts';

const context: GateContext = { sessionId: 'session-1' };
const signal = new AbortController().signal;

function request(tool: string, args: unknown = {}): PresentedRequest {
  return { tool, description: `run ${tool}`, payload: args, required: true, presentation: undefined, call: { tool, args, callId: `call-${tool}` }, context };
}

describe('createScriptedApprover', () => {
  it('answers in order, expands shorthands and records every request', async () => {
    const approver = createScriptedApprover(['approve', 'deny', { approved: true, scope: 'session', note: 'fine' }]);
    expect(await approver.ask(request('a'), { signal })).toEqual({ approved: true, scope: 'once' });
    expect(await approver.ask(request('b'), { signal })).toEqual({ approved: false, scope: 'once' });
    expect(await approver.ask(request('c'), { signal })).toEqual({ approved: true, scope: 'session', note: 'fine' });
    expect(approver.requests.map((asked) => asked.tool)).toEqual(['a', 'b', 'c']);
    expect(approver.calls.map((call) => [call.kind, call.decision.approved])).toEqual([
      ['ask', true],
      ['ask', false],
      ['ask', true],
    ]);
    expect(approver.unanswered).toBe(0);
  });

  it('denies, never approves, when it runs out of answers, and counts it', async () => {
    const approver = createScriptedApprover(['approve']);
    await approver.ask(request('a'), { signal });
    expect(await approver.ask(request('b'), { signal })).toEqual({ approved: false, scope: 'once', reason: OUT_OF_ANSWERS_REASON });
    expect(await approver.askGroup([request('c'), request('d')], { signal })).toMatchObject({ approved: false, reason: 'scripted approver ran out of answers' });
    expect(approver.unanswered).toBe(2);
    expect(approver.requests.map((asked) => asked.tool)).toEqual(['a', 'b', 'c', 'd']);
    await expect(createScriptedApprover([]).ask(request('x'), { signal })).resolves.toMatchObject({ approved: false });
  });

  it('answers by function, with the index and, for groups, the whole group', async () => {
    const seen: string[] = [];
    const approver = createScriptedApprover((asked, { index, group }) => {
      seen.push(`${index}:${asked.tool}:${group?.length ?? 0}`);
      return asked.tool === 'shell' ? { approved: false, scope: 'once', reason: 'no shell' } : 'approve';
    });
    expect(await approver.ask(request('shell'), { signal })).toEqual({ approved: false, scope: 'once', reason: 'no shell' });
    expect(await approver.askGroup([request('write_a'), request('write_b')], { signal })).toEqual({ approved: true, scope: 'once' });
    expect(seen).toEqual(['0:shell:0', '1:write_a:2']);
    expect(approver.calls[1]).toMatchObject({ kind: 'group', requests: [{ tool: 'write_a' }, { tool: 'write_b' }] });
  });

  it('a group uses one answer', async () => {
    const approver = createScriptedApprover(['deny', 'approve']);
    expect((await approver.askGroup([request('a'), request('b')], { signal })).approved).toBe(false);
    expect((await approver.ask(request('c'), { signal })).approved).toBe(true);
  });

  it('works as the gate approver: singles, groups and running out', async () => {
    const grouped = (name: string): ToolDeclaration => ({
      name,
      checkApproval: (call) => ({ tool: call.tool, description: `${call.tool}`, payload: call.args, groupId: 'batch' }),
    });
    const approver = createScriptedApprover(['approve', { approved: false, scope: 'once', reason: 'not in a batch' }]);
    const gate = createGate({ policy: normalizePolicy({ tools: { send: 'ask', read: 'allow' } }), tools: [{ name: 'send' }, { name: 'read' }, grouped('a'), grouped('b')], approver });
    expect((await gate.authorize({ tool: 'read', args: {}, callId: 'r1' }, context)).decision).toBe('allow');
    expect((await gate.authorize({ tool: 'send', args: { to: 'x' }, callId: 's1' }, context)).decision).toBe('approved');
    const batch = await gate.authorizeAll(
      [
        { tool: 'a', args: { n: 1 }, callId: 'a1' },
        { tool: 'b', args: { n: 2 }, callId: 'b1' },
      ],
      context,
    );
    expect(batch.map((result) => result.decision)).toEqual(['denied', 'denied']);
    const last = await gate.authorize({ tool: 'send', args: { to: 'y' }, callId: 's2' }, context);
    expect(last.decision).toBe('denied');
    expect(last.reason).toContain(OUT_OF_ANSWERS_REASON);
    expect(approver.requests.map((asked) => asked.call.callId)).toEqual(['s1', 'a1', 'b1', 's2']);
    expect(approver.calls.map((call) => call.kind)).toEqual(['ask', 'group', 'ask']);
  });
});
