import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../core/run-tool-check.ts';
import { ProcessGroupStdioTransport } from './process-group-stdio-transport.ts';
import { UpstreamError } from './upstream-error.ts';

/**
 * Says, with the server's name, why a request to it failed: it did not
 * answer in time (and was told to cancel), it stopped (with its exit code and
 * last stderr line), or it answered with an error of its own (whose JSON-RPC
 * code is kept for forwarding).
 *
 * @example
 * throw upstreamFailure({ error, server: 'files', what: 'the call to write_file', transport, callTimeoutMs: 60_000 });
 */
export function upstreamFailure(options: { error: unknown; server: string; what: string; transport: Transport | undefined; callTimeoutMs: number }): UpstreamError {
  const { error, server, what } = options;
  const named = `MCP server ${JSON.stringify(server)}`;
  if (error instanceof UpstreamError) return error;
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    const seconds = Math.round(options.callTimeoutMs / 100) / 10;
    return new UpstreamError({ code: 'MCP_UPSTREAM_TIMEOUT', server, message: `${named} did not answer ${what} within ${seconds} s; the request was cancelled on the server`, cause: error });
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return new UpstreamError({
      code: 'MCP_UPSTREAM_FAILED',
      server,
      message: `${named} stopped during ${what} (${describeStop(options.transport, undefined)}); toolgate is restarting it, try again in a moment`,
      cause: error,
    });
  }
  if (error instanceof McpError) {
    const message = error.message.replace(/^MCP error -?\d+: /, '');
    return new UpstreamError({ code: 'MCP_UPSTREAM_FAILED', server, message: `${named} answered ${what} with an error: ${message}`, protocolCode: error.code, cause: error });
  }
  return new UpstreamError({ code: 'MCP_UPSTREAM_FAILED', server, message: `${what} on ${named} failed: ${errorMessage(error)}`, cause: error });
}

/**
 * How a connection ended, in words: the error, the exit code or signal of a
 * local server, and its last stderr line.
 *
 * @example
 * describeStop(transport, undefined) // 'exited with code 3; last stderr line: "fixture: crashing on purpose"'
 */
export function describeStop(transport: Transport | undefined, error: unknown): string {
  const parts: string[] = [];
  if (transport instanceof ProcessGroupStdioTransport) {
    const exit = transport.exit;
    if (exit !== undefined) parts.push(exit.signal !== null ? `killed by ${exit.signal}` : `exited with code ${exit.code}`);
    const lastLine = [...transport.stderrTail].reverse().find((line) => line.trim() !== '');
    if (lastLine !== undefined) parts.push(`last stderr line: ${JSON.stringify(lastLine.slice(0, 200))}`);
  }
  if (error !== undefined) parts.unshift(errorMessage(error));
  return parts.length === 0 ? 'the connection closed' : parts.join('; ');
}
