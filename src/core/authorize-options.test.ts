import { describe, expect, it } from 'vitest';
import { createGate } from './gate.ts';
import { normalizePolicy } from './policy/normalize-policy.ts';

describe('authorize options', () => {
  const policy = normalizePolicy({ tools: { deploy: 'ask' } });
  const call = { tool: 'deploy', args: { env: 'prod' }, callId: 'c1' };

  it('approver: null asks nobody, even when the gate has an approver (deferred runs)', async () => {
    let asked = 0;
    const gate = createGate({ policy, tools: [{ name: 'deploy' }], approver: { ask: async () => (asked++, { approved: true, scope: 'once' }) } });
    expect(await gate.authorize(call, { sessionId: 's' }, { approver: null })).toMatchObject({ decision: 'ask' });
    expect(asked).toBe(0);
    expect(await gate.authorize(call, { sessionId: 's' })).toMatchObject({ decision: 'approved', source: 'person' });
    expect(asked).toBe(1);
  });

  it('refuses decisions whose stop, note or args have the wrong type', async () => {
    for (const decision of [
      { approved: false, scope: 'once', stop: 'yes' },
      { approved: true, scope: 'once', note: 42 },
      { approved: false, scope: 'once', args: { env: 'dev' } },
      { approved: false, scope: 'once', automatic: 'true' },
    ]) {
      const gate = createGate({ policy, tools: [{ name: 'deploy' }], approver: { ask: async () => decision as never } });
      const result = await gate.authorize(call, { sessionId: 's' });
      expect(result, JSON.stringify(decision)).toMatchObject({ decision: 'denied', source: 'policy' });
      expect(result.reason).toContain('malformed decision');
      expect(result.stop).toBe(false);
    }
  });
});

describe('approvals bind to what the person was asked about', () => {
  it('"approve always" is saved under the definition the request was made with, not one registered while the prompt was open', async () => {
    const policy = normalizePolicy({});
    const saved: { identity?: string }[] = [];
    const gate = createGate({
      policy,
      tools: [{ name: 'mcp_tool', identity: 'srv#v1' }],
      always: { has: () => false, add: async (entry) => void saved.push(entry) },
      approver: {
        ask: async () => {
          gate.register({ name: 'mcp_tool', identity: 'srv#v2-changed' });
          return { approved: true, scope: 'always' };
        },
      },
    });
    expect(await gate.authorize({ tool: 'mcp_tool', args: {}, callId: 'c' }, { sessionId: 's' })).toMatchObject({ decision: 'approved' });
    expect(saved.map((entry) => entry.identity)).toEqual(['srv#v1']);
  });

  it('edited arguments that are not plain data are denied, and the decision is audited', async () => {
    const records: string[] = [];
    const gate = createGate({
      policy: normalizePolicy({ tools: { deploy: 'ask' } }),
      tools: [{ name: 'deploy' }],
      audit: { record: async (entry) => void records.push(`${entry.kind}:${entry.decision}`) },
      approver: { ask: async () => ({ approved: true, scope: 'once', args: new (class Odd {})() }) },
    });
    const result = await gate.authorize({ tool: 'deploy', args: { env: 'dev' }, callId: 'c' }, { sessionId: 's' });
    expect(result).toMatchObject({ decision: 'denied' });
    expect(result.reason).toContain('not plain data');
    expect(records).toEqual(['verdict:ask', 'decision:denied']);
  });
});
