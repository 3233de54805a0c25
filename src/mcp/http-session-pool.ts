/** The default time an HTTP session may sit idle before it is closed. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60_000;
/** The default number of open HTTP sessions. */
export const DEFAULT_MAX_SESSIONS = 64;

/** Something the pool can end: one client's session and what it holds. */
export interface PooledSession {
  close(): Promise<void>;
}

/** Why a session left the pool. */
export type SessionEndReason = 'idle' | 'evicted';

export interface HttpSessionPool<Session extends PooledSession> {
  /** Open sessions (not counting initializations still being answered). */
  readonly size: number;
  get(id: string): Session | undefined;
  /**
   * Makes room for one more session: when the pool is full, the least recently
   * used idle session is closed. False when every session is busy (a request in
   * flight or an open SSE stream): the new client must be refused. Each `true`
   * holds a place until `add` or `release` gives it back.
   */
  reserve(): boolean;
  /** Gives back a place `reserve` held, when no session came of it. */
  release(): void;
  /** Adds the session a reservation was made for; it is busy until `begin`'s `end` is called. */
  add(id: string, session: Session): void;
  /** Forgets a session that ended by itself (DELETE, transport closed); does not close it. */
  remove(id: string): void;
  /**
   * Marks the session busy while one HTTP exchange lasts (a POST until its
   * response ends, a GET for as long as its SSE stream is open). The returned
   * function ends it; calling it twice is harmless.
   */
  begin(id: string): () => void;
  /** Closes every session. */
  closeAll(): Promise<void>;
}

interface Entry<Session> {
  session: Session;
  active: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * The HTTP gateway's open sessions. A session is idle when no HTTP exchange of
 * its own is open; one idle for `idleTimeoutMs` is closed (its id then answers
 * 404, and the client must initialize again, as the Streamable HTTP spec
 * says). When `maxSessions` are open, a new client takes the place of the
 * least recently used idle session; only when all are busy is it refused.
 * Clients that go away without DELETE (most do) cost a place only until then.
 *
 * @example
 * const pool = createHttpSessionPool({ maxSessions: 64, idleTimeoutMs: 1_800_000, onEnded: (id, why) => log(`${id}: ${why}`) });
 * if (!pool.reserve()) return reply(response, 503, 'too many busy sessions');
 */
export function createHttpSessionPool<Session extends PooledSession>(options: {
  maxSessions: number;
  idleTimeoutMs: number;
  /** Called after the pool closed a session itself (expired or evicted). */
  onEnded?: (id: string, reason: SessionEndReason) => void;
  /** Called when closing a session failed. */
  onError?: (id: string, error: unknown) => void;
}): HttpSessionPool<Session> {
  // Map order is recency order: every begin and end moves a session to the back.
  const entries = new Map<string, Entry<Session>>();
  let reserved = 0;

  function end(id: string, entry: Entry<Session>, reason: SessionEndReason): void {
    clearTimeout(entry.timer);
    entries.delete(id);
    entry.session.close().then(
      () => options.onEnded?.(id, reason),
      (error: unknown) => options.onError?.(id, error),
    );
  }

  function refresh(id: string, entry: Entry<Session>): void {
    entries.delete(id);
    entries.set(id, entry);
    clearTimeout(entry.timer);
    entry.timer = undefined;
    if (entry.active > 0) return;
    entry.timer = setTimeout(() => {
      if (entries.get(id) === entry && entry.active === 0) end(id, entry, 'idle');
    }, options.idleTimeoutMs);
    // An idle session must not keep the process alive.
    entry.timer.unref?.();
  }

  return {
    get size() {
      return entries.size;
    },
    get: (id) => entries.get(id)?.session,
    reserve() {
      while (entries.size + reserved >= options.maxSessions) {
        const idle = [...entries].find(([, entry]) => entry.active === 0);
        if (idle === undefined) return false;
        end(idle[0], idle[1], 'evicted');
      }
      reserved += 1;
      return true;
    },
    release() {
      reserved = Math.max(0, reserved - 1);
    },
    add(id, session) {
      reserved = Math.max(0, reserved - 1);
      const entry: Entry<Session> = { session, active: 0, timer: undefined };
      entries.set(id, entry);
      refresh(id, entry);
    },
    remove(id) {
      const entry = entries.get(id);
      if (entry === undefined) return;
      clearTimeout(entry.timer);
      entries.delete(id);
    },
    begin(id) {
      const entry = entries.get(id);
      if (entry === undefined) return () => undefined;
      entry.active += 1;
      refresh(id, entry);
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        entry.active -= 1;
        if (entries.get(id) === entry) refresh(id, entry);
      };
    },
    async closeAll() {
      const open = [...entries.values()];
      for (const entry of open) clearTimeout(entry.timer);
      entries.clear();
      await Promise.allSettled(open.map((entry) => entry.session.close()));
    },
  };
}
