import { randomUUID } from 'node:crypto';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { LoggingLevel, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { createAuditLog, type AuditLog } from '../audit/audit-log.ts';
import { createNonInteractiveApprover, type Approver } from '../core/approver.ts';
import type { AuditSink } from '../core/audit-entry.ts';
import type { Gate } from '../core/gate.ts';
import { firstMatch } from '../core/pattern.ts';
import { redact } from '../core/redact.ts';
import { errorMessage } from '../core/run-tool-check.ts';
import { auditLogPath } from '../config/load-policy-file.ts';
import { createRuntimeGate } from '../runtime/create-runtime-gate.ts';
import { sanitizeTerminalText } from '../core/sanitize-terminal-text.ts';
import { approvalMessage } from './approval-message.ts';
import { accessPolicyFor, decideAccess } from './mcp-access.ts';
import { judgeAccess } from './mcp-access-policy.ts';
import { refusedToolName } from './mcp-tool-name.ts';
import { serverNamedApprover } from './server-named-approver.ts';
import { assignClientNames, type NamespacingMode } from './assign-client-names.ts';
import { createDeferredDurability, type StagedAuditLog } from './deferred-durability.ts';
import { definitionChangeNote, recordCallsNotRun, recordDefinitionChanges, type DefinitionChange } from './definition-change.ts';
import { createDownstreamServer, type GatewayCore, type GatewaySession } from './downstream-server.ts';
import { createElicitationApprover } from './elicitation-approver.ts';
import { buildGatewayRoutes, clientUrisFor, type GatewayRoutes } from './gateway-routes.ts';
import { createGatewayStats, type GatewayStatsSnapshot } from './gateway-stats.ts';
import { DEFAULT_CALL_TIMEOUT_MS, type McpGatewayOptions } from './mcp-gateway-options.ts';
import { blockedWhateverTheArguments, createMcpServerSection, type McpToolEntry } from './mcp-tool-declaration.ts';
import { changedFields, toolDefinitionHash, toolIdentity } from './tool-definition.ts';
import { createUpstreamConnection, type UpstreamConnection, type UpstreamEvents } from './upstream-connection.ts';
import { readUpstreamServers, type UpstreamServerConfig } from './upstream-server-config.ts';

export interface McpGateway {
  /** The gate every tools/call goes through. */
  readonly gate: Gate;
  /** Connects every upstream server (each failure is retried in the background). */
  start(): Promise<void>;
  /** Serves one client over `transport` (stdio, in-memory, one HTTP session). */
  connect(transport: Transport): Promise<McpGatewayConnection>;
  /** A server for one client session, not yet connected (the HTTP mode makes one per session). */
  openSession(options?: { sessionId?: string }): McpGatewayConnection;
  /** The tools clients see now, with their servers and identities. */
  tools(): readonly McpToolEntry[];
  /** Re-reads every upstream tool list, comparing definitions. */
  refresh(): Promise<void>;
  /** Upstream servers and their state. */
  upstreams(): readonly { name: string; state: UpstreamConnection['state']; tools: number }[];
  stats(): GatewayStatsSnapshot;
  /** Disconnects clients, stops upstream servers (their whole process groups) and flushes the audit log. */
  close(): Promise<void>;
}

export interface McpGatewayConnection {
  readonly sessionId: string;
  readonly server: Server;
  /** Serves the client on `transport` (use this rather than `server.connect`: it installs the tools/call path). */
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

const LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
/** Tool lists are re-read when a client lists tools; a slow server must not hold the list up longer than this. */
const LIST_REFRESH_WAIT_MS = 5000;

/**
 * The MCP gateway: one MCP server in front of the upstream servers named in
 * the policy's `mcp.servers`. It lists their tools (namespaced on collision,
 * filtered by the policy), sends every tools/call through the gate (asking the
 * person by MCP elicitation, a terminal or another approver), binds approvals
 * to each tool's definition so a changed definition is asked about again,
 * passes resources, prompts, logging and list changes through, and restarts
 * upstream servers that stop.
 *
 * @example
 * const gateway = createMcpGateway({ loaded: await loadPolicyFile('toolgate.yaml') });
 * await gateway.start();
 * await gateway.connect(new GatewayStdioTransport({ input: process.stdin, output: process.stdout }));
 */
export function createMcpGateway(options: McpGatewayOptions): McpGateway {
  const { loaded } = options;
  const { policy } = loaded;
  const write = options.log ?? ((line: string) => void process.stderr.write(`toolgate mcp: ${line}\n`));
  // Lines carry what servers send (stderr, tool names): nothing in them may drive the terminal.
  const log = (line: string) => write(sanitizeTerminalText(line));
  const mode: NamespacingMode = options.namespacing ?? 'collisions';
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const serverInfo = options.serverInfo ?? { name: 'toolgate', version: packageVersion() };
  const configs = readUpstreamServers({ policy, directory: loaded.directory, env: options.environment });
  const everyServersKeys: ReadonlySet<string> = new Set(configs.flatMap((config) => [...config.redactKeys]));
  const stats = createGatewayStats();
  const sessions = new Set<GatewaySession>();

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
  const subscriptions = new Map<string, number>();

  const ownAuditLog: AuditLog | undefined =
    options.audit === undefined && policy.document.audit?.enabled !== false
      ? createAuditLog({ path: auditLogPath(loaded) })
      : undefined;
  // The gateway's own log is written before a call is forwarded and synced while the server works
  // (createDeferredDurability); a sink passed in is awaited whole, as the gate always does.
  const staged = ownAuditLog ?? (isStaged(options.audit) ? options.audit : undefined);
  const durability = staged === undefined ? undefined : createDeferredDurability(staged);
  const auditSink = durability?.sink ?? options.audit;
  const recordChange = ownAuditLog === undefined ? undefined : recordDefinitionChanges(ownAuditLog);
  const auditTarget = ownAuditLog ?? options.audit;
  // Each server's section of the policy judges the calls to its tools, as one more source of the gate's.
  const servers = createMcpServerSection({ policy, changeNote: (entry) => notes.get(pairKey(entry.server.name, entry.tool.name))?.text });
  const gate = createRuntimeGate({
    loaded,
    sections: [servers.section],
    mode: options.mode,
    // A call to a tool no client can see is redacted with every server's keys: its server is not known.
    audit: auditSink === undefined ? undefined : redactingSink(auditSink, (tool) => entries.get(tool)?.server.redactKeys ?? everyServersKeys),
    memory: options.memory,
    observer: options.observer,
  });

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
    toolsChanged: () => rebuildTools(),
    promptsChanged: () => rebuildRoutes(),
    resourcesChanged: () => rebuildRoutes(),
    resourceUpdated: (server, uri) => {
      for (const clientUri of clientUrisFor(routes, server, uri)) {
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
  const connections: UpstreamConnection[] = configs.map((config) =>
    createUpstreamConnection({
      config,
      events,
      clientInfo: serverInfo,
      callTimeoutMs,
      connectTimeoutMs: options.connectTimeoutMs,
      restart: options.restart,
      log,
      verbose: options.verbose,
      policyPath: loaded.path,
      environment: options.environment,
      createTransport: options.createTransport,
    }),
  );
  const byName = new Map(connections.map((connection) => [connection.name, connection]));

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
      gate.register(servers.declare(entry));
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
    for (const hook of [recordChange, options.onDefinitionChanged]) {
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

  // Denials say who could approve and how to reach them, never a rule or a mode that would let the call through.
  const nonInteractive = createNonInteractiveApprover({
    hint:
      'nobody who can approve it is reachable here: this MCP client cannot show an approval dialog (it does not support elicitation) and no terminal is attached, so it did not run. ' +
      'A person can approve it from an MCP client that supports elicitation, or at a terminal when `toolgate mcp` is started from one',
  });

  const nobodyAsked = createNonInteractiveApprover({
    hint:
      'toolgate mcp was started with --approver none, so nobody is asked and it did not run. ' +
      'To have a person asked, start it with --approver elicitation (an MCP client that supports elicitation) or --approver terminal',
  });

  // A terminal prompt or an inbox card shows the tool's name: the server it belongs to goes first in its description.
  const originOf = (tool: string) => {
    const entry = entries.get(tool);
    return entry === undefined ? undefined : { server: entry.server.name, upstreamName: entry.tool.name };
  };
  const terminalApprover = options.terminalApprover === undefined ? undefined : serverNamedApprover({ approver: options.terminalApprover, originOf });
  const otherApprover = options.approver === undefined ? undefined : serverNamedApprover({ approver: options.approver, originOf });

  const core: GatewayCore = {
    policy,
    gate,
    collectAudit: durability?.collect,
    stats,
    callTimeoutMs,
    connection: (name) => byName.get(name),
    connections: () => connections,
    toolEntry: (name) => entries.get(name),
    tools: () => listed,
    routes: () => routes,
    refreshTools,
    acknowledgeChange(entry) {
      // A person decided on the tool as `entry` was: its warning was shown. A newer change's warning stays for the next dialog.
      const key = pairKey(entry.server.name, entry.tool.name);
      if (notes.get(key)?.identity === entry.identity) notes.delete(key);
    },
    recordNotRun: auditTarget === undefined ? undefined : recordCallsNotRun(auditTarget),
    access(session, relatedRequestId, request, signal) {
      const client = session.server.getClientVersion();
      return decideAccess({
        request,
        context: { sessionId: session.id, ...(client === undefined ? {} : { caller: `mcp:${client.name}` }) },
        approver: () => core.approverFor(session, relatedRequestId),
        signal,
        deps: { mode: options.mode ?? policy.mode, approvalTimeoutMs: policy.approvalTimeoutMs, audit: auditTarget },
      });
    },
    rootsChanged: () => {
      for (const connection of connections) connection.rootsChanged();
    },
    completable: (request) => judgeAccess(accessPolicyFor(request.server, request.method), request.target).decision === 'allow',
    approverFor(session, relatedRequestId): Approver {
      const choice = options.approverChoice ?? 'auto';
      if (choice === 'none') return nobodyAsked;
      if (choice === 'terminal') return terminalApprover ?? nonInteractive;
      if (choice === 'server') return otherApprover ?? nonInteractive;
      if (session.server.getClientCapabilities()?.elicitation?.form !== undefined) {
        const approvalTimeoutMs = policy.approvalTimeoutMs;
        return createElicitationApprover({
          // The gate's own timer fires first and aborts; the SDK's is only a backstop.
          elicit: (params, { signal }) =>
            session.server.elicitInput(params, { signal, relatedRequestId, timeout: approvalTimeoutMs === undefined ? 2_147_483_647 : Math.min(approvalTimeoutMs + 5000, 2_147_483_647) }),
          message: (request, shown) => {
            const entry = entries.get(request.tool);
            const context = entry === undefined ? undefined : { server: entry.server.name, upstreamName: entry.tool.name, changeNote: notes.get(pairKey(entry.server.name, entry.tool.name))?.text, redactKeys: entry.server.redactKeys };
            return approvalMessage({ request, context, revealSecrets: shown?.revealSecrets });
          },
          allowAlways: true,
        });
      }
      if (choice === 'elicitation') return nonInteractive;
      return terminalApprover ?? otherApprover ?? nonInteractive;
    },
    async subscribe(server, uri) {
      const key = pairKey(server, uri);
      const count = subscriptions.get(key) ?? 0;
      if (count === 0) await byName.get(server)?.request('resources/subscribe', { uri });
      subscriptions.set(key, count + 1);
    },
    async unsubscribe(server, uri) {
      const key = pairKey(server, uri);
      const count = subscriptions.get(key) ?? 0;
      if (count <= 1) {
        subscriptions.delete(key);
        if (count === 1) await byName.get(server)?.request('resources/unsubscribe', { uri });
      } else subscriptions.set(key, count - 1);
    },
  };

  async function refreshTools(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.allSettled(connections.map((connection) => connection.refreshTools())),
        new Promise((resolve) => (timer = setTimeout(resolve, LIST_REFRESH_WAIT_MS))),
      ]);
    } finally {
      clearTimeout(timer);
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
    const config = byName.get(serverName)?.config;
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
    await core.access(chosen, relatedRequestId, { server: config, method, target: '', args: shown }, signal);
    return send(chosen, relatedRequestId);
  }

  function openSession(sessionOptions: { sessionId?: string } = {}): McpGatewayConnection {
    const instructions = connections
      .filter((connection) => connection.snapshot.instructions !== undefined)
      .map((connection) => `## MCP server ${connection.name}\n${passedInstructions(connection)}`)
      .join('\n\n');
    const session = createDownstreamServer({ core, serverInfo, sessionId: sessionOptions.sessionId ?? `mcp-${randomUUID()}`, instructions: instructions === '' ? undefined : instructions });
    sessions.add(session);
    session.server.onclose = () => {
      sessions.delete(session);
      if (session.server.getClientCapabilities()?.roots !== undefined) core.rootsChanged();
      session.abortCalls(new Error('the client disconnected'));
      for (const clientUri of session.subscriptions) void session.release(clientUri).catch(() => undefined);
    };
    return { sessionId: session.id, server: session.server, connect: (transport) => session.attach(transport), close: () => session.server.close() };
  }

  return {
    gate,
    async start() {
      await Promise.all(connections.map((connection) => connection.start()));
      // Closed while the servers were starting (a signal, the client gone): there is nothing left to list.
      if (connections.some((connection) => connection.state === 'closed')) return;
      rebuildTools();
      rebuildRoutes();
    },
    async connect(transport) {
      const connection = openSession();
      await connection.connect(transport);
      return connection;
    },
    openSession,
    tools: () => [...listed],
    refresh: refreshTools,
    upstreams: () => connections.map((connection) => ({ name: connection.name, state: connection.state, tools: connection.snapshot.tools.length })),
    stats: () => stats.snapshot(),
    async close() {
      await Promise.allSettled([...sessions].map((session) => session.server.close()));
      await Promise.allSettled(connections.map((connection) => connection.close()));
      await gate.close();
      await ownAuditLog?.close().catch((error: unknown) => log(`could not flush the audit log: ${errorMessage(error)}`));
    },
  };
}

function hiddenByServer(config: UpstreamServerConfig, name: string): boolean {
  if (firstMatch(config.filter.deny, name) !== -1) return true;
  return config.filter.allow !== undefined && firstMatch(config.filter.allow, name) === -1;
}

function isStaged(sink: AuditSink | undefined): sink is AuditSink & StagedAuditLog {
  return typeof (sink as Partial<StagedAuditLog> | undefined)?.recordInStages === 'function';
}

function pairKey(server: string, name: string): string {
  return `${server}\u0000${name}`;
}

/** The gate redacts with the policy's keys; a server's own `redact.keys` apply to its tools' audit lines too. */
function redactingSink(sink: AuditSink, keysFor: (tool: string) => ReadonlySet<string> | undefined): AuditSink {
  return {
    record(entry) {
      const keys = keysFor(entry.tool);
      return sink.record(keys === undefined || keys.size === 0 ? entry : { ...entry, args: redact(entry.args, keys) });
    },
  };
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
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
