/**
 * The tools one client's server offers: the gateway's tools listed under
 * their client names (re-read on every list, so a definition changed without
 * notice is still caught), and calls handed to the gateway's tool call with
 * this client's session, caller and approver.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { GatewayCore, GatewaySession } from './downstream-server.ts';
import { handleToolCall } from './gateway-tool-call.ts';
import type { InterceptedCall } from './intercept-tool-calls.ts';
import type { RequestsInFlight } from './requests-in-flight.ts';

/** Serves one tool call of the client, as the interception or the server's handler takes it. */
export type CallTool = (request: CallToolRequest, call: InterceptedCall) => Promise<CallToolResult>;

/**
 * Registers tools/list and tools/call on `server`, and returns the call
 * handler for the calls taken off the transport (`interceptToolCalls`).
 *
 * @example
 * const callTool = serveTools({ server, core, session, inFlight });
 * interceptToolCalls({ transport, handle: callTool });
 */
export function serveTools(options: { server: Server; core: GatewayCore; session: GatewaySession; inFlight: RequestsInFlight }): CallTool {
  const { server, core, session, inFlight } = options;

  function callTool(request: CallToolRequest, call: InterceptedCall): Promise<CallToolResult> {
    return inFlight.serving(core.toolEntry(request.params.name)?.server.name, call.requestId, () => handleToolCall({
      core,
      request,
      call: {
        context: { sessionId: session.id, ...callerOf(server) },
        requestId: call.requestId,
        signal: call.signal,
        // Built only when a person has to be asked: most calls never need it.
        approver: { ask: (presented, askOptions) => core.approverFor(session, call.requestId).ask(presented, askOptions) },
        sendNotification: call.sendNotification,
      },
    }));
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    // Re-reading on every list is how a server that changes a definition without saying so is still caught.
    await core.refreshTools();
    return { tools: core.tools().map((entry) => ({ ...entry.tool, name: entry.clientName })) };
  });

  // Tool calls are taken off the transport before they get here (attach); this handler serves one that
  // is not, e.g. a call sent before the interception was installed.
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(request, { requestId: extra.requestId, signal: extra.signal, sendNotification: extra.sendNotification }),
  );

  return callTool;
}

function callerOf(server: Server): { caller?: string } {
  const client = server.getClientVersion();
  return client === undefined ? {} : { caller: `mcp:${client.name}` };
}
