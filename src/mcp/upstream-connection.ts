import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type Implementation,
  type ListRootsResult,
  type LoggingMessageNotification,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorMessage } from '../core/run-tool-check.ts';
import { attachSideChannel, type SideChannel } from './json-rpc-side-channel.ts';
import { upstreamClient } from './upstream-client.ts';
import { createRestartBackoff } from './upstream-restart.ts';
import { ProcessGroupStdioTransport } from './process-group-stdio-transport.ts';
import { readPromptList, readResourceLists, readToolList } from './upstream-lists.ts';
import { UpstreamError } from './upstream-error.ts';
import { describeStop, upstreamFailure } from './upstream-failure.ts';
import { createUpstreamRelayLog } from './upstream-relay-log.ts';
import type { StartFailureOptions } from './upstream-start-failure.ts';
import { createToolResultCheck } from './tool-result-check.ts';
import type { UpstreamServerConfig } from './upstream-server-config.ts';

export type UpstreamState = 'starting' | 'ready' | 'restarting' | 'closed';

/** What an upstream server tells the gateway between calls. */
export interface UpstreamEvents {
  /** The tool list was (re)read: at connect, on `list_changed`, on a refresh. */
  toolsChanged(server: string): void;
  promptsChanged(server: string): void;
  resourcesChanged(server: string): void;
  resourceUpdated(server: string, uri: string): void;
  logMessage(server: string, params: LoggingMessageNotification['params']): void;
  /** The server asks for the client's roots (`roots/list`): the gateway relays its client's. */
  listRoots(server: string): Promise<ListRootsResult>;
  /** The server asks the client's model to write (`sampling/createMessage`): decided by the policy, then relayed. */
  createMessage(server: string, params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult>;
  /** The server asks the person a question (`elicitation/create`): decided by the policy, then relayed. */
  elicit(server: string, params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>;
}

export interface RestartPolicy {
  /** First delay before restarting a server that stopped (default 500 ms); it doubles on each failure. */
  initialDelayMs?: number;
  /** The longest delay (default 30 s). */
  maxDelayMs?: number;
  /** A server that ran this long before stopping starts over from the first delay (default 30 s). */
  stableAfterMs?: number;
}

export interface UpstreamConnectionOptions {
  config: UpstreamServerConfig;
  events: UpstreamEvents;
  clientInfo: Implementation;
  /** Per request (tools/call, resources/read...): then it is cancelled upstream. */
  callTimeoutMs: number;
  /** For the initialize handshake and each list request (default 30 s). */
  connectTimeoutMs?: number;
  restart?: RestartPolicy;
  log: (line: string) => void;
  /**
   * Relay every line the server writes to stderr, and every message of the
   * MCP client, as it comes (`--verbose`). By default a server's stderr is
   * kept for the report of a failed start until it is ready, and expected
   * messages (`relay-chatter.ts`) are summed up in one line per server.
   */
  verbose?: boolean;
  /** The policy file, named where a report says what to change (`env_from`). */
  policyPath?: string;
  /** toolgate's own environment (default `process.env`): a failed start names often needed variables set here but not passed. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Builds the transport of each connection attempt; by default a process group (stdio) or Streamable HTTP. */
  createTransport?: (config: UpstreamServerConfig) => Transport;
}

/** The upstream's lists, as last read: kept while it restarts, so names stay stable. */
export interface UpstreamSnapshot {
  tools: readonly Tool[];
  prompts: readonly Prompt[];
  resources: readonly Resource[];
  resourceTemplates: readonly ResourceTemplate[];
  capabilities: ServerCapabilities | undefined;
  instructions: string | undefined;
}

/** Requests the gateway forwards besides tools/call. */
type ForwardedMethod = 'resources/read' | 'resources/subscribe' | 'resources/unsubscribe' | 'prompts/get' | 'completion/complete' | 'logging/setLevel';

const PING_TIMEOUT_MS = 5000;

/**
 * One upstream MCP server: connects with the SDK's `Client`, reads its
 * tools, prompts and resources, forwards calls with a deadline (cancelled
 * upstream when it passes), and restarts the server with exponential backoff
 * whenever it stops, re-reading its lists when it is back. A server that
 * stops answering (a call times out and a ping fails) is restarted too.
 *
 * @example
 * const connection = createUpstreamConnection({ config, events, clientInfo, callTimeoutMs: 60_000, log });
 * await connection.start();
 * const result = await connection.callTool({ name: 'read_text_file', arguments: { path: 'a.txt' }, signal });
 */
export function createUpstreamConnection(options: UpstreamConnectionOptions) {
  const { config, events, log } = options;
  const name = config.name;
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
  const backoff = createRestartBackoff(options.restart);
  const createTransport = options.createTransport ?? defaultTransport;

  let state: UpstreamState = 'starting';
  let client: Client | undefined;
  let transport: Transport | undefined;
  let channel: SideChannel | undefined;
  /** The transport of the connection attempt under way: `close` must stop it too, not wait for its timeout. */
  let attempting: Transport | undefined;
  const results = createToolResultCheck({ server: name });
  let lastStop = '';
  let refreshChain: Promise<void> = Promise.resolve();
  const isClosed = () => state === 'closed';
  const relayLog = createUpstreamRelayLog({ name, log, verbose: options.verbose ?? false, isReady: () => state === 'ready', isClosed });
  const snapshot: UpstreamSnapshot = { tools: [], prompts: [], resources: [], resourceTemplates: [], capabilities: undefined, instructions: undefined };

  function defaultTransport(server: UpstreamServerConfig): Transport {
    if (server.transport.kind === 'http') {
      return new StreamableHTTPClientTransport(server.transport.url, { requestInit: { headers: { ...server.transport.headers } } });
    }
    return new ProcessGroupStdioTransport({
      command: server.transport.command,
      args: server.transport.args,
      env: server.transport.env,
      cwd: server.transport.cwd,
      onStderr: (line) => relayLog.relay(line, 'stderr'),
    });
  }

  async function connect(): Promise<boolean> {
    const attemptTransport = createTransport(config);
    const attemptClient = upstreamClient({
      name,
      clientInfo: options.clientInfo,
      events,
      current: (candidate) => client === candidate && state !== 'closed',
      onToolsChanged: () => void refreshTools().catch(() => undefined),
      onPromptsChanged: (from) => void refresh(() => readPrompts(from)).then(() => events.promptsChanged(name), () => undefined),
      onResourcesChanged: (from) => void refresh(() => readResources(from)).then(() => events.resourcesChanged(name), () => undefined),
    });
    attemptClient.onerror = (error) => relayLog.relay(errorMessage(error), 'client');
    attemptClient.onclose = () => onClosed(attemptClient, attemptTransport);
    attempting = attemptTransport;
    try {
      await attemptClient.connect(attemptTransport, { timeout: connectTimeoutMs });
      if (state === 'closed') {
        await attemptClient.close().catch(() => undefined);
        return false;
      }
      client = attemptClient;
      transport = attemptTransport;
      channel = attachSideChannel(attemptTransport);
      snapshot.capabilities = attemptClient.getServerCapabilities();
      snapshot.instructions = attemptClient.getInstructions();
      await readTools(attemptClient);
      await readPrompts(attemptClient);
      await readResources(attemptClient);
    } catch (error) {
      // A server that exits at once fails the first write before its exit is seen: the exit is the better reason.
      if (attemptTransport instanceof ProcessGroupStdioTransport && !(error instanceof McpError && error.code === ErrorCode.RequestTimeout)) await attemptTransport.waitForExit(1000);
      const why = describeStop(attemptTransport, error);
      // Read before closing: the close kills the process, and its exit would pass for the reason.
      const failure: StartFailureOptions = {
        config,
        transport: attemptTransport,
        error,
        initialized: attemptClient.getServerVersion() !== undefined,
        connectTimeoutMs,
        policyPath: options.policyPath,
        environment: options.environment ?? process.env,
      };
      if (client === attemptClient) client = undefined;
      if (state !== 'closed') relayLog.failedStart(failure);
      await attemptClient.close().catch(() => undefined);
      lastStop = why;
      return false;
    } finally {
      if (attempting === attemptTransport) attempting = undefined;
    }
    // close() may have run while the lists were read.
    if (isClosed()) return false;
    state = 'ready';
    backoff.ready();
    relayLog.ready();
    log(`server ${JSON.stringify(name)} is ready (${snapshot.tools.length} tools)`);
    events.toolsChanged(name);
    events.promptsChanged(name);
    events.resourcesChanged(name);
    return true;
  }

  function onClosed(closedClient: Client, closedTransport: Transport): void {
    if (closedClient !== client) return;
    client = undefined;
    transport = undefined;
    channel = undefined;
    if (state === 'closed') return;
    backoff.stopped();
    lastStop = describeStop(closedTransport, undefined);
    log(`server ${JSON.stringify(name)} stopped (${lastStop}); restarting it`);
    scheduleRestart();
  }

  function scheduleRestart(): void {
    if (state === 'closed') return;
    const scheduled = backoff.schedule(() => {
      void connect().then((connected) => {
        if (!connected) scheduleRestart();
      });
    });
    if (scheduled) state = 'restarting';
  }

  /** Runs list refreshes one at a time, so an older list never overwrites a newer one. */
  function refresh(read: () => Promise<void>): Promise<void> {
    const next = refreshChain.then(read);
    refreshChain = next.catch(() => undefined);
    return next;
  }

  /** `then` runs in the same tick as the new list is stored: no call is forwarded against a list the gateway has not compared yet. */
  async function readTools(from: Client, then?: () => void): Promise<void> {
    const tools = await readToolList(from, connectTimeoutMs);
    snapshot.tools = tools;
    results.update(tools);
    then?.();
  }

  async function readPrompts(from: Client): Promise<void> {
    snapshot.prompts = (await readPromptList(from, connectTimeoutMs)) ?? snapshot.prompts;
  }

  async function readResources(from: Client): Promise<void> {
    const lists = await readResourceLists(from, connectTimeoutMs);
    if (lists === undefined) return;
    snapshot.resources = lists.resources;
    snapshot.resourceTemplates = lists.templates;
  }

  /** Re-reads the tool list (on `list_changed`, and whenever the client lists tools). */
  function refreshTools(): Promise<void> {
    const from = client;
    if (from === undefined || state !== 'ready') return Promise.resolve();
    return refresh(async () => {
      await readTools(from, () => events.toolsChanged(name));
    });
  }

  function ready(): Client {
    if (state === 'ready' && client !== undefined && channel !== undefined) return client;
    const when = state === 'restarting' ? `; the next start is in ${backoff.secondsToNext()} s` : '';
    const why = lastStop === '' ? '' : ` (it stopped: ${lastStop})`;
    const what = state === 'closed' ? 'has been shut down' : state === 'starting' ? 'is still starting' : 'is not running';
    throw new UpstreamError({
      code: 'MCP_UPSTREAM_UNAVAILABLE',
      server: name,
      message: `MCP server ${JSON.stringify(name)} ${what}${why}${when}. Try again shortly.`,
    });
  }

  function failure(error: unknown, what: string, usedTransport: Transport | undefined, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted === true) return error;
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) void checkAlive();
    return upstreamFailure({ error, server: name, what, transport: usedTransport, callTimeoutMs: options.callTimeoutMs });
  }

