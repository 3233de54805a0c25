/**
 * The MCP server one client talks to, and the session that is that client
 * to the gateway. Its phases live beside it: the requests each upstream
 * server is serving for the client (requests-in-flight.ts), its tools
 * (downstream-tools.ts), and its prompts, resources and completions
 * (downstream-resources.ts).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { RootsListChangedNotificationSchema, SetLevelRequestSchema, type Implementation, type LoggingLevel, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Approver } from '../core/approver.ts';
import { servePromptsAndResources } from './downstream-resources.ts';
import { serveTools } from './downstream-tools.ts';
import type { McpToolEntry } from './mcp-tool-declaration.ts';
import { resolveResource, type GatewayRoutes } from './gateway-routes.ts';
import type { ToolCallCore } from './gateway-tool-call.ts';
import { interceptToolCalls, type ToolCallInterception } from './intercept-tool-calls.ts';
import type { AccessRequest } from './mcp-access.ts';
import { createRequestsInFlight } from './requests-in-flight.ts';
import type { UpstreamConnection } from './upstream-connection.ts';

/** One client connected to the gateway. */
export interface GatewaySession {
  readonly id: string;
  readonly server: Server;
  /** The level the client asked for with logging/setLevel. */
  logLevel: LoggingLevel | undefined;
  /** Client URIs this client subscribed to. */
  readonly subscriptions: Set<string>;
  /** Drops one subscription (on unsubscribe, or when the client goes). */
  release(clientUri: string): Promise<void>;
  /** Connects the server to the client's transport, taking tools/call off it (`interceptToolCalls`). */
  attach(transport: Transport): Promise<void>;
  /** Aborts the calls still running (the client went away). */
  abortCalls(reason: unknown): void;
  /**
   * The latest of this client's requests being served by `server` now (a
   * tool call, a prompt, a resource read), or undefined: a server's request
   * of the client made meanwhile is this client's to answer.
   */
  requestTo(server: string): RequestId | undefined;
}

/** The gateway as one client's server sees it. */
export interface GatewayCore extends ToolCallCore {
  callTimeoutMs: number;
  connections(): readonly UpstreamConnection[];
  tools(): McpToolEntry[];
  routes(): GatewayRoutes;
  refreshTools(): Promise<void>;
  approverFor(session: GatewaySession, relatedRequestId: RequestId | undefined): Approver;
  /** Whether this session may use a resource or prompt (the policy's resources/prompts rules); throws the client's error when not. */
  access(session: GatewaySession, relatedRequestId: RequestId | undefined, request: AccessRequest, signal: AbortSignal): Promise<void>;
  /** Whether a resource or prompt may be completed: only an allowed one is (completions never ask a person). */
  completable(request: Omit<AccessRequest, 'method' | 'args'> & { method: 'resources/read' | 'prompts/get' }): boolean;
  /** A client's roots came or changed: every server is told, and asks for them again. */
  rootsChanged(): void;
  /** Subscriptions are counted across clients: the upstream is subscribed once. */
  subscribe(server: string, uri: string): Promise<void>;
  unsubscribe(server: string, uri: string): Promise<void>;
}

/**
 * The MCP server one client talks to. It uses the SDK's low-level `Server`
 * because it forwards definitions it did not write (JSON Schemas as the
 * upstream sent them). Every capability is declared up front (lists may be
 * empty): upstream servers can come and go while the client is connected.
 *
 * @example
 * const session = createDownstreamServer({ core, serverInfo, sessionId: 'mcp-1', instructions: undefined });
 * await session.server.connect(transport);
 */
export function createDownstreamServer(options: { core: GatewayCore; serverInfo: Implementation; sessionId: string; instructions: string | undefined }): GatewaySession {
  const { core } = options;
  const server = new Server(options.serverInfo, {
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      logging: {},
      completions: {},
    },
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  let interception: ToolCallInterception | undefined;
  // A client that shares roots: the servers hear of them once it is initialized, and whenever they change.
  server.oninitialized = () => {
    if (server.getClientCapabilities()?.roots !== undefined) core.rootsChanged();
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => core.rootsChanged());
  const inFlight = createRequestsInFlight();
  const session: GatewaySession = {
    id: options.sessionId,
    server,
    logLevel: undefined,
    subscriptions: new Set(),
    async release(clientUri) {
      if (!session.subscriptions.delete(clientUri)) return;
      const target = resolveResource(core.routes(), clientUri);
      if (target !== undefined) await core.unsubscribe(target.server, target.uri);
    },
    async attach(transport) {
      await server.connect(transport);
      interception = interceptToolCalls({ transport, handle: callTool });
    },
    abortCalls: (reason) => interception?.abortAll(reason),
    requestTo: (upstream) => inFlight.latest(upstream),
  };
  const callTool = serveTools({ server, core, session, inFlight });
  servePromptsAndResources({ server, core, session, inFlight });

  server.setRequestHandler(SetLevelRequestSchema, async (request, extra) => {
    session.logLevel = request.params.level;
    // Upstream servers filter at the source; the gateway filters again per client.
    await Promise.allSettled(
      core
        .connections()
        .filter((connection) => connection.state === 'ready' && connection.snapshot.capabilities?.logging !== undefined)
        .map((connection) => connection.request('logging/setLevel', { level: request.params.level }, extra.signal)),
    );
    return {};
  });

  return session;
}
