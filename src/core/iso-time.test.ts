import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.ts';

describe('isoTime', () => {
  it('is toISOString for any time a Date holds, including six-digit and negative years', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (time) => {
        expect(isoTime(time)).toBe(new Date(time).toISOString());
      }),
      { numRuns: 5_000 },
    );
  });

  it('is toISOString at the edges of seconds, minutes, days and the range', () => {
    const edges = [0, 1, 9, 10, 99, 100, 999, 1000, 59_999, 60_000, 60_001, -1, -999, -1000, -59_999, -60_000, -60_001, 86_399_999, 8.64e15, -8.64e15];
    for (const time of [...edges, Date.UTC(2026, 10, 28, 23, 59, 59, 999), Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(10_000, 0, 1)]) {
      expect(isoTime(time)).toBe(new Date(time).toISOString());
    }
  });

  it('follows time in both directions across the kept minute', () => {
    const start = Date.UTC(2026, 10, 28, 20, 30, 59, 998);
    for (const time of [start, start + 1, start + 2, start + 3, start - 60_000, start + 3_600_000, start]) {
      expect(isoTime(time)).toBe(new Date(time).toISOString());
    }
  });

  it('throws as toISOString does for a time a Date cannot hold, and truncates a fraction as it does', () => {
    for (const time of [Number.NaN, Number.POSITIVE_INFINITY, 8.64e15 + 1, -8.64e15 - 1]) {
      expect(() => isoTime(time)).toThrow(RangeError);
    }
    expect(isoTime(1.7)).toBe(new Date(1.7).toISOString());
    expect(isoTime(-1.7)).toBe(new Date(-1.7).toISOString());
  });

  it('defaults to now', () => {
    const before = Date.now();
    const shown = Date.parse(isoTime());
    expect(shown).toBeGreaterThanOrEqual(before);
    expect(shown).toBeLessThanOrEqual(Date.now());
  });
});
