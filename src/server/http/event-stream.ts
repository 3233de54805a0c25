/**
 * One SSE connection (seed 004's wire form): `id: <event id>` and
 * `data: {"type": ..., "data": {...}}` per event, `: ping` comment lines as
 * heartbeats. The backlog after `afterId` is read in pages, then the stream
 * follows live: it subscribes before its first read, and every read starts
 * after the last id sent, so no event falls between backlog and live and
 * none is sent twice. It reads only as fast as the client takes the bytes,
 * and stops (unsubscribed, timer cleared) when the client goes away.
 */
import type { Principal, RunService } from '../run-service.ts';
import type { StoredEvent } from '../../store/store.ts';
import type { Logger } from '../log.ts';

/** Events per read of the service. */
export const EVENT_PAGE_SIZE = 500;

/** Seed 004: `{type, data}`, and when it happened (`at`); across runs (`GET /events`) the data names its run. */
function frame(event: StoredEvent, withRunId: boolean): string {
  const data = withRunId ? { ...event.data, run_id: event.runId } : event.data;
  return `id: ${event.id}\ndata: ${JSON.stringify({ type: event.type, data, at: event.at })}\n\n`;
}

/**
 * The streaming response. `firstPage` is the first read (done by the caller
 * before answering, so that a run the caller may not see is a JSON 404, not
 * an empty stream).
 *
 * @example
 * const firstPage = await service.readEvents(principal, { runId, afterId, limit: EVENT_PAGE_SIZE });
 * return eventStreamResponse({ service, principal, runId, afterId, firstPage, heartbeatMs: 15_000, signal: c.req.raw.signal, logger });
 */
export function eventStreamResponse(options: {
  service: RunService;
  principal: Principal;
  /** One run's events; absent: every run's the caller may see. */
  runId?: string;
  afterId: number;
  firstPage: readonly StoredEvent[];
  heartbeatMs: number;
  signal: AbortSignal;
  logger: Logger;
  /** Called once when the stream stops (the client left, or the stream failed). */
  onClose?: () => void;
  /**
   * Whether the caller's token is still valid: asked before every read of
   * the store and at every heartbeat; false (a revoked token) ends the stream.
   */
  stillAuthenticated?: (() => Promise<boolean>) | undefined;
}): Response {
  const { service, principal, runId, logger } = options;
  const encoder = new TextEncoder();
  const withRunId = runId === undefined;
  let lastSent = options.afterId;
  let closed = false;
  // Whether the store may hold events after lastSent that were not read yet.
  let dirty = true;
  let wake: (() => void) | undefined;
  let unsubscribe: () => void = () => {};
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let streamController: ReadableStreamDefaultController<Uint8Array> | undefined;

  const nudge = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const stop = () => {
    if (closed) return;
    closed = true;
    options.onClose?.();
    unsubscribe();
    clearInterval(heartbeat);
    options.signal.removeEventListener('abort', stop);
    nudge();
    try {
      streamController?.close();
    } catch {
      // Already cancelled by the client.
    }
  };
  const send = (controller: ReadableStreamDefaultController<Uint8Array>, events: readonly StoredEvent[]) => {
    if (events.length === 0 || closed) return;
    controller.enqueue(encoder.encode(events.map((event) => frame(event, withRunId)).join('')));
    lastSent = events.at(-1)!.id;
  };

  /** False (and the stream stopped) once the token has been revoked. */
  const authenticated = async (): Promise<boolean> => {
    if (options.stillAuthenticated === undefined || (await options.stillAuthenticated())) return true;
    logger.info('event stream closed: its token was revoked', { principal: principal.name, run_id: runId });
    stop();
    return false;
  };

  const follow = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    send(controller, options.firstPage);
    dirty = true;
    while (!closed) {
      if (!dirty || (controller.desiredSize ?? 0) <= 0) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      dirty = false;
      if (!(await authenticated())) return;
      const events = await service.readEvents(principal, { ...(runId === undefined ? {} : { runId }), afterId: lastSent, limit: EVENT_PAGE_SIZE });
      send(controller, events);
      if (events.length === EVENT_PAGE_SIZE) dirty = true;
    }
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        streamController = controller;
        if (options.signal.aborted) {
          stop();
          return;
        }
        options.signal.addEventListener('abort', stop, { once: true });
        unsubscribe = service.onEvents(() => {
          dirty = true;
          nudge();
        });
        heartbeat = setInterval(() => {
          void authenticated().then((valid) => {
            if (valid && !closed) controller.enqueue(encoder.encode(': ping\n\n'));
          });
        }, options.heartbeatMs);
        follow(controller).catch((error: unknown) => {
          if (closed) return;
          logger.error('event stream failed', { principal: principal.name, run_id: runId, after_id: lastSent, error });
          stop();
        });
      },
      pull() {
        nudge();
      },
      cancel() {
        stop();
      },
    },
    { highWaterMark: 4 },
  );
  return new Response(stream, {
    status: 200,
    headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
  });
}
