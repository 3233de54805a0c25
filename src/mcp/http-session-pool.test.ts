import { describe, expect, it } from 'vitest';
import { createHttpSessionPool } from './http-session-pool.ts';

function fakeSession(closed: string[], id: string) {
  return { close: async () => void closed.push(id) };
}

describe('createHttpSessionPool', () => {
  it('evicts the least recently used idle session, never a busy one, and refuses when all are busy', async () => {
    const closed: string[] = [];
    const ended: string[] = [];
    const pool = createHttpSessionPool({ maxSessions: 3, idleTimeoutMs: 60_000, onEnded: (id, reason) => void ended.push(`${id}:${reason}`) });
    for (const id of ['a', 'b', 'c']) {
      expect(pool.reserve()).toBe(true);
      pool.add(id, fakeSession(closed, id));
    }
    const endA = pool.begin('a');
    endA(); // a was used after b and c: b is now the least recently used
    const endC = pool.begin('c'); // c stays busy
    expect(pool.reserve()).toBe(true);
    expect(pool.get('b')).toBeUndefined();
    pool.add('d', fakeSession(closed, 'd'));
    const endD = pool.begin('d');
    expect(pool.reserve()).toBe(true); // a, the only idle one
    expect(pool.get('a')).toBeUndefined();
    pool.add('e', fakeSession(closed, 'e'));
    const endE = pool.begin('e');
    expect(pool.reserve()).toBe(false);
    expect(pool.size).toBe(3);
    await Promise.resolve();
    expect(closed).toEqual(['b', 'a']);
    expect(ended).toEqual(['b:evicted', 'a:evicted']);
    endC();
    endC(); // twice is harmless: c is idle, not "less than idle"
    expect(pool.reserve()).toBe(true);
    expect(pool.get('c')).toBeUndefined();
    pool.release();
    endD();
    endE();
  });

  it('counts reservations still initializing, and gives them back', () => {
    const pool = createHttpSessionPool({ maxSessions: 1, idleTimeoutMs: 60_000 });
    expect(pool.reserve()).toBe(true);
    expect(pool.reserve()).toBe(false);
    pool.release();
    expect(pool.reserve()).toBe(true);
  });

  it('closes a session idle for the timeout, and not one that is busy', async () => {
    const closed: string[] = [];
    const pool = createHttpSessionPool({ maxSessions: 4, idleTimeoutMs: 50 });
    pool.reserve();
    pool.add('idle', fakeSession(closed, 'idle'));
    pool.reserve();
    pool.add('busy', fakeSession(closed, 'busy'));
    const end = pool.begin('busy');
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(closed).toEqual(['idle']);
    expect(pool.get('busy')).toBeDefined();
    end();
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(closed).toEqual(['idle', 'busy']);
    expect(pool.size).toBe(0);
  });

  it('remove forgets a session without closing it; begin on an unknown id is harmless', async () => {
    const closed: string[] = [];
    const pool = createHttpSessionPool({ maxSessions: 1, idleTimeoutMs: 30 });
    pool.reserve();
    pool.add('deleted', fakeSession(closed, 'deleted'));
    pool.remove('deleted');
    pool.begin('deleted')();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(closed).toEqual([]);
    expect(pool.reserve()).toBe(true);
  });
});
