import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { setLongTimeout } from '../core/long-timeout.ts';

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
  const pending = new Map<string, { resolve: (result: Record<string, unknown>) => void; reject: (error: unknown) => void; onprogress: SideChannelRequest['onprogress'] }>();
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
        waiting.reject(new McpError(code, String(record.error.message ?? 'error'), record.error.data));
      } else if (typeof record.result === 'object' && record.result !== null && !Array.isArray(record.result)) {
        waiting.resolve(record.result as Record<string, unknown>);
      } else {
        waiting.reject(new McpError(ErrorCode.InvalidRequest, 'the response has no result object'));
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
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
    clientOnClose?.();
  };

  return {
    request(request) {
      if (closed) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
      request.signal?.throwIfAborted();
      const id = `${ID_PREFIX}${++counter}`;
      const params = request.onprogress === undefined ? request.params : { ...request.params, _meta: { ...(request.params._meta as object | undefined), progressToken: id } };
      return new Promise<Record<string, unknown>>((resolve, reject) => {
        let cancelTimer: (() => void) | undefined;
        const giveUp = (reason: unknown) => {
          if (!pending.delete(id)) return;
          cleanup();
          reject(reason);
          const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: String((reason as Error)?.message ?? reason) } } as JSONRPCMessage;
          transport.send(cancel).catch(() => undefined);
        };
        const onAbort = () => giveUp(request.signal!.reason);
        const cleanup = () => {
          cancelTimer?.();
          request.signal?.removeEventListener('abort', onAbort);
        };
        pending.set(id, {
          resolve: (result) => {
            cleanup();
            resolve(result);
          },
          reject: (error) => {
            cleanup();
            reject(error);
          },
          onprogress: request.onprogress,
        });
        cancelTimer = setLongTimeout(() => giveUp(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: request.timeoutMs })), request.timeoutMs);
        request.signal?.addEventListener('abort', onAbort, { once: true });
        transport.send({ jsonrpc: '2.0', id, method: request.method, params } as JSONRPCMessage).catch((error: unknown) => {
          if (!pending.delete(id)) return;
          cleanup();
          reject(new McpError(ErrorCode.ConnectionClosed, `could not send the request: ${(error as Error)?.message ?? String(error)}`));
        });
      });
    },
  };
}
