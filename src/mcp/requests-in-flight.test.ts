import { describe, expect, it } from 'vitest';
import { createRequestsInFlight } from './requests-in-flight.ts';

describe('createRequestsInFlight', () => {
  it('names the latest request each server is serving, and forgets it when done', async () => {
    const inFlight = createRequestsInFlight();
    let finishFirst!: () => void;
    const first = inFlight.serving('files', 1, () => new Promise<void>((resolve) => (finishFirst = resolve)));
    let finishSecond!: () => void;
    const second = inFlight.serving('files', 2, () => new Promise<void>((resolve) => (finishSecond = resolve)));
    expect(inFlight.latest('files')).toBe(2);
    expect(inFlight.latest('git')).toBeUndefined();
    finishSecond();
    await second;
    expect(inFlight.latest('files')).toBe(1);
    finishFirst();
    await first;
    expect(inFlight.latest('files')).toBeUndefined();
  });

  it('counts nothing for a request no server serves, and forgets a failed one', async () => {
    const inFlight = createRequestsInFlight();
    await expect(inFlight.serving(undefined, 1, async () => 'done')).resolves.toBe('done');
    await expect(inFlight.serving('files', 2, async () => Promise.reject(new Error('gone')))).rejects.toThrow('gone');
    expect(inFlight.latest('files')).toBeUndefined();
  });
});
