/**
 * What the MCP gateway offers its clients: the upstream servers' tools
 * (named for clients, less what the policy filters or blocks whatever the
 * arguments, each registered with the gate under its definition's
 * identity), their prompts and resources (less what the policy blocks),
 * the servers' instructions (unless they name a tool not offered), and the
 * tools whose definitions changed since first seen: logged, audited and
 * shown at the next approval until a person has seen the change.
 */
import type { Gate } from '../core/gate.ts';
import { firstMatch } from '../core/pattern.ts';
import type { Policy } from '../core/policy/policy.ts';
import { errorMessage } from '../core/run-tool-check.ts';
import { assignClientNames, type NamespacingMode } from './assign-client-names.ts';
import { definitionChangeNote, type DefinitionChange } from './definition-change.ts';
import type { GatewaySession } from './downstream-server.ts';
import { buildGatewayRoutes, type GatewayRoutes } from './gateway-routes.ts';
import { judgeAccess } from './mcp-access-policy.ts';
import { blockedWhateverTheArguments, type McpToolEntry } from './mcp-tool-declaration.ts';
import { refusedToolName } from './mcp-tool-name.ts';
import { changedFields, toolDefinitionHash, toolIdentity } from './tool-definition.ts';
import type { UpstreamConnection } from './upstream-connection.ts';
import type { UpstreamServerConfig } from './upstream-server-config.ts';

export interface GatewayListing {
  /** Reads every server's tools again: names, the gate's registrations, definition changes; clients are told when the list changed. */
  rebuildTools(): void;
  /** Reads every server's prompts and resources again; clients are told when either list changed. */
  rebuildRoutes(): void;
  /** A tool by the name clients call it. */
  entry(clientName: string): McpToolEntry | undefined;
  /** The tools clients are offered. */
  listed(): McpToolEntry[];
  routes(): GatewayRoutes;
  /** The warning of a tool whose definition changed, until a person has been shown it. */
  changeNote(entry: Pick<McpToolEntry, 'server' | 'tool'>): string | undefined;
  /** A person decided on the tool as `entry` was: its warning was shown (a newer change's stays). */
  acknowledgeChange(entry: McpToolEntry): void;
  /** A server's instructions as clients get them. */
  passedInstructions(connection: UpstreamConnection): string;
}

/**
 * The listing of one gateway.
 *
 * @example
 * const listing = createGatewayListing({ connections, gate, declare, policy, mode, log, sessions, onChange: [] });
 * listing.rebuildTools();
 */