  /** After a timeout: a server that cannot even answer a ping is hung, and is restarted. */
  async function checkAlive(): Promise<void> {
    const from = client;
    if (from === undefined) return;
    try {
      // A quick request, so no longer than a call may take (at least a second).
      await from.ping({ timeout: Math.min(PING_TIMEOUT_MS, Math.max(options.callTimeoutMs, 1000)) });
    } catch {
      if (from !== client || state === 'closed') return;
      log(`server ${JSON.stringify(name)} does not answer a ping after a timed-out request; restarting it`);
      await transport?.close().catch(() => undefined);
    }
  }

  return {
    name,
    config,
    get state(): UpstreamState {
      return state;
    },
    get snapshot(): UpstreamSnapshot {
      return snapshot;
    },
    /** Connects once; when that fails the server is retried in the background. Never throws. */
    async start(): Promise<void> {
      if (!(await connect())) scheduleRestart();
    },
    refreshTools,
    /** Tells the server its client's roots changed (it asks for them again). */
    rootsChanged(): void {
      if (state === 'ready') void client?.sendRootsListChanged().catch(() => undefined);
    },
    async callTool(request: {
      name: string;
      arguments: Record<string, unknown> | undefined;
      meta?: Record<string, unknown> | undefined;
      signal?: AbortSignal;
      onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
    }): Promise<CallToolResult> {
      ready();
      const usedTransport = transport;
      const usedChannel = channel!;
      const params: Record<string, unknown> = { name: request.name };
      if (request.arguments !== undefined) params.arguments = request.arguments;
      if (request.meta !== undefined) params._meta = request.meta;
      const what = `the call to ${request.name}`;
      let result: Record<string, unknown>;
      try {
        result = await usedChannel.request({ method: 'tools/call', params, timeoutMs: options.callTimeoutMs, signal: request.signal, onprogress: request.onprogress });
      } catch (error) {
        throw failure(error, what, usedTransport, request.signal);
      }
      results.check({ tool: request.name, result, what });
      // Forwarded as the server sent it (unknown fields included); it has been checked, not rebuilt.
      return result as CallToolResult;
    },
    /** Forwards any other request with the same deadline and error handling as a call. */
    async request(method: ForwardedMethod, params: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<Record<string, unknown>> {
      const from = ready();
      const usedTransport = transport;
      try {
        return (await from.request({ method, params } as never, PassThroughResultSchema, { signal, timeout: options.callTimeoutMs })) as Record<string, unknown>;
      } catch (error) {
        throw failure(error, method, usedTransport, signal);
      }
    },
    async close(): Promise<void> {
      state = 'closed';
      backoff.cancel();
      const closing = client;
      client = undefined;
      const starting = attempting;
      attempting = undefined;
      await Promise.allSettled([closing?.close(), transport?.close(), starting?.close()]);
      transport = undefined;
    },
  };
}

export type UpstreamConnection = ReturnType<typeof createUpstreamConnection>;

/** Results forwarded as they came: the downstream server validates what it sends. */
const PassThroughResultSchema = z.looseObject({});
