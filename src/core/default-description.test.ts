import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createGate } from './gate.ts';
import { parsePolicy } from './policy/parse-policy.ts';
import { defaultDescription } from './default-description.ts';
import type { PresentedRequest } from './approver.ts';
import type { ToolDeclaration } from './tool-declaration.ts';

const NO_KEYS = new Set<string>();

describe('a call\'s default description (seed 001)', () => {
  it('is name(key=value, ...) with JSON values', () => {
    expect(defaultDescription({ call: { tool: 'send_email', args: { to: 'a@b.c', cc: ['x', 'y'], urgent: true, count: 2 }, callId: 'c' }, redactKeys: NO_KEYS })).toBe(
      'send_email(to="a@b.c", cc=["x","y"], urgent=true, count=2)',
    );
    expect(defaultDescription({ call: { tool: 'ping', args: {}, callId: 'c' }, redactKeys: NO_KEYS })).toBe('ping()');
    expect(defaultDescription({ call: { tool: 'odd', args: [1, 2], callId: 'c' }, redactKeys: NO_KEYS })).toBe('odd([1,2])');
  });

  it('never shows a secret: redact.keys are masked with their size', () => {
    const text = defaultDescription({ call: { tool: 'login', args: { user: 'ann', password: 'hunter2', nested: { api_key: 'sk-123456' } }, callId: 'c' }, redactKeys: new Set(['password', 'api_key']) });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('sk-123456');
    expect(text).toContain('password="‹secret: 7 characters›"');
  });

  it('stays one bounded line however long the arguments', () => {
    const text = defaultDescription({ call: { tool: 'write', args: { content: 'x'.repeat(10_000), more: 'y'.repeat(500), a: 1, b: 2 }, callId: 'c' }, redactKeys: NO_KEYS });
    expect(text.length).toBeLessThanOrEqual(160);
    expect(text).toMatch(/^write\(content="x+\.\.\., more="y+\.\.\., a=1, b=2\)$/);
    const many = defaultDescription({ call: { tool: 'w', args: Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`key${index}`, index])), callId: 'c' }, redactKeys: NO_KEYS });
    expect(many.length).toBe(160);
    expect(many.endsWith('...)')).toBe(true);
  });

  it('shows every string value as JSON.stringify writes it, escapes and lone surrogates included (the plain-string shortcut changes nothing)', () => {
    const reference = (value: string): string => {
      const text = JSON.stringify(value);
      return `s(v=${text.length <= 48 ? text : `${text.slice(0, 45)}...`})`;
    };
    for (const value of ['', 'plain', 'a"b', 'back\\slash', 'tab\there', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', 'x\udc00', '😀', 'x'.repeat(46), 'x'.repeat(47), `${'x'.repeat(45)}"`]) {
      expect(defaultDescription({ call: { tool: 's', args: { v: value }, callId: 'c' }, redactKeys: NO_KEYS })).toBe(reference(value));
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (value) => {
        expect(defaultDescription({ call: { tool: 's', args: { v: value }, callId: 'c' }, redactKeys: NO_KEYS })).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the policy\'s description reaches the approver', () => {
  async function askedDescription(options: { policy: string; tool: ToolDeclaration; args: Record<string, unknown> }): Promise<string> {
    const asked: PresentedRequest[] = [];
    const gate = createGate({
      policy: parsePolicy({ text: options.policy, source: 'inline' }),
      tools: [options.tool],
      approver: { ask: async (request) => (asked.push(request), { approved: false, scope: 'once' }) },
    });
    await gate.authorize({ tool: options.tool.name, args: options.args, callId: 'c1' }, { sessionId: 's' });
    expect(asked).toHaveLength(1);
    return asked[0]!.description;
  }

  it('for a tool that only says it needs approval', async () => {
    const tool: ToolDeclaration = { name: 'send_email', description: 'Sends an email (model-facing)', needsApproval: true };
    expect(await askedDescription({ policy: 'tools:\n  send_email: { decision: ask, description: "Send an email" }\n', tool, args: { to: 'a' } })).toBe('Send an email');
    // Without one, the call itself, not the tool's model-facing description.
    expect(await askedDescription({ policy: 'tools: {}\n', tool, args: { to: 'a' } })).toBe('send_email(to="a")');
  });

  it('for a tool that describes its own request', async () => {
    const tool: ToolDeclaration = { name: 'deploy', checkApproval: (call) => ({ tool: 'deploy', description: 'Deploy build 42', payload: call.args }) };
    expect(await askedDescription({ policy: 'tools:\n  deploy: { decision: ask, description: "Deploy to production" }\n', tool, args: {} })).toBe('Deploy to production');
    expect(await askedDescription({ policy: 'tools: {}\n', tool, args: {} })).toBe('Deploy build 42');
  });

  it('an argument rule\'s description wins over the tool\'s, and applies even where the policy itself allows', async () => {
    const tool: ToolDeclaration = { name: 'pay', needsApproval: true };
    const policy = 'tools:\n  pay:\n    decision: allow\n    description: "Make a payment"\n    rules:\n      - { args: { to: "mallory" }, decision: ask, description: "Pay Mallory (flagged)" }\n';
    expect(await askedDescription({ policy, tool, args: { to: 'mallory' } })).toBe('Pay Mallory (flagged)');
    expect(await askedDescription({ policy, tool, args: { to: 'bob' } })).toBe('Make a payment');
  });
});
