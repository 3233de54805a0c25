import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { assignClientNames, type NamespacingMode } from './assign-client-names.ts';

/** One server's lists, in policy order. */
export interface RouteSource {
  server: string;
  namespace: string;
  prompts: readonly Prompt[];
  resources: readonly Resource[];
  resourceTemplates: readonly ResourceTemplate[];
  hasResources: boolean;
}

export interface PromptRoute {
  clientName: string;
  server: string;
  prompt: Prompt;
}

export interface ResourceRoute {
  clientUri: string;
  server: string;
  resource: Resource;
}

export interface TemplateRoute {
  server: string;
  template: ResourceTemplate;
  matcher: UriTemplate | undefined;
}

/** Where prompts and resources live, rebuilt whenever an upstream list changes. */
export interface GatewayRoutes {
  prompts: ReadonlyMap<string, PromptRoute>;
  resources: ReadonlyMap<string, ResourceRoute>;
  templates: readonly TemplateRoute[];
  /** Servers offering resources at all, in policy order. */
  resourceServers: readonly string[];
  /** Client URI → upstream URI, and back, for URIs that collide. */
  collided: ReadonlyMap<string, { server: string; uri: string }>;
}

/** Prefix of a resource URI that two servers both list: `toolgate://<namespace>/<encoded original>`. */
export const NAMESPACED_URI_PREFIX = 'toolgate://';

/**
 * Builds the routes: prompts are named like tools (namespaced on collision,
 * or always); resource URIs pass through unchanged unless two servers list
 * the same URI, in which case each becomes
 * `toolgate://<namespace>/<encodeURIComponent(uri)>`.
 *
 * @example
 * const routes = buildGatewayRoutes({ sources, mode: 'collisions' });
 * routes.prompts.get('simple-prompt')?.server // 'everything'
 */
export function buildGatewayRoutes(options: { sources: readonly RouteSource[]; mode: NamespacingMode }): GatewayRoutes {
  const { sources } = options;
  const named = assignClientNames({
    items: sources.flatMap((source) => source.prompts.map((prompt) => ({ server: source.server, namespace: source.namespace, name: prompt.name, item: prompt }))),
    mode: options.mode,
    namespaces: sources.map((source) => source.namespace),
  });
  const prompts = new Map<string, PromptRoute>();
  for (const entry of named.assigned) prompts.set(entry.clientName, { clientName: entry.clientName, server: entry.server, prompt: entry.item });

  const owners = new Map<string, Set<string>>();
  for (const source of sources) {
    for (const resource of source.resources) owners.set(resource.uri, (owners.get(resource.uri) ?? new Set()).add(source.server));
  }
  const resources = new Map<string, ResourceRoute>();
  const collided = new Map<string, { server: string; uri: string }>();
  for (const source of sources) {
    for (const resource of source.resources) {
      const collides = (owners.get(resource.uri)?.size ?? 0) > 1;
      const clientUri = collides ? `${NAMESPACED_URI_PREFIX}${source.namespace}/${encodeURIComponent(resource.uri)}` : resource.uri;
      if (resources.has(clientUri)) continue;
      resources.set(clientUri, { clientUri, server: source.server, resource });
      if (collides) collided.set(clientUri, { server: source.server, uri: resource.uri });
    }
  }
  const templates: TemplateRoute[] = sources.flatMap((source) =>
    source.resourceTemplates.map((template) => ({ server: source.server, template, matcher: compileTemplate(template.uriTemplate) })),
  );
  return { prompts, resources, templates, resourceServers: sources.filter((source) => source.hasResources).map((source) => source.server), collided };
}

/**
 * Which server a URI the client asks for belongs to, and the URI to ask it
 * for: a listed URI, a namespaced one, the original of a collided one (first
 * server in policy order), one matching a server's template, or — when only
 * one server offers resources — that server.
 *
 * @example
 * resolveResource(routes, 'demo://resource/dynamic/text/1') // { server: 'everything', uri: 'demo://resource/dynamic/text/1' }
 */
export function resolveResource(routes: GatewayRoutes, uri: string): { server: string; uri: string } | undefined {
  const listed = routes.resources.get(uri);
  if (listed !== undefined) return { server: listed.server, uri: listed.resource.uri };
  for (const route of routes.resources.values()) {
    if (route.resource.uri === uri) return { server: route.server, uri };
  }
  const template = routes.templates.find((route) => route.matcher?.match(uri) != null);
  if (template !== undefined) return { server: template.server, uri };
  if (routes.resourceServers.length === 1) return { server: routes.resourceServers[0]!, uri };
  return undefined;
}

/**
 * The URIs a client knows an upstream URI by (one, or the namespaced form after a collision).
 *
 * @example
 * clientUrisFor(routes, 'files', 'file:///a.txt') // ['toolgate://files/file%3A%2F%2F%2Fa.txt'] when two servers list it
 */
export function clientUrisFor(routes: GatewayRoutes, server: string, uri: string): string[] {
  const namespaced = [...routes.collided.entries()].filter(([, origin]) => origin.server === server && origin.uri === uri).map(([clientUri]) => clientUri);
  return namespaced.length > 0 ? namespaced : [uri];
}

function compileTemplate(source: string): UriTemplate | undefined {
  try {
    return new UriTemplate(source);
  } catch {
    return undefined;
  }
}
