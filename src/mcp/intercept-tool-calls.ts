import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ErrorCode, type CallToolRequest, type CallToolResult, type JSONRPCMessage, type RequestId, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../core/run-tool-check.ts';

export interface InterceptedCall {
  requestId: RequestId;
  /** Aborts when the client cancels the call (`notifications/cancelled`) or goes away. */
  signal: AbortSignal;
  /** Sends a notification tied to this call (progress). */
  sendNotification: (notification: ServerNotification) => Promise<void>;
}

export interface ToolCallInterception {
  /** Aborts every call still running (the client went away). */
  abortAll(reason: unknown): void;
}

/**
 * Takes tools/call requests off a transport a `Server` is connected to and
 * answers them directly, leaving every other message to the Server. Tool
 * calls are what the gateway mostly forwards, and the SDK's generic request
 * path (schema checks of every message against every message type, a
 * second check of the request and of the result in `Server`) is a measurable
 * share of a forwarded call; here the request is checked once, against
 * `CallToolRequestSchema`. Cancellation from the client is honoured as the
 * SDK would, and answers go out tied to their request (the HTTP transport
 * routes them by it). Call after `server.connect(transport)`.
 *
 * @example
 * await server.connect(transport);
 * const interception = interceptToolCalls({ transport, handle: (request, call) => handleToolCall({ core, request, call }) });
 */
export function interceptToolCalls(options: {
  transport: Transport;
  handle: (request: CallToolRequest, call: InterceptedCall) => Promise<CallToolResult>;
}): ToolCallInterception {
  const { transport } = options;
  const running = new Map<RequestId, AbortController>();
  const serverOnMessage = transport.onmessage;

  transport.onmessage = (message, extra) => {
    const record = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown; reason?: unknown } };
    if (record.method === 'tools/call' && (typeof record.id === 'string' || typeof record.id === 'number')) {
      void dispatch(record.id, message);
      return;
    }
    if (record.method === 'notifications/cancelled' && (typeof record.params?.requestId === 'string' || typeof record.params?.requestId === 'number')) {
      const controller = running.get(record.params.requestId);
      if (controller !== undefined) {
        controller.abort(new Error(`cancelled by the client${typeof record.params.reason === 'string' ? `: ${record.params.reason}` : ''}`));
        return;
      }
    }
    serverOnMessage?.(message, extra);
  };

  async function dispatch(id: RequestId, message: JSONRPCMessage): Promise<void> {
    const send = (reply: Record<string, unknown>) => transport.send({ jsonrpc: '2.0', id, ...reply } as JSONRPCMessage, { relatedRequestId: id }).catch(() => undefined);
    const parsed = parseToolCall(message);
    if (!parsed.success) {
      await send({ error: { code: ErrorCode.InvalidParams, message: `Invalid tools/call request: ${parsed.error}` } });
      return;
    }
    const controller = new AbortController();
    running.set(id, controller);
    try {
      const result = await options.handle(parsed.data, {
        requestId: id,
        signal: controller.signal,
        sendNotification: async (notification) => {
          if (!controller.signal.aborted) await transport.send({ jsonrpc: '2.0', ...notification } as JSONRPCMessage, { relatedRequestId: id });
        },
      });
      // A cancelled request gets no answer (the MCP spec's cancellation rule).
      if (!controller.signal.aborted) await send({ result });
    } catch (error) {
      if (controller.signal.aborted) return;
      const code = (error as { code?: unknown })?.code;
      const data = (error as { data?: unknown })?.data;
      await send({ error: { code: Number.isSafeInteger(code) ? code : ErrorCode.InternalError, message: errorMessage(error), ...(data === undefined ? {} : { data }) } });
    } finally {
      running.delete(id);
    }
  }

  return {
    abortAll(reason) {
      for (const controller of running.values()) controller.abort(reason);
      running.clear();
    },
  };
}

/**
 * The checks of `CallToolRequestSchema` that matter here, without building a
 * zod result: a tool name, and arguments and `_meta` that are objects when
 * present. The full schema runs only to explain a request that fails them.
 */
function parseToolCall(message: JSONRPCMessage): { success: true; data: CallToolRequest } | { success: false; error: string } {
  const params = (message as { params?: unknown }).params;
  if (isObject(params) && typeof params.name === 'string' && (params.arguments === undefined || isObject(params.arguments)) && (params._meta === undefined || isObject(params._meta))) {
    return { success: true, data: message as unknown as CallToolRequest };
  }
  const parsed = CallToolRequestSchema.safeParse(message);
  if (parsed.success) return { success: true, data: parsed.data };
  return { success: false, error: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
