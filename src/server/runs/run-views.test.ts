import { describe, expect, it } from 'vitest';
import type { StoredApprovalText } from '../../store/store.ts';
import { normalizePolicy } from '../../core/policy/normalize-policy.ts';
import { pauseRecords } from './run-events.ts';
import { pendingView, pendingViewText } from './run-views.ts';

const identity = { runId: 'run-"1"\u2028', toolCallId: 'call-é-😀', tool: 'write_file', groupId: null as string | null };

/** An approval as the store lists it, its request stored as `request` serialises. */
function stored(request: Record<string, unknown>, row: Partial<typeof identity> = {}): StoredApprovalText {
  return { ...identity, ...row, owner: 'alice', requestText: JSON.stringify(request), createdAt: '2026-11-25T00:00:00.000Z', schemaVersion: 1 };
}

/** What `GET /approvals` must send for it: the view built from the parsed request. */
function expected(approval: StoredApprovalText): string {
  return JSON.stringify(pendingView({ ...approval, request: JSON.parse(approval.requestText) as Record<string, unknown> }));
}

describe('pendingViewText', () => {
  it('sends a request written with the four fields first as stored: the very text, equal to the rebuilt view', () => {
    for (const groupId of [null, 'pause-"7"', 'g-1']) {
      const approval = stored(
        { run_id: identity.runId, tool_call_id: identity.toolCallId, tool_name: identity.tool, group_id: groupId, reason: 'needs a person', presentation: { diff: '- a\n+ b', hostile: '\u202e\u200b\u001b[2J' } },
        { groupId },
      );
      expect(pendingViewText(approval)).toBe(approval.requestText);
      expect(pendingViewText(approval)).toBe(expected(approval));
    }
    const bare = stored({ run_id: identity.runId, tool_call_id: identity.toolCallId, tool_name: identity.tool, group_id: null });
    expect(pendingViewText(bare)).toBe(bare.requestText);
    // Sent, not rebuilt: the stored bytes go out as they are (a rebuilt view would lose this spacing).
    const spaced = { ...bare, requestText: `${bare.requestText.slice(0, -1)}, "reason" : "kept as stored" }` };
    expect(pendingViewText(spaced)).toBe(spaced.requestText);
  });

  it('rebuilds any other text: another field order, or fields that are not the approval\'s own (the approval wins)', () => {
    const older = stored({ run_id: identity.runId, tool_call_id: identity.toolCallId, tool_name: identity.tool, reason: 'r', group_id: null });
    expect(pendingViewText(older)).not.toBe(older.requestText);
    expect(pendingViewText(older)).toBe(expected(older));
    expect(Object.keys(JSON.parse(pendingViewText(older)) as object)).toEqual(['run_id', 'tool_call_id', 'tool_name', 'group_id', 'reason']);

    // A prefix of the approval's value is another value: "g-10" is not "g-1".
    const longer = stored({ run_id: identity.runId, tool_call_id: identity.toolCallId, tool_name: identity.tool, group_id: 'g-10', reason: 'r' }, { groupId: 'g-1' });
    expect(JSON.parse(pendingViewText(longer))).toMatchObject({ group_id: 'g-1', reason: 'r' });

    const otherRun = stored({ run_id: 'run-2', tool_call_id: identity.toolCallId, tool_name: 'shell', group_id: null });
    expect(JSON.parse(pendingViewText(otherRun))).toEqual({ run_id: identity.runId, tool_call_id: identity.toolCallId, tool_name: identity.tool, group_id: null });

    const missing = stored({ reason: 'only a reason', __proto__: 'kept' } as Record<string, unknown>);
    expect(pendingViewText(missing)).toBe(expected(missing));
  });

  it('refuses a stored request that is not a JSON object, naming the column', () => {
    expect(() => pendingViewText({ ...stored({}), requestText: '[1,2]' })).toThrow(/approvals\.request/);
    expect(() => pendingViewText({ ...stored({}), requestText: '{"run_id":' })).toThrow();
  });
});

describe('what a paused run stores', () => {
  it('is sent as stored: pauseRecords writes each request with the four naming fields first, grouped or not', () => {
    const context = { run: { runId: 'run-1', owner: 'alice' }, policy: normalizePolicy({}) };
    const pending = (toolCallId: string, groupId?: string) => ({
      approvalId: `a-${toolCallId}`,
      toolCallId,
      tool: 'write_file',
      args: { path: 'a.txt', content: 'x' },
      description: 'write a.txt',
      payload: { path: 'a.txt' },
      required: true,
      reason: 'writes ask',
      ...(groupId === undefined ? {} : { groupId }),
    });
    for (const calls of [[pending('c1')], [pending('c1'), pending('c2')], [pending('c1', 'g-1')]]) {
      const { approvals } = pauseRecords({ context, pending: calls, messages: [], gateContext: { sessionId: 's1' }, pauseId: 'pause-1' });
      for (const approval of approvals) {
        const requestText = JSON.stringify(approval.request);
        const listed: StoredApprovalText = { ...approval, requestText, createdAt: '2026-11-25T00:00:00.000Z', schemaVersion: 1 };
        // The very string, not an equal rebuilt one: the stored text is already the view.
        expect(pendingViewText(listed)).toBe(requestText);
        expect(pendingViewText({ ...listed, requestText: `${requestText.slice(0, -1)} }` })).toBe(`${requestText.slice(0, -1)} }`);
      }
    }
  });
});
