import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Ids of side-channel requests: strings with this prefix, which the SDK (numeric ids) never uses. */
const ID_PREFIX = 'toolgate:';

export interface SideChannelRequest {
  method: string;
  params: Record<string, unknown>;
  /** Then the request is cancelled upstream (`notifications/cancelled`) and rejected with RequestTimeout. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  onprogress?: ((progress: { progress: number; total?: number; message?: string }) => void) | undefined;
}

export interface SideChannel {
  /** Resolves with the result, or rejects with an `McpError` (the server's error, RequestTimeout, ConnectionClosed) or the abort reason. */
  request(request: SideChannelRequest): Promise<Record<string, unknown>>;
}

/**
 * Requests sent on a transport that an SDK `Client` is connected to, beside
 * the Client: their responses (and progress) are taken off the transport
 * before the Client sees them. The gateway forwards every tools/call this
 * way; the Client's generic request machinery (schema checks of every
 * message, per-request bookkeeping) is a measurable share of a forwarded
 * call, and the result is checked once, by the caller. Call after
 * `client.connect(transport)`, which installs the handlers wrapped here.
 *
 * @example
 * await client.connect(transport);
 * const channel = attachSideChannel(transport);
 * const result = await channel.request({ method: 'tools/call', params: { name: 'echo', arguments: {} }, timeoutMs: 60_000 });
 */
export function attachSideChannel(transport: Transport): SideChannel {
  const pending = new Map<string, Waiting>();
  const deadlines = createDeadlines();
  let counter = 0;
  let closed = false;

  const clientOnMessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const record = message as { id?: unknown; method?: unknown; params?: { progressToken?: unknown }; result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (record.method === undefined && typeof record.id === 'string' && record.id.startsWith(ID_PREFIX)) {
      // A late answer to a request already given up on is dropped here, never shown to the Client.
      const waiting = pending.get(record.id);
      if (waiting === undefined) return;
      pending.delete(record.id);
      if (record.error !== undefined) {
        const code = typeof record.error.code === 'number' ? record.error.code : ErrorCode.InternalError;
        waiting.settle(new McpError(code, String(record.error.message ?? 'error'), record.error.data), undefined);
      } else if (typeof record.result === 'object' && record.result !== null && !Array.isArray(record.result)) {
        waiting.settle(undefined, record.result as Record<string, unknown>);
      } else {
        waiting.settle(new McpError(ErrorCode.InvalidRequest, 'the response has no result object'), undefined);
      }
      return;
    }
    if (record.method === 'notifications/progress' && typeof record.params?.progressToken === 'string' && record.params.progressToken.startsWith(ID_PREFIX)) {
      const progress = record.params as unknown as { progress: number; total?: number; message?: string };
      pending.get(record.params.progressToken)?.onprogress?.({ progress: progress.progress, total: progress.total, message: progress.message });
      return;
    }
    clientOnMessage?.(message, extra);
  };

  const clientOnClose = transport.onclose;
  transport.onclose = () => {
    closed = true;
    const error = new McpError(ErrorCode.ConnectionClosed, 'Connection closed');
    const waiting = [...pending.values()];
    pending.clear();
    for (const entry of waiting) entry.settle(error, undefined);
    clientOnClose?.();
  };

  return {
    request(request) {
      if (closed) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
      request.signal?.throwIfAborted();
      const id = `${ID_PREFIX}${++counter}`;
      const params = request.onprogress === undefined ? request.params : { ...request.params, _meta: { ...(request.params._meta as object | undefined), progressToken: id } };
      return new Promise<Record<string, unknown>>((resolve, reject) => {
        const { signal } = request;
        const onAbort = () => giveUp(signal!.reason);
        const waiting: Waiting = {
          deadline: performance.now() + Math.max(0, request.timeoutMs),
          onprogress: request.onprogress,
          settle(error, result) {
            deadlines.remove(waiting);
            signal?.removeEventListener('abort', onAbort);
            if (error === undefined) resolve(result!);
            else reject(error);
          },
          expire: () => giveUp(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: request.timeoutMs })),
        };
        const giveUp = (reason: unknown) => {
          if (!pending.delete(id)) return;
          waiting.settle(reason, undefined);
          const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: String((reason as Error)?.message ?? reason) } } as JSONRPCMessage;
          transport.send(cancel).catch(() => undefined);
        };
        pending.set(id, waiting);
        // The request goes out first; its deadline and cancellation are set up while the server works.
        transport.send({ jsonrpc: '2.0', id, method: request.method, params } as JSONRPCMessage).catch((error: unknown) => {
          if (!pending.delete(id)) return;
          waiting.settle(new McpError(ErrorCode.ConnectionClosed, `could not send the request: ${(error as Error)?.message ?? String(error)}`), undefined);
        });
        if (!pending.has(id)) return;
        deadlines.add(waiting);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}

/** A request waiting for its response. */
interface Waiting extends Deadline {
  onprogress: SideChannelRequest['onprogress'];
  /** Removes its deadline and abort listener, then resolves or rejects the request. */
  settle(error: unknown, result: Record<string, unknown> | undefined): void;
}

interface Deadline {
  /** `performance.now()` time after which `expire` is called. */
  deadline: number;
  expire(): void;
}

/** The longest delay `setTimeout` honours; a later deadline is reached in steps. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The deadlines of the requests in flight, watched by one timer armed for the
 * earliest of them: a request costs a set insertion, not a timer of its own
 * (a forwarded call would otherwise arm and cancel one each time). Like a
 * timer per request, it keeps the process alive while a request is in
 * flight, and not once none is.
 */
function createDeadlines() {
  const entries = new Set<Deadline>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedFor = Number.POSITIVE_INFINITY;

  function arm(at: number): void {
    if (timer !== undefined) clearTimeout(timer);
    armedFor = at;
    timer = setTimeout(fire, Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(at - performance.now()))));
  }

  function fire(): void {
    timer = undefined;
    armedFor = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    const expired: Deadline[] = [];
    for (const entry of entries) {
      if (entry.deadline <= now) expired.push(entry);
      else if (entry.deadline < next) next = entry.deadline;
    }
    for (const entry of expired) {
      entries.delete(entry);
      entry.expire();
    }
    if (next !== Number.POSITIVE_INFINITY && timer === undefined) arm(next);
  }

  return {
    add(entry: Deadline): void {
      entries.add(entry);
      // A timer armed for a later moment is moved earlier; one armed sooner fires, finds nothing due, and re-arms.
      if (entry.deadline < armedFor) arm(entry.deadline);
      else if (entries.size === 1) timer?.ref();
    },
    remove(entry: Deadline): void {
      // Left armed (re-arming on every call costs more than a timer that fires and finds nothing due), but unref'd.
      if (entries.delete(entry) && entries.size === 0) timer?.unref();
    },
  };
}
