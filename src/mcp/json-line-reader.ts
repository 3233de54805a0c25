import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Like the SDK's stdio reader: a message longer than this is an error, never an unbounded buffer. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into newline-delimited JSON-RPC messages (the MCP
 * stdio framing). Unlike the SDK's `ReadBuffer` it does not validate each
 * message against the whole JSON-RPC schema: the SDK's `Protocol` classifies
 * every message with its own schemas anyway, and validating twice is a
 * measurable share of a forwarded call. A line that is not a JSON object
 * with `jsonrpc: "2.0"` is reported and skipped; the next lines are read.
 *
 * @example
 * const reader = createJsonLineReader({ onMessage: (message) => transport.onmessage?.(message), onError });
 * stream.on('data', (chunk) => reader.append(chunk));
 */
export function createJsonLineReader(options: { onMessage: (message: JSONRPCMessage) => void; onError: (error: Error) => void; maxBytes?: number }) {
  const maxBytes = options.maxBytes ?? MAX_MESSAGE_BYTES;
  let pending: Buffer | undefined;
  return {
    append(chunk: Buffer): void {
      let data = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
      pending = undefined;
      let start = 0;
      for (let end = data.indexOf(NEWLINE); end !== -1; end = data.indexOf(NEWLINE, start)) {
        const line = data.toString('utf8', start, end > start && data[end - 1] === 0x0d ? end - 1 : end);
        start = end + 1;
        if (line.trim() !== '') deliver(line);
      }
      if (start < data.length) {
        data = data.subarray(start);
        if (data.length > maxBytes) {
          options.onError(new Error(`a message longer than ${maxBytes} bytes was dropped`));
          return;
        }
        pending = data;
      }
    },
    clear(): void {
      pending = undefined;
    },
  };

  function deliver(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      options.onError(new Error(`not JSON: ${(error as Error).message}`));
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message) || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
      options.onError(new Error('not a JSON-RPC 2.0 message'));
      return;
    }
    options.onMessage(message as JSONRPCMessage);
  }
}
