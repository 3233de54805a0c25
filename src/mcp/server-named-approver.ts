import type { Approver, PresentedRequest } from '../core/approver.ts';

/** Where a tool the clients see comes from: its server, and its own name there. */
export interface ToolOrigin {
  server: string;
  upstreamName: string;
}

/**
 * An approver that names the MCP server first in what the person reads: a
 * terminal prompt or an inbox card shows the tool's name and description,
 * and `write_file` alone does not say which server (and which directories)
 * it would write with. Requests for tools of no server pass unchanged; the
 * elicitation dialog names the server itself (`approval-message.ts`).
 *
 * @example
 * const approver = serverNamedApprover({ approver: terminalApprover, originOf: (tool) => ({ server: 'files', upstreamName: tool }) });
 * // the prompt reads: 'MCP server "files" — Create a new file or overwrite ...'
 */
export function serverNamedApprover(options: { approver: Approver; originOf: (tool: string) => ToolOrigin | undefined }): Approver {
  const { approver } = options;
  const named = (request: PresentedRequest): PresentedRequest => serverNamedRequest({ request, origin: options.originOf(request.tool) });
  const askGroup = approver.askGroup;
  return {
    ask: (request, askOptions) => approver.ask(named(request), askOptions),
    ...(askGroup === undefined ? {} : { askGroup: (requests: readonly PresentedRequest[], askOptions: { signal: AbortSignal }) => askGroup.call(approver, requests.map(named), askOptions) }),
  };
}

/**
 * The request as a person is shown it: the server (and the tool's own name
 * there) first in its description. `toolgate check --show` prints it so too.
 *
 * @example
 * serverNamedRequest({ request, origin: { server: 'files', upstreamName: 'write_file' } }).description // 'MCP server "files" — Create a new file…'
 */
export function serverNamedRequest(options: { request: PresentedRequest; origin: ToolOrigin | undefined }): PresentedRequest {
  const { request, origin } = options;
  if (origin === undefined) return request;
  return { ...request, description: `${serverNamedTitle({ tool: request.tool, origin })} — ${request.description}` };
}

/**
 * How a prompt names a tool's origin: the server, and the tool's own name
 * there when clients see it under another (namespaced) name.
 *
 * @example
 * serverNamedTitle({ tool: 'files__write_file', origin: { server: 'files', upstreamName: 'write_file' } }) // 'MCP server "files", tool "write_file"'
 * serverNamedTitle({ tool: 'write_file', origin: { server: 'files', upstreamName: 'write_file' } }) // 'MCP server "files"'
 */
export function serverNamedTitle(options: { tool: string; origin: ToolOrigin }): string {
  const { tool, origin } = options;
  return origin.upstreamName === tool ? `MCP server ${JSON.stringify(origin.server)}` : `MCP server ${JSON.stringify(origin.server)}, tool ${JSON.stringify(origin.upstreamName)}`;
}
