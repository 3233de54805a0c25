/**
 * Other servers' changes, as the PostgreSQL store's `watch` reports them:
 * LISTEN on the events, memory and "approve always" channels.
 */
import pg from 'pg';
import { ALWAYS_CHANNEL, EVENTS_CHANNEL, MEMORY_CHANNEL } from './postgres-schema.ts';
import type { StoreChange } from './store.ts';

/**
 * LISTENs on the events, memory and "approve always" channels on a connection of its own,
 * telling `listener` what changed; when the connection is lost it connects
 * again (every second until it can) and reports `resync`, since anything may
 * have changed meanwhile.
 */
export function watchChanges(options: { url: string; listener: (change: StoreChange) => void; connectTimeoutMs: number }): () => Promise<void> {
  let stopped = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: options.connectTimeoutMs });
    next.on('error', () => undefined);
    next.on('notification', (message) => {
      if (message.channel === EVENTS_CHANNEL) options.listener({ kind: 'events' });
      else if (message.channel === MEMORY_CHANNEL) options.listener({ kind: 'memory', key: message.payload === undefined || message.payload === '' ? null : message.payload });
      else if (message.channel === ALWAYS_CHANNEL) options.listener({ kind: 'always' });
    });
    next.once('end', () => {
      if (!stopped && client === next) again();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${EVENTS_CHANNEL}; LISTEN ${MEMORY_CHANNEL}; LISTEN ${ALWAYS_CHANNEL}`);
    } catch {
      await next.end().catch(() => undefined);
      if (!stopped) again();
      return;
    }
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    const reconnected = client !== undefined;
    client = next;
    if (reconnected) options.listener({ kind: 'resync' });
  };
  const again = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void connect(), 1000);
    timer.unref();
  };
  void connect();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await client?.end().catch(() => undefined);
  };
}
