import { ToolgateError } from '../core/errors/toolgate-error.ts';

export type UpstreamErrorCode = 'MCP_UPSTREAM_UNAVAILABLE' | 'MCP_UPSTREAM_FAILED' | 'MCP_UPSTREAM_TIMEOUT';

/**
 * An upstream MCP server could not do what was asked: it is not running
 * (`MCP_UPSTREAM_UNAVAILABLE`), it crashed or answered badly
 * (`MCP_UPSTREAM_FAILED`), or it did not answer in time
 * (`MCP_UPSTREAM_TIMEOUT`). The message names the server and what happened;
 * the gateway returns it to the model as an `isError` tool result.
 */
export class UpstreamError extends ToolgateError {
  override readonly code: UpstreamErrorCode;
  readonly server: string;
  /** The JSON-RPC error code the server answered with, when it answered with one. */
  readonly protocolCode: number | undefined;

  constructor(options: { code: UpstreamErrorCode; server: string; message: string; protocolCode?: number; cause?: unknown }) {
    super(options);
    this.name = 'UpstreamError';
    this.code = options.code;
    this.server = options.server;
    this.protocolCode = options.protocolCode;
  }
}
