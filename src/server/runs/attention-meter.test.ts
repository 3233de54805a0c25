import { describe, expect, it } from 'vitest';
import { createAttentionMeter } from './attention-meter.ts';

describe('the attention meter', () => {
  it("counts each person's decisions of the last hour, and forgets older ones", () => {
    let now = Date.parse('2026-12-07T10:00:00Z');
    const meter = createAttentionMeter({ now: () => now });
    meter.decided('alice');
    now += 20 * 60_000;
    meter.decided('alice');
    meter.decided('bob');
    expect([meter.lastHour('alice'), meter.lastHour('bob'), meter.lastHour('carol')]).toEqual([2, 1, 0]);
    // 10:00's decision leaves the window at 11:00; 10:20's stays until 11:20.
    now = Date.parse('2026-12-07T11:00:00Z');
    expect(meter.lastHour('alice')).toBe(1);
    now = Date.parse('2026-12-07T11:20:00Z');
    expect([meter.lastHour('alice'), meter.lastHour('bob')]).toEqual([0, 0]);
  });
});
