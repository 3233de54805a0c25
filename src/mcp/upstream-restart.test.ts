import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRestartBackoff } from './upstream-restart.ts';

describe('createRestartBackoff', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('doubles the delay with each failure up to the longest, and waits for one attempt at a time', () => {
    const backoff = createRestartBackoff({ initialDelayMs: 500, maxDelayMs: 3000 });
    const attempts: number[] = [];
    const delays: number[] = [];
    for (let failure = 0; failure < 5; failure++) {
      const started = Date.now();
      expect(backoff.schedule(() => attempts.push(Date.now() - started))).toBe(true);
      expect(backoff.schedule(() => attempts.push(-1))).toBe(false);
      delays.push(backoff.secondsToNext());
      vi.runAllTimers();
    }
    expect(attempts).toEqual([500, 1000, 2000, 3000, 3000]);
    expect(delays).toEqual([1, 1, 2, 3, 3]);
    expect(backoff.secondsToNext()).toBe(0);
  });

  it('starts over from the first delay after a server that ran long enough stopped, not after a short run', () => {
    const backoff = createRestartBackoff({ initialDelayMs: 100, stableAfterMs: 10_000 });
    const at: number[] = [];
    const once = () => {
      const started = Date.now();
      backoff.schedule(() => at.push(Date.now() - started));
      vi.runAllTimers();
    };
    once();
    once();
    backoff.ready();
    vi.advanceTimersByTime(5000);
    backoff.stopped();
    once();
    backoff.ready();
    vi.advanceTimersByTime(10_000);
    backoff.stopped();
    once();
    expect(at).toEqual([100, 200, 400, 100]);
  });

  it('runs nothing once cancelled', () => {
    const backoff = createRestartBackoff(undefined);
    let ran = false;
    backoff.schedule(() => (ran = true));
    backoff.cancel();
    vi.runAllTimers();
    expect(ran).toBe(false);
    expect(backoff.schedule(() => (ran = true))).toBe(true);
  });
});
