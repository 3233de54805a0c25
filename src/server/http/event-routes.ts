/**
 * The SSE routes: `GET /runs/:id/events` (one run; without `Last-Event-ID`,
 * from the run's start) and `GET /events` (every run the caller may see;
 * without `Last-Event-ID`, only what happens from now on). `?last_event_id=`
 * stands in for the header where a client cannot set headers; the header
 * wins when both are sent. One token holds at most
 * `MAX_STREAMS_PER_PRINCIPAL` streams open at once (429 past that): every
 * open stream reads the store again on every stored event, so one client
 * opening thousands would slow every run for everyone.
 */
import type { Context, Hono } from 'hono';
import { ApiError, type RunService } from '../run-service.ts';
import type { ToolgateStore } from '../../store/store.ts';
import type { Logger } from '../log.ts';
import { EVENT_PAGE_SIZE, eventStreamResponse } from './event-stream.ts';
import { eventsQuery, parseRequest, singleValuedQuery } from './request-schemas.ts';
import { principalOf } from './run-routes.ts';
import type { ServerEnv } from './server-env.ts';
import { requestHeader } from './node-request.ts';

/** Seed 004's default: a heartbeat comment every 15 seconds. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** Open SSE streams one principal (token name) may hold at once: a few browser tabs and clients, each with a run view. */
export const MAX_STREAMS_PER_PRINCIPAL = 32;

/**
 * Registers the SSE routes on `app`.
 *
 * @example
 * registerEventRoutes({ app, service, store, heartbeatMs: DEFAULT_HEARTBEAT_MS, logger });
 */
export function registerEventRoutes(options: { app: Hono<ServerEnv>; service: RunService; store: ToolgateStore; heartbeatMs: number; logger: Logger }): void {
  const { app, service, store } = options;
  const open = openStreamCounter(MAX_STREAMS_PER_PRINCIPAL);

  app.get('/runs/:id/events', async (c) => {
    const principal = principalOf(c);
    const runId = c.req.param('id');
    const afterId = lastEventId(c) ?? 0;
    // Read before answering: a run the caller may not see is the service's JSON 404, not an empty stream.
    const firstPage = await service.readEvents(principal, { runId, afterId, limit: EVENT_PAGE_SIZE });
    if (c.req.method === 'HEAD') return headResponse();
    const onClose = open.claim(principal.name);
    return eventStreamResponse({ ...options, principal, runId, afterId, firstPage, signal: c.req.raw.signal, onClose, stillAuthenticated: c.get('stillAuthenticated') });
  });

  app.get('/events', async (c) => {
    const principal = principalOf(c);
    const afterId = lastEventId(c) ?? (await store.lastEventId());
    const firstPage = await service.readEvents(principal, { afterId, limit: EVENT_PAGE_SIZE });
    if (c.req.method === 'HEAD') return headResponse();
    const onClose = open.claim(principal.name);
    return eventStreamResponse({ ...options, principal, afterId, firstPage, signal: c.req.raw.signal, onClose, stillAuthenticated: c.get('stillAuthenticated') });
  });
}

/**
 * A HEAD answer: the stream's status and headers, and no stream. (Hono
 * answers HEAD with the GET handler's response minus its body; a stream
 * made for it is never read nor cancelled, so it would stay subscribed and
 * hold its place forever.)
 */
function headResponse(): Response {
  return new Response(null, { status: 200, headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' } });
}

/**
 * Counts each principal's open streams: `claim` takes a place (or throws a
 * 429 when none is left) and returns its release, which frees it once.
 */
function openStreamCounter(limit: number): { claim(name: string): () => void } {
  const counts = new Map<string, number>();
  return {
    claim(name) {
      const count = counts.get(name) ?? 0;
      if (count >= limit) {
        throw new ApiError(429, `too many open event streams for token ${JSON.stringify(name)}: at most ${limit} at once; close one first`, { limit });
      }
      counts.set(name, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (counts.get(name) ?? 1) - 1;
        if (left <= 0) counts.delete(name);
        else counts.set(name, left);
      };
    },
  };
}

/** `Last-Event-ID`, else `?last_event_id=`: a whole number, or a 400. */
function lastEventId(c: Context<ServerEnv>): number | undefined {
  const query = parseRequest({ schema: eventsQuery, value: singleValuedQuery(c.req.queries()), what: 'query' });
  const header = requestHeader(c, 'last-event-id');
  if (header === undefined) return query.last_event_id;
  const trimmed = header.trim();
  if (!/^[0-9]{1,16}$/.test(trimmed) || !Number.isSafeInteger(Number(trimmed))) throw new ApiError(400, `Last-Event-ID must be the id of an event (a whole number), got ${JSON.stringify(header.slice(0, 40))}`, { field: 'Last-Event-ID', expected: 'a whole number' });
  return Number(trimmed);
}