export function createGatewayListing(options: {
  connections: readonly UpstreamConnection[];
  gate: Pick<Gate, 'isVisible' | 'register' | 'unregister'>;
  /** The gate's declaration of a tool (its server's section of the policy). */
  declare: (entry: McpToolEntry) => Parameters<Gate['register']>[0];
  policy: Policy;
  mode: NamespacingMode;
  log: (line: string) => void;
  sessions: ReadonlySet<GatewaySession>;
  /** Told of each definition change (the audit log, the embedder's hook); a failure is logged. */
  onChange: readonly (((change: DefinitionChange) => unknown) | undefined)[];
}): GatewayListing {
  const { connections, gate, policy, mode, log, sessions } = options;
  let entries = new Map<string, McpToolEntry>();
  /** The entries clients are offered: `entries` less the tools the policy blocks whatever the arguments. */
  let listed: McpToolEntry[] = [];
  let routes: GatewayRoutes = buildGatewayRoutes({ sources: [], mode });
  let toolsSignature = '';
  let promptsSignature = '';
  let resourcesSignature = '';
  const definitions = new Map<string, { hash: string; identity: string; tool: McpToolEntry['tool']; seenAt: string }>();
  /** The change warning of each tool, with the identity it warns about: cleared only once a person was shown it for that identity. */
  const notes = new Map<string, { identity: string; text: string }>();
  const reportedDrops = new Set<string>();

  function rebuildTools(): void {
    const now = new Date().toISOString();
    const items = connections.flatMap((connection) =>
      connection.snapshot.tools
        .filter((tool) => !hiddenByServer(connection.config, tool.name))
        .map((tool) => ({ server: connection.name, namespace: connection.config.namespace, name: tool.name, item: { tool, config: connection.config } })),
    );
    const { assigned, dropped } = assignClientNames({ items, mode, refuse: refusedToolName, namespaces: connections.map((connection) => connection.config.namespace) });
    for (const drop of dropped) {
      const key = `${drop.server}\u0000${drop.name}\u0000${drop.reason}`;
      if (!reportedDrops.has(key)) log(`not listing ${JSON.stringify(drop.name)} of server ${JSON.stringify(drop.server)}: ${drop.reason}`);
      reportedDrops.add(key);
    }
    const next = new Map<string, McpToolEntry>();
    for (const named of assigned) {
      const { tool, config } = named.item;
      const definitionHash = toolDefinitionHash(tool);
      const entry: McpToolEntry = { clientName: named.clientName, server: config, tool, definitionHash, identity: toolIdentity({ server: config.name, serverIdentity: config.identity, definitionHash }) };
      track(entry, now);
      if (gate.isVisible(entry.clientName, tool.name === entry.clientName ? [] : [tool.name])) next.set(entry.clientName, entry);
    }
    for (const name of entries.keys()) if (!next.has(name)) gate.unregister(name);
    for (const entry of next.values()) {
      const previous = entries.get(entry.clientName);
      if (previous?.identity === entry.identity && previous.server === entry.server && previous.tool === entry.tool) continue;
      gate.register(options.declare(entry));
    }
    entries = next;
    // A tool the policy blocks whatever its arguments is not offered (it could only be refused); called by name, its rule refuses it.
    listed = [...next.values()].filter((entry) => !blockedWhateverTheArguments({ entry, policy }));
    const signature = JSON.stringify(listed.map((entry) => [entry.clientName, entry.definitionHash, entry.tool.outputSchema ?? null]));
    if (signature === toolsSignature) return;
    const first = toolsSignature === '';
    toolsSignature = signature;
    if (!first) for (const session of sessions) void session.server.sendToolListChanged().catch(() => undefined);
  }

  /** Compares a tool's definition with the one first seen: a change is logged, audited and shown at the next approval. */
  function track(entry: McpToolEntry, now: string): void {
    const key = pairKey(entry.server.name, entry.tool.name);
    const known = definitions.get(key);
    definitions.set(key, { hash: entry.definitionHash, identity: entry.identity, tool: entry.tool, seenAt: known?.hash === entry.definitionHash ? known.seenAt : now });
    if (known === undefined || known.hash === entry.definitionHash) return;
    const change: DefinitionChange = {
      server: entry.server.name,
      upstreamTool: entry.tool.name,
      tool: entry.clientName,
      changed: changedFields(known.tool, entry.tool),
      previousHash: known.hash,
      hash: entry.definitionHash,
      previousIdentity: known.identity,
      identity: entry.identity,
      previousSeenAt: known.seenAt,
      time: now,
    };
    const note = definitionChangeNote(change);
    notes.set(key, { identity: entry.identity, text: note });
    log(note.replace(/^⚠ /, 'WARNING: '));
    for (const hook of options.onChange) {
      if (hook === undefined) continue;
      Promise.resolve()
        .then(() => hook(change))
        .catch((error: unknown) => log(`could not record the definition change of ${entry.tool.name}: ${errorMessage(error)}`));
    }
  }

  function rebuildRoutes(): void {
    routes = buildGatewayRoutes({
      mode,
      // What the policy blocks is not listed: prompts by name, resources by URI, templates when no resource can be used.
      sources: connections.map((connection) => ({
        server: connection.name,
        namespace: connection.config.namespace,
        prompts: connection.snapshot.prompts.filter((prompt) => judgeAccess(connection.config.prompts, prompt.name).decision !== 'block'),
        resources: connection.snapshot.resources.filter((resource) => judgeAccess(connection.config.resources, resource.uri).decision !== 'block'),
        resourceTemplates: connection.config.resources.blocksAll ? [] : connection.snapshot.resourceTemplates,
        hasResources: connection.snapshot.capabilities?.resources !== undefined && !connection.config.resources.blocksAll,
      })),
    });
    const prompts = JSON.stringify([...routes.prompts.values()].map((route) => [route.clientName, route.prompt]));
    const resources = JSON.stringify([[...routes.resources.keys()], routes.templates.map((route) => route.template.uriTemplate)]);
    const promptsChanged = promptsSignature !== '' && prompts !== promptsSignature;
    const resourcesChanged = resourcesSignature !== '' && resources !== resourcesSignature;
    promptsSignature = prompts;
    resourcesSignature = resources;
    for (const session of sessions) {
      if (promptsChanged) void session.server.sendPromptListChanged().catch(() => undefined);
      if (resourcesChanged) void session.server.sendResourceListChanged().catch(() => undefined);
    }
  }

  /**
   * A server's instructions, unless they name one of its tools that clients
   * are not offered (blocked, filtered, a look-alike name): then they would
   * steer the model to what it cannot see, and are not passed on verbatim.
   */
  function passedInstructions(connection: UpstreamConnection): string {
    const text = connection.snapshot.instructions!;
    const offered = new Set(listed.filter((entry) => entry.server.name === connection.name).map((entry) => entry.tool.name));
    const hidden = connection.snapshot.tools.map((tool) => tool.name).filter((name) => !offered.has(name) && mentions(text, name));
    if (hidden.length === 0) return text;
    log(`not passing on the instructions of server ${JSON.stringify(connection.name)}: they name tools clients are not offered (${hidden.map((name) => JSON.stringify(name)).join(', ')})`);
    return `(toolgate: this server's instructions are not passed on, because they name tools this gateway does not offer.)`;
  }

  return {
    rebuildTools,
    rebuildRoutes,
    entry: (clientName) => entries.get(clientName),
    listed: () => listed,
    routes: () => routes,
    changeNote: (entry) => notes.get(pairKey(entry.server.name, entry.tool.name))?.text,
    acknowledgeChange(entry) {
      const key = pairKey(entry.server.name, entry.tool.name);
      if (notes.get(key)?.identity === entry.identity) notes.delete(key);
    },
    passedInstructions,
  };
}

function hiddenByServer(config: UpstreamServerConfig, name: string): boolean {
  if (firstMatch(config.filter.deny, name) !== -1) return true;
  return config.filter.allow !== undefined && firstMatch(config.filter.allow, name) === -1;
}

/** A key of a server's tool (or other item) by name. */
export function pairKey(server: string, name: string): string {
  return `${server}\u0000${name}`;
}

/** Whether `text` names `name` as a word of its own (not inside a longer name). */
function mentions(text: string, name: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(name, from);
    if (at === -1) return false;
    const before = at === 0 ? '' : text[at - 1]!;
    const after = text[at + name.length] ?? '';
    if (!/[A-Za-z0-9_.-]/.test(before) && !/[A-Za-z0-9_-]/.test(after)) return true;
    from = at + 1;
  }
}
