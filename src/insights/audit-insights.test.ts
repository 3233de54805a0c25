import { describe, expect, it } from 'vitest';
import type { AuditLogItem } from '../audit/read-audit-log.ts';
import { auditInsights } from './audit-insights.ts';

describe('audit insights', () => {
  it('reads a log of 200,000 hours of one approver (a forged or very old log) without overflowing', async () => {
    function* items(): Generator<AuditLogItem> {
      for (let hour = 0; hour < 200_000; hour++) {
        const time = new Date(Date.UTC(2000, 0, 1) + hour * 3_600_000).toISOString();
        yield { line: hour + 1, entry: { v: 1, kind: 'decision', time, session: 's', chat: null, run: null, caller: null, call_id: `c${hour}`, tool: 'shell', args: { command: 'ls' }, verdict: 'ask', decision: 'approved', source: 'person', rule: 'shell.default (ask)', reason: 'r', latency_ms: 1000, approver: 'ann' } };
      }
    }
    const insights = await auditInsights({ items: items(), budgetPerHour: 1 });
    expect(insights.approvers).toEqual([expect.objectContaining({ approver: 'ann', decided: 200_000, busiestHour: 1, hoursOverBudget: 0 })]);
    expect(insights.rules[0]).toMatchObject({ asks: 200_000, rubberStamped: true, medianMs: 1000 });
  });
});
