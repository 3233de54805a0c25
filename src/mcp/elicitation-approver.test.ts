import { describe, expect, it } from 'vitest';
import { approvalElicitationSchema, decisionFromElicitation } from './elicitation-approver.ts';

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
