/**
 * A session as the gate and the audit log know it when a server runs it for
 * an owner: the owner and the session id the API was given, together, so one
 * principal can never reuse another's "approve for session" by naming its
 * session. The audit log stores this form; `toolgate audit --session` reads
 * it back.
 *
 * @example
 * scopedSession('alice', 's2') // '["alice","s2"]'
 */
export function scopedSession(owner: string, sessionId: string): string {
  return JSON.stringify([owner, sessionId]);
}

/**
 * The owner and session id of a scoped session, or undefined when `session`
 * is not one (a terminal run's session, a hook's `claude:<id>`).
 *
 * @example
 * unscopeSession('["alice","s2"]') // { owner: 'alice', sessionId: 's2' }
 * unscopeSession('s2')             // undefined
 */
export function unscopeSession(session: string): { owner: string; sessionId: string } | undefined {
  // Cheap refusal first: most sessions are not JSON and parsing them would throw.
  if (!session.startsWith('["')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(session);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string' || typeof value[1] !== 'string') return undefined;
  return { owner: value[0], sessionId: value[1] };
}
