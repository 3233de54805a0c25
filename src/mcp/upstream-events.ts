/**
 * What upstream servers ask of the gateway's clients, and tell them: roots
 * (relayed when exactly one client shares them), sampling and elicitation
 * (decided by the policy, then sent to the one client they belong to, or
 * refused), list changes, resource updates to subscribers, and log messages
 * at each client's level.
 */
import type { LoggingLevel, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { sanitizeTerminalText } from '../core/sanitize-terminal-text.ts';
import type { GatewayCore, GatewaySession } from './downstream-server.ts';
import type { GatewayListing } from './gateway-listing.ts';
import { clientUrisFor } from './gateway-routes.ts';
import type { UpstreamConnection, UpstreamEvents } from './upstream-connection.ts';

const LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * The events of every upstream connection of one gateway.
 *
 * @example
 * const events = upstreamEvents({ sessions, listing, connection: (name) => byName.get(name), access: core.access });
 */
export function upstreamEvents(options: {
  sessions: ReadonlySet<GatewaySession>;
  listing: Pick<GatewayListing, 'rebuildTools' | 'rebuildRoutes' | 'routes'>;
  connection: (name: string) => UpstreamConnection | undefined;
  access: GatewayCore['access'];
}): UpstreamEvents {
  const { sessions, listing } = options;
  const events: UpstreamEvents = {
    listRoots: async (server) => {
      // A server's roots are its client's: relayed when exactly one client shares them (whose, with several, cannot be told).
      const sharing = [...sessions].filter((session) => session.server.getClientCapabilities()?.roots !== undefined);
      if (sharing.length === 1) return sharing[0]!.server.listRoots();
      throw new McpError(
        ErrorCode.InvalidRequest,
        sharing.length === 0
          ? `toolgate: no client of this gateway shares its roots with ${JSON.stringify(server)}`
          : `toolgate: ${sharing.length} clients of this gateway share roots; it cannot tell whose ${JSON.stringify(server)} should use`,
      );
    },
    // Sent along the client's request the server is serving (over HTTP: on that request's stream), when there is one.
    createMessage: (server, params, signal) =>
      relayToClient(server, 'sampling/createMessage', signal, (session, relatedRequestId) => session.server.createMessage(params, { signal, relatedRequestId }), {
        messages: params.messages,
        max_tokens: params.maxTokens,
      }),
    elicit: (server, params, signal) =>
      relayToClient(server, 'elicitation/create', signal, (session, relatedRequestId) => session.server.elicitInput(relayedElicitation(server, params), { signal, relatedRequestId }), { message: params.message }),
    toolsChanged: () => listing.rebuildTools(),
    promptsChanged: () => listing.rebuildRoutes(),
    resourcesChanged: () => listing.rebuildRoutes(),
    resourceUpdated: (server, uri) => {
      for (const clientUri of clientUrisFor(listing.routes(), server, uri)) {
        for (const session of sessions) {
          if (session.subscriptions.has(clientUri)) void session.server.sendResourceUpdated({ uri: clientUri }).catch(() => undefined);
        }
      }
    },
    logMessage: (server, params) => {
      const logger = params.logger === undefined ? server : `${server}/${params.logger}`;
      for (const session of sessions) {
        if (session.logLevel !== undefined && LEVELS.indexOf(params.level) < LEVELS.indexOf(session.logLevel)) continue;
        void session.server.sendLoggingMessage({ ...params, logger }).catch(() => undefined);
      }
    },
  };
  return events;

  /**
   * A server's request of the client (sampling, elicitation): decided by the
   * policy (asking a person when it says ask) and audited, then sent to the
   * client it belongs to: of the clients that can answer it, the one with a
   * request the server is serving now (its tool call asked), or the only one.
   * When that cannot be told (several are, or none is and several could), it
   * is refused: never another client's person or model.
   */
  async function relayToClient<Result>(
    serverName: string,
    method: 'sampling/createMessage' | 'elicitation/create',
    signal: AbortSignal,
    send: (session: GatewaySession, relatedRequestId: RequestId | undefined) => Promise<Result>,
    shown: Record<string, unknown>,
  ): Promise<Result> {
    const config = options.connection(serverName)?.config;
    if (config === undefined) throw new McpError(ErrorCode.InvalidRequest, `toolgate: unknown MCP server ${JSON.stringify(serverName)}`);
    const able = [...sessions].filter((session) => {
      const declared = session.server.getClientCapabilities();
      return method === 'sampling/createMessage' ? declared?.sampling !== undefined : declared?.elicitation !== undefined;
    });
    // The client whose request the server is serving now is the one it asks; with one able client, that one.
    const busy = able.filter((session) => session.requestTo(serverName) !== undefined);
    const chosen = busy.length === 1 ? busy[0] : able.length === 1 ? able[0] : undefined;
    if (chosen === undefined) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        able.length === 0
          ? `toolgate: no client of this gateway supports ${method}`
          : `toolgate: ${able.length} clients of this gateway support ${method} and ${busy.length === 0 ? 'none' : busy.length} of them ${busy.length === 1 ? 'has' : 'have'} a request with ${JSON.stringify(serverName)} under way; which one it means cannot be told`,
      );
    }
    const relatedRequestId = chosen.requestTo(serverName);
    await options.access(chosen, relatedRequestId, { server: config, method, target: '', args: shown }, signal);
    return send(chosen, relatedRequestId);
  }
}

/**
 * A server's own question, relayed to the person with its origin first: the
 * gateway's approvals are elicitations too, and a server could word one to
 * pass for them ("toolgate: approve this tool call?") and take the answer.
 *
 * @example
 * relayedElicitation('files', { mode: 'form', message: 'Your name?', requestedSchema }).message
 * // 'MCP server "files" asks (this is not a toolgate approval):\n\nYour name?'
 */
export function relayedElicitation<Params extends { message: string }>(server: string, params: Params): Params {
  return { ...params, message: `MCP server ${JSON.stringify(sanitizeTerminalText(server))} asks (this is not a toolgate approval):\n\n${params.message}` };
}
