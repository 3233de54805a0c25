/**
 * The prompts and resources one client's server offers: listed under the
 * client's names for them, and each prompt got, resource read or
 * subscribed to first put to the policy (its resources/prompts rules) and
 * then forwarded to the server that owns it. Completions are forwarded only
 * for what the policy allows outright: they never ask a person.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { GatewayCore, GatewaySession } from './downstream-server.ts';
import { resolveResource } from './gateway-routes.ts';
import type { AccessRequest } from './mcp-access.ts';
import { forwardedRequestError, notFoundError } from './mcp-results.ts';
import type { RequestsInFlight } from './requests-in-flight.ts';
import type { UpstreamConnection } from './upstream-connection.ts';

/**
 * Registers on `server` the handlers of prompts, resources, resource
 * subscriptions and completions.
 *
 * @example
 * servePromptsAndResources({ server, core, session, inFlight });
 */
export function servePromptsAndResources(options: { server: Server; core: GatewayCore; session: GatewaySession; inFlight: RequestsInFlight }): void {
  const { server, core, session, inFlight } = options;

  const forward = async (upstream: string, method: Parameters<UpstreamConnection['request']>[0], params: Record<string, unknown>, extra: { requestId: RequestId; signal: AbortSignal }) => {
    const connection = core.connection(upstream);
    if (connection === undefined) throw notFoundError(`MCP server ${JSON.stringify(upstream)}`);
    return inFlight.serving(upstream, extra.requestId, async () => {
      try {
        return await connection.request(method, params, extra.signal);
      } catch (error) {
        throw forwardedRequestError(error);
      }
    });
  };

  /** The policy's word on a resource or prompt before it is forwarded. */
  const permit = async (upstream: string, method: AccessRequest['method'], target: string, extra: { requestId: RequestId; signal: AbortSignal }, args?: Record<string, unknown>) => {
    const config = core.connection(upstream)?.config;
    if (config === undefined) throw notFoundError(`MCP server ${JSON.stringify(upstream)}`);
    await core.access(session, extra.requestId, { server: config, method, target, ...(args === undefined ? {} : { args }) }, extra.signal);
  };

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [...core.routes().prompts.values()].map((route) => ({ ...route.prompt, name: route.clientName })),
  }));

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
}
