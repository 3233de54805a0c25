/**
 * A JSON-RPC error as the SDK sends it back: `code`, `message` and `data`
 * are copied into the response as they are. (The SDK's own `McpError`
 * prefixes its message with "MCP error <code>:", which a client's `McpError`
 * then prefixes again.)
 *
 * @example
 * throw new McpProtocolError({ code: ErrorCode.InvalidParams, message: 'Unknown tool: x' });
 */
export class McpProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(options: { code: number; message: string; data?: unknown }) {
    super(options.message);
    this.name = 'McpProtocolError';
    this.code = options.code;
    this.data = options.data;
  }
}
