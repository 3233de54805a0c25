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
