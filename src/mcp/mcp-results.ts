import { ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Authorization } from '../core/types.ts';
import { errorMessage } from '../core/run-tool-check.ts';
import { McpProtocolError } from './mcp-protocol-error.ts';
import { UpstreamError } from './upstream-error.ts';

/**
 * Every shape the gateway answers a client with when something is refused or
 * fails, in one place. Refusals and upstream failures are `isError` tool
 * results whose text the model can act on; only a call to a tool that does
 * not exist for this client (unknown or hidden by a filter, told apart by
 * nothing) is a protocol error, as the MCP spec has it.
 */

/**
 * The tool result for a call the gate did not let through.
 *
 * @example
 * refusedToolResult({ tool: 'move_file', authorization, approvalTimeoutMs: 300_000 }) // { isError: true, content: [{ type: 'text', text: 'toolgate blocked this call to move_file: …' }] }
 */
export function refusedToolResult(options: { tool: string; authorization: Authorization; approvalTimeoutMs: number | undefined }): CallToolResult {
  const { tool, authorization } = options;
  return errorResult(refusalText({ tool, authorization, approvalTimeoutMs: options.approvalTimeoutMs }));
}

function refusalText(options: { tool: string; authorization: Authorization; approvalTimeoutMs: number | undefined }): string {
  const { tool, authorization } = options;
  const reason = authorization.reason;
  if (authorization.decision === 'block') {
    return `toolgate blocked this call to ${tool}: ${reason}. It did not run. Do not retry it; choose another approach or ask the user.`;
  }
  if (authorization.source === 'timeout') {
    const within = options.approvalTimeoutMs === undefined ? '' : ` within ${formatDuration(options.approvalTimeoutMs)}`;
    return `toolgate: approval for this call to ${tool} timed out (nobody answered${within}), so it did not run. Ask the user before trying again.`;
  }
  if (authorization.source === 'person') {
    const prefix = 'denied by a person: ';
    const given = reason.startsWith(prefix) ? ` (the user's reason: ${reason.slice(prefix.length)})` : '';
    return `toolgate: the user denied this call to ${tool}${given}. It did not run. Do not retry it unchanged; adapt your plan or ask the user.`;
  }
  if (authorization.decision === 'ask') {
    return `toolgate: this call to ${tool} needs approval and nobody could be asked, so it did not run.`;
  }
  return `toolgate: this call to ${tool} was not approved: ${reason}. It did not run.`;
}

/**
 * The tool result for a call the upstream server could not carry out.
 *
 * @example
 * upstreamFailureResult(error) // { isError: true, content: [{ type: 'text', text: 'toolgate: MCP server "files" stopped during …' }] }
 */
export function upstreamFailureResult(error: unknown): CallToolResult {
  if (error instanceof UpstreamError) return errorResult(`toolgate: ${error.message}`);
  return errorResult(`toolgate: the call failed inside the gateway (${errorMessage(error)})`);
}

/**
 * A call to a tool this client cannot see: the same error for unknown and hidden tools.
 *
 * @example
 * throw unknownToolError('read_media_file'); // JSON-RPC error -32602 "Unknown tool: read_media_file"
 */
export function unknownToolError(name: string): McpProtocolError {
  return new McpProtocolError({ code: ErrorCode.InvalidParams, message: `Unknown tool: ${name}` });
}

/**
 * A failure of any other forwarded request (resources, prompts, completion): the server's own
 * JSON-RPC code when it answered with one, else InternalError, with the server named.
 *
 * @example
 * throw forwardedRequestError(error);
 */
export function forwardedRequestError(error: unknown): Error {
  if (error instanceof McpProtocolError) return error;
  if (error instanceof UpstreamError) {
    return new McpProtocolError({ code: error.protocolCode ?? ErrorCode.InternalError, message: error.message, data: { code: error.code, server: error.server } });
  }
  return new McpProtocolError({ code: ErrorCode.InternalError, message: `toolgate: ${errorMessage(error)}` });
}

/**
 * A resource or prompt no upstream server offers.
 *
 * @example
 * throw notFoundError('Prompt greet'); // JSON-RPC error -32602 "Prompt greet not found"
 */
export function notFoundError(what: string): McpProtocolError {
  return new McpProtocolError({ code: ErrorCode.InvalidParams, message: `${what} not found` });
}

/**
 * Any other refusal by the gateway itself, in words the model can act on.
 *
 * @example
 * gatewayRefusalResult('the definition of echo changed while the call was being approved; call it again')
 */
export function gatewayRefusalResult(reason: string): CallToolResult {
  return errorResult(`toolgate: ${reason}`);
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 100) / 10} s`;
}
