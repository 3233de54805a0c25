import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type Implementation,
  type CallToolRequest,
  type LoggingLevel,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Approver } from '../core/approver.ts';
import type { McpToolEntry } from './mcp-tool-declaration.ts';
import { resolveResource, type GatewayRoutes } from './gateway-routes.ts';
import { handleToolCall, type ToolCallCore } from './gateway-tool-call.ts';
import { interceptToolCalls, type InterceptedCall, type ToolCallInterception } from './intercept-tool-calls.ts';
import { forwardedRequestError, notFoundError } from './mcp-results.ts';
import type { AccessRequest } from './mcp-access.ts';
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
    requestTo: (upstream) => {
      const ids = inFlight.get(upstream);
      return ids === undefined ? undefined : [...ids].at(-1);
    },
  };

  /** This client's requests each server is serving now, oldest first. */
  const inFlight = new Map<string, Set<RequestId>>();
  /** Runs `work` with `requestId` counted as being served by `upstream`. */
  async function serving<Value>(upstream: string | undefined, requestId: RequestId, work: () => Promise<Value>): Promise<Value> {
    if (upstream === undefined) return work();
    const ids = inFlight.get(upstream) ?? new Set<RequestId>();
    inFlight.set(upstream, ids);
    ids.add(requestId);
    try {
      return await work();
    } finally {
      ids.delete(requestId);
      if (ids.size === 0) inFlight.delete(upstream);
    }
  }

  function callTool(request: CallToolRequest, call: InterceptedCall) {
    return serving(core.toolEntry(request.params.name)?.server.name, call.requestId, () => handleToolCall({
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

  const forward = async (server: string, method: Parameters<UpstreamConnection['request']>[0], params: Record<string, unknown>, extra: { requestId: RequestId; signal: AbortSignal }) => {
    const connection = core.connection(server);
    if (connection === undefined) throw notFoundError(`MCP server ${JSON.stringify(server)}`);
    return serving(server, extra.requestId, async () => {
      try {
        return await connection.request(method, params, extra.signal);
      } catch (error) {
        throw forwardedRequestError(error);
      }
    });
  };

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

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [...core.routes().prompts.values()].map((route) => ({ ...route.prompt, name: route.clientName })),
  }));

  /** The policy's word on a resource or prompt before it is forwarded. */
  const permit = async (server: string, method: AccessRequest['method'], target: string, extra: { requestId: RequestId; signal: AbortSignal }, args?: Record<string, unknown>) => {
    const config = core.connection(server)?.config;
    if (config === undefined) throw notFoundError(`MCP server ${JSON.stringify(server)}`);
    await core.access(session, extra.requestId, { server: config, method, target, ...(args === undefined ? {} : { args }) }, extra.signal);
  };

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const route = core.routes().prompts.get(request.params.name);
    if (route === undefined) throw notFoundError(`Prompt ${request.params.name}`);
    await permit(route.server, 'prompts/get', route.prompt.name, extra, request.params.arguments);
    return forward(route.server, 'prompts/get', { ...request.params, name: route.prompt.name }, extra);
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [...core.routes().resources.values()].map((route) => ({ ...route.resource, uri: route.clientUri })),
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: core.routes().templates.map((route) => route.template),
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const target = resolveResource(core.routes(), request.params.uri);
    if (target === undefined) throw notFoundError(`Resource ${request.params.uri}`);
    await permit(target.server, 'resources/read', target.uri, extra);
    const result = await forward(target.server, 'resources/read', { ...request.params, uri: target.uri }, extra);
    if (target.uri === request.params.uri || !Array.isArray(result.contents)) return result;
    // A collided URI is read under the client's name for it, and answered under that name too.
    const contents = (result.contents as { uri?: unknown }[]).map((content) => (content.uri === target.uri ? { ...content, uri: request.params.uri } : content));
    return { ...result, contents };
  });

  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const target = resolveResource(core.routes(), request.params.uri);
    if (target === undefined) throw notFoundError(`Resource ${request.params.uri}`);
    if (session.subscriptions.has(request.params.uri)) return {};
    await permit(target.server, 'resources/subscribe', target.uri, extra);
    try {
      await core.subscribe(target.server, target.uri);
    } catch (error) {
      throw forwardedRequestError(error);
    }
    session.subscriptions.add(request.params.uri);
    return {};
  });

  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    try {
      await session.release(request.params.uri);
    } catch (error) {
      throw forwardedRequestError(error);
    }
    return {};
  });

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

  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    const { ref } = request.params;
    const routes = core.routes();
    if (ref.type === 'ref/prompt') {
      const route = routes.prompts.get(ref.name);
      if (route === undefined) throw notFoundError(`Prompt ${ref.name}`);
      const config = core.connection(route.server)?.config;
      if (config === undefined || !core.completable({ server: config, method: 'prompts/get', target: route.prompt.name })) return { completion: { values: [] } };
      return forward(route.server, 'completion/complete', { ...request.params, ref: { ...ref, name: route.prompt.name } }, extra);
    }
    const owner = routes.templates.find((route) => route.template.uriTemplate === ref.uri)?.server ?? resolveResource(routes, ref.uri)?.server;
    if (owner === undefined) return { completion: { values: [] } };
    const config = core.connection(owner)?.config;
    if (config === undefined || !core.completable({ server: config, method: 'resources/read', target: ref.uri })) return { completion: { values: [] } };
    return forward(owner, 'completion/complete', request.params, extra);
  });

  return session;
}

function callerOf(server: Server): { caller?: string } {
  const client = server.getClientVersion();
  return client === undefined ? {} : { caller: `mcp:${client.name}` };
}
