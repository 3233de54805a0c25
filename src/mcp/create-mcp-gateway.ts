import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createAuditLog, type AuditLog } from '../audit/audit-log.ts';
import type { AuditSink } from '../core/audit-entry.ts';
import type { Gate } from '../core/gate.ts';
import { redact } from '../core/redact.ts';
import { errorMessage } from '../core/run-tool-check.ts';
import { auditLogPath } from '../config/load-policy-file.ts';
import { createRuntimeGate } from '../runtime/create-runtime-gate.ts';
import { sanitizeTerminalText } from '../core/sanitize-terminal-text.ts';
import { accessPolicyFor, decideAccess } from './mcp-access.ts';
import { judgeAccess } from './mcp-access-policy.ts';
import type { NamespacingMode } from './assign-client-names.ts';
import { createDeferredDurability, type StagedAuditLog } from './deferred-durability.ts';
import { recordCallsNotRun, recordDefinitionChanges } from './definition-change.ts';
import { createDownstreamServer, type GatewayCore, type GatewaySession } from './downstream-server.ts';
import { gatewayApprovers } from './gateway-approvers.ts';
import { createGatewayListing, pairKey } from './gateway-listing.ts';
import { createGatewayStats, type GatewayStatsSnapshot } from './gateway-stats.ts';
import { DEFAULT_CALL_TIMEOUT_MS, type McpGatewayOptions } from './mcp-gateway-options.ts';
import { createMcpServerSection, type McpToolEntry } from './mcp-tool-declaration.ts';
import { createUpstreamConnection, type UpstreamConnection } from './upstream-connection.ts';
import { upstreamEvents } from './upstream-events.ts';
import { readUpstreamServers } from './upstream-server-config.ts';

export { relayedElicitation } from './upstream-events.ts';

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

  const ownAuditLog: AuditLog | undefined =
    options.audit === undefined && policy.document.audit?.enabled !== false
      ? createAuditLog({ path: auditLogPath(loaded) })
      : undefined;
  // The gateway's own log is written before a call is forwarded and synced while the server works
  // (createDeferredDurability); a sink passed in is awaited whole, as the gate always does.
  const staged = ownAuditLog ?? (isStaged(options.audit) ? options.audit : undefined);
  const durability = staged === undefined ? undefined : createDeferredDurability(staged);
  const auditSink = durability?.sink ?? options.audit;
  const auditTarget = ownAuditLog ?? options.audit;
  // Each server's section of the policy judges the calls to its tools, as one more source of the gate's.
  // The listing (below) is read only once calls arrive, after it is made.
  const servers = createMcpServerSection({ policy, changeNote: (entry) => listing.changeNote(entry) });
  const gate = createRuntimeGate({
    loaded,
    sections: [servers.section],
    mode: options.mode,
    // A call to a tool no client can see is redacted with every server's keys: its server is not known.
    audit: auditSink === undefined ? undefined : redactingSink(auditSink, (tool) => listing.entry(tool)?.server.redactKeys ?? everyServersKeys),
    memory: options.memory,
    observer: options.observer,
  });

  const events = upstreamEvents({ sessions, listing: { rebuildTools: () => listing.rebuildTools(), rebuildRoutes: () => listing.rebuildRoutes(), routes: () => listing.routes() }, connection: (name) => byName.get(name), access: (...args) => core.access(...args) });
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
  const listing = createGatewayListing({
    connections,
    gate,
    declare: (entry) => servers.declare(entry),
    policy,
    mode,
    log,
    sessions,
    onChange: [ownAuditLog === undefined ? undefined : recordDefinitionChanges(ownAuditLog), options.onDefinitionChanged],
  });
  const approverFor = gatewayApprovers({ options, policy, entry: listing.entry, changeNote: listing.changeNote });

  const core: GatewayCore = {
    policy,
    gate,
    collectAudit: durability?.collect,
    stats,
    callTimeoutMs,
    connection: (name) => byName.get(name),
    connections: () => connections,
    toolEntry: (name) => listing.entry(name),
    tools: () => listing.listed(),
    routes: () => listing.routes(),
    refreshTools,
    acknowledgeChange: (entry) => listing.acknowledgeChange(entry),
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
    approverFor,
    ...upstreamSubscriptions((name) => byName.get(name)),
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

  function openSession(sessionOptions: { sessionId?: string } = {}): McpGatewayConnection {
    const instructions = connections
      .filter((connection) => connection.snapshot.instructions !== undefined)
      .map((connection) => `## MCP server ${connection.name}\n${listing.passedInstructions(connection)}`)
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
      listing.rebuildTools();
      listing.rebuildRoutes();
    },
    async connect(transport) {
      const connection = openSession();
      await connection.connect(transport);
      return connection;
    },
    openSession,
    tools: () => [...listing.listed()],
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

function isStaged(sink: AuditSink | undefined): sink is AuditSink & StagedAuditLog {
  return typeof (sink as Partial<StagedAuditLog> | undefined)?.recordInStages === 'function';
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

/**
 * Resource subscriptions counted across clients: the upstream is
 * subscribed when the first client subscribes and unsubscribed when the
 * last one leaves.
 */
function upstreamSubscriptions(connection: (name: string) => UpstreamConnection | undefined): Pick<GatewayCore, 'subscribe' | 'unsubscribe'> {
  const subscriptions = new Map<string, number>();
  return {
    async subscribe(server, uri) {
      const key = pairKey(server, uri);
      const count = subscriptions.get(key) ?? 0;
      if (count === 0) await connection(server)?.request('resources/subscribe', { uri });
      subscriptions.set(key, count + 1);
    },
    async unsubscribe(server, uri) {
      const key = pairKey(server, uri);
      const count = subscriptions.get(key) ?? 0;
      if (count <= 1) {
        subscriptions.delete(key);
        if (count === 1) await connection(server)?.request('resources/unsubscribe', { uri });
      } else subscriptions.set(key, count - 1);
    },
  };
}
