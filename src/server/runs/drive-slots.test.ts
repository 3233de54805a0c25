import { describe, expect, it } from 'vitest';
import { createDriveSlots } from './server-runtime.ts';

describe('createDriveSlots', () => {
  it('lets `limit` holders in at once and the rest in arrival order as slots free', async () => {
    const slots = createDriveSlots(2);
    const order: string[] = [];
    await slots.acquire();
    await slots.acquire();
    const third = slots.acquire().then(() => order.push('third'));
    const fourth = slots.acquire().then(() => order.push('fourth'));
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(slots.waiting).toBe(2);
    slots.release();
    await third;
    expect(order).toEqual(['third']);
    slots.release();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    expect(slots.waiting).toBe(0);
    // Two holders left; releasing both frees both slots: two more get in at once.
    slots.release();
    slots.release();
    let entered = 0;
    await Promise.all([slots.acquire().then(() => entered++), slots.acquire().then(() => entered++)]);
    expect(entered).toBe(2);
    expect(slots.waiting).toBe(0);
  });
});
