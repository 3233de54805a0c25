import { describe, expect, it } from 'vitest';
import { scopedSession, unscopeSession } from './scoped-session.ts';

describe('scopedSession', () => {
  it('round-trips any owner and session id, quotes and brackets included', () => {
    for (const [owner, sessionId] of [['alice', 's2'], ['a"b', '["x"]'], ['', ''], ['ü', 'line\nbreak']] as const) {
      expect(unscopeSession(scopedSession(owner, sessionId))).toEqual({ owner, sessionId });
    }
  });

  it('is not fooled by sessions that only look scoped', () => {
    for (const session of ['s2', 'claude:abc', '["alice"]', '["alice","s2","x"]', '["alice",2]', '["alice","s2"', '{"0":"a","1":"b"}']) {
      expect(unscopeSession(session)).toBeUndefined();
    }
  });
});
