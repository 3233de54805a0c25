import { describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { approvalElicitationSchema, createElicitationApprover, decisionFromElicitation, wideApprovalSchema } from './elicitation-approver.ts';

const decide = (result: Parameters<typeof decisionFromElicitation>[0]['result'], allowAlways = true) => decisionFromElicitation({ result, allowAlways });

describe('decisionFromElicitation', () => {
  it('approves only an accept with decision approve, in the scope chosen', () => {
    expect(decide({ action: 'accept', content: { decision: 'approve' } })).toEqual({ approved: true, scope: 'once' });
    expect(decide({ action: 'accept', content: { decision: 'approve', scope: 'session' } })).toEqual({ approved: true, scope: 'session' });
    expect(decide({ action: 'accept', content: { decision: 'approve', scope: 'always' } })).toEqual({ approved: true, scope: 'always' });
  });
  it('denies everything else, keeping the reason', () => {
    expect(decide({ action: 'accept', content: { decision: 'deny', reason: ' not now ' } })).toEqual({ approved: false, scope: 'once', reason: 'not now' });
    expect(decide({ action: 'decline' })).toMatchObject({ approved: false, reason: 'declined in the MCP client' });
    expect(decide({ action: 'cancel' })).toMatchObject({ approved: false });
    expect(decide({ action: 'accept', content: {} })).toMatchObject({ approved: false });
    expect(decide({ action: 'accept', content: { decision: 'APPROVE' } })).toMatchObject({ approved: false });
    expect(decide({ action: 'accept', content: { decision: 'approve', scope: 'forever' } })).toMatchObject({ approved: false });
    expect(decide({ action: 'accept', content: { decision: 'approve', scope: 'always' } }, false)).toMatchObject({ approved: false });
  });
  it('offers always only when it can be kept', () => {
    expect((approvalElicitationSchema({ allowAlways: false }).properties.scope as { enum: string[] }).enum).toEqual(['once', 'session']);
  });
});

describe('createElicitationApprover', () => {
  it('says in the form what the session scope covers, per request, escaped', async () => {
    const sent: Array<{ requestedSchema: ReturnType<typeof approvalElicitationSchema> }> = [];
    const approver = createElicitationApprover({
      elicit: async (params) => {
        sent.push(params as never);
        const answer: ElicitResult = sent.length === 1 ? { action: 'accept', content: { decision: 'approve', scope: 'session' } } : { action: 'accept', content: { confirm: 'yes' } };
        return answer;
      },
      message: () => 'approve?',
      allowAlways: false,
    });
    const decision = await approver.ask(
      {
        tool: 'write_file',
        description: 'Write a.txt',
        payload: { zone: 'workspace', path: 'a\u202e.txt' },
        required: true,
        presentation: undefined,
        call: { tool: 'write_file', args: { path: 'ws/a.txt', content: 'x' }, callId: 'c' },
        context: { sessionId: 's' },
      },
      { signal: new AbortController().signal },
    );
    expect(decision).toEqual({ approved: true, scope: 'session' });
    const scope = sent[0]!.requestedSchema.properties.scope as { description: string };
    expect(scope.description).toContain('"For the rest of this session" covers later write_file calls in this session with the same zone "workspace" and path "a\\u202e.txt", whatever their content');
    expect(scope.description).not.toContain('\u202e');
  });

  it('offers "reveal" only when secrets were masked; otherwise a reveal answer denies after one dialog', async () => {
    let calls = 0;
    const approver = createElicitationApprover({
      elicit: async (params) => {
        calls += 1;
        expect((params.requestedSchema.properties.decision as { enum: string[] }).enum).toEqual(['approve', 'deny']);
        return { action: 'accept', content: { decision: 'reveal' } };
      },
      message: () => 'approve?',
      allowAlways: false,
    });
    const request = {
      tool: 't',
      description: '',
      payload: {},
      required: true,
      presentation: { type: 'structured' as const, content: '{}' },
      call: { tool: 't', args: {}, callId: 'c' },
      context: { sessionId: 's' },
    };
    expect(await approver.ask(request, { signal: new AbortController().signal })).toMatchObject({ approved: false });
    expect(calls).toBe(1);
  });
});

describe('the second step of a wide approval, as in the terminal and the web inbox', () => {
  const request = {
    tool: 'write_file',
    description: 'Write a.txt',
    payload: { zone: 'workspace', path: 'a.txt' },
    required: true,
    presentation: undefined,
    call: { tool: 'write_file', args: { path: 'ws/a.txt', content: 'x' }, callId: 'c' },
    context: { sessionId: 's' },
  };
  /** An approver whose client answers the form with `first` and the confirmation with `second`. */
  function answering(first: ElicitResult, second: ElicitResult, extra: Partial<typeof request> & { alwaysScopes?: Array<{ id: string; text: string; rule: string }> } = {}) {
    const sent: Array<{ message: string; requestedSchema: Record<string, unknown> }> = [];
    const approver = createElicitationApprover({
      elicit: async (params) => {
        sent.push(params as never);
        return sent.length === 1 ? first : second;
      },
      message: () => 'approve?',
      allowAlways: true,
    });
    return { sent, ask: () => approver.ask({ ...request, ...extra }, { signal: new AbortController().signal }) };
  }

  it('"always" says what it covers in a second dialog, and holds only when confirmed', async () => {
    const flow = answering({ action: 'accept', content: { decision: 'approve', scope: 'always' } }, { action: 'accept', content: { confirm: 'yes' } });
    expect(await flow.ask()).toEqual({ approved: true, scope: 'always' });
    expect(flow.sent).toHaveLength(2);
    expect(flow.sent[1]!.message).toBe('“Always” lets these run without asking: later write_file calls in this session and every later one with the same zone "workspace" and path "a.txt", whatever their content, until revoked (toolgate approvals).');
    expect(flow.sent[1]!.requestedSchema).toEqual(wideApprovalSchema('always'));
  });

  it('"this call only" narrows it to once; declining, dismissing or a malformed answer denies', async () => {
    const wide = { action: 'accept', content: { decision: 'approve', scope: 'session' } } as const;
    expect(await answering(wide, { action: 'accept', content: { confirm: 'once' } }).ask()).toEqual({ approved: true, scope: 'once' });
    expect(await answering(wide, { action: 'decline' }).ask()).toEqual({ approved: false, scope: 'once', reason: '“For this session” was not confirmed (declined in the MCP client)' });
    expect(await answering(wide, { action: 'cancel' }).ask()).toMatchObject({ approved: false, reason: expect.stringContaining('dismissed') });
    expect(await answering(wide, { action: 'accept', content: { confirm: 'sure' } }).ask()).toMatchObject({ approved: false });
    expect(await answering(wide, { action: 'accept', content: {} }).ask()).toMatchObject({ approved: false });
  });

  it('once and denials take one dialog', async () => {
    const once = answering({ action: 'accept', content: { decision: 'approve', scope: 'once' } }, { action: 'accept', content: { confirm: 'yes' } });
    expect(await once.ask()).toEqual({ approved: true, scope: 'once' });
    expect(once.sent).toHaveLength(1);
    const denied = answering({ action: 'accept', content: { decision: 'deny', scope: 'always' } }, { action: 'accept', content: { confirm: 'yes' } });
    expect(await denied.ask()).toEqual({ approved: false, scope: 'once' });
    expect(denied.sent).toHaveLength(1);
  });

  it('where "always" offers choices, the second dialog lists them narrowest first, and the answer names the one chosen', async () => {
    const alwaysScopes = [
      { id: 'exact', text: 'write_file with exactly these arguments, nothing else', rule: 'write_file with arguments sha256:0123456789abcdef' },
      { id: 'folder', text: 'write_file of any file under "notes/"', rule: 'write_file: zone workspace, path "notes/**"' },
    ];
    const wide = { action: 'accept', content: { decision: 'approve', scope: 'always' } } as const;
    const flow = answering(wide, { action: 'accept', content: { confirm: 'always:folder' } }, { alwaysScopes });
    expect(await flow.ask()).toEqual({ approved: true, scope: 'always', alwaysScope: 'folder' });
    const confirm = (flow.sent[1]!.requestedSchema as { properties: { confirm: { enum: string[]; enumNames: string[]; default: string } } }).properties.confirm;
    expect(confirm.enum).toEqual(['always:exact', 'yes', 'always:folder', 'once']);
    expect(confirm.default).toBe('always:exact');
    expect(confirm.enumNames[2]).toBe('Always, wider: write_file of any file under "notes/" — rule: write_file: zone workspace, path "notes/**"');
    expect(await answering(wide, { action: 'accept', content: { confirm: 'always:exact' } }, { alwaysScopes }).ask()).toEqual({ approved: true, scope: 'always', alwaysScope: 'exact' });
    expect(await answering(wide, { action: 'accept', content: { confirm: 'yes' } }, { alwaysScopes }).ask()).toEqual({ approved: true, scope: 'always' });
    // A choice the request did not offer is no answer: denied.
    expect(await answering(wide, { action: 'accept', content: { confirm: 'always:zone' } }, { alwaysScopes }).ask()).toMatchObject({ approved: false });
    // "For this session" has no such choices.
    const session = answering({ action: 'accept', content: { decision: 'approve', scope: 'session' } }, { action: 'accept', content: { confirm: 'always:exact' } }, { alwaysScopes });
    expect(await session.ask()).toMatchObject({ approved: false });
    expect(session.sent[1]!.requestedSchema).toEqual(wideApprovalSchema('session'));
  });
});
