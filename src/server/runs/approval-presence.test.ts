import { describe, expect, it } from 'vitest';
import { createApprovalPresence, MAX_OPEN_CARDS } from './approval-presence.ts';

describe('createApprovalPresence', () => {
  it("tells each approver the cards others have open, never their own, until a report is not renewed", () => {
    let time = 0;
    const presence = createApprovalPresence({ ttlMs: 20_000, now: () => time });
    presence.report('bob', [{ run_id: 'r1', tool_call_id: 'c1' }]);
    presence.report('carol', [{ run_id: 'r1', tool_call_id: 'c1' }, { run_id: 'r2', tool_call_id: 'c9' }]);
    expect(presence.othersThan('alice')).toEqual([
      { run_id: 'r1', tool_call_id: 'c1', names: ['bob', 'carol'] },
      { run_id: 'r2', tool_call_id: 'c9', names: ['carol'] },
    ]);
    expect(presence.othersThan('bob')).toEqual([
      { run_id: 'r1', tool_call_id: 'c1', names: ['carol'] },
      { run_id: 'r2', tool_call_id: 'c9', names: ['carol'] },
    ]);
    // A new report replaces the last; an empty one ends it.
    presence.report('carol', []);
    expect(presence.othersThan('alice')).toEqual([{ run_id: 'r1', tool_call_id: 'c1', names: ['bob'] }]);
    // Not renewed: gone.
    time = 20_000;
    expect(presence.othersThan('alice')).toEqual([]);
  });

  it('keeps at most MAX_OPEN_CARDS per report', () => {
    const presence = createApprovalPresence({ ttlMs: 1000, now: () => 0 });
    presence.report('bob', Array.from({ length: MAX_OPEN_CARDS + 10 }, (_, index) => ({ run_id: 'r', tool_call_id: `c${index}` })));
    expect(presence.othersThan('alice')).toHaveLength(MAX_OPEN_CARDS);
  });
});
