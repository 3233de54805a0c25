import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Registry } from 'prom-client';
import { errorMessage } from '../core/run-tool-check.ts';
import type { McpGateway, McpGatewayConnection } from './create-mcp-gateway.ts';
import { createHttpSessionPool, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS } from './http-session-pool.ts';
import { listenOnLoopback } from './listen-on-loopback.ts';

export interface HttpGatewayOptions {
  gateway: McpGateway;
  /** 0 picks a free port. The gateway only ever listens on 127.0.0.1. */
  port: number;
  /** Every request must carry `Authorization: Bearer <token>`. */
  token: string;
  /**
   * Open client sessions at most (default 64). A new client takes the place of
   * the least recently used idle one; only when every session is busy (a
   * request in flight or an open SSE stream) is it refused with 503.
   */
  maxSessions?: number;
  /** A session with no request and no SSE stream open for this long is closed (default 30 minutes). */
  sessionIdleTimeoutMs?: number;
  /** Served at `GET /metrics` (Prometheus text), behind the same token and checks as `/mcp`. */
  metrics?: Registry;
  log?: (line: string) => void;
}

export interface HttpGateway {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  readonly port: number;
  /** Sessions open now. */
  sessions(): number;
  close(): Promise<void>;
}

/** The path MCP clients connect to. */
export const MCP_HTTP_PATH = '/mcp';

/** Where the gateway's Prometheus metrics are, when it was given them. */
export const METRICS_HTTP_PATH = '/metrics';

/** The shortest token accepted: anything shorter can be guessed. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * A token for `--http` when none is given: 32 random bytes, base64url.
 *
 * @example
 * const token = generateGatewayToken(); // 'q3Vf…' (43 characters)
 */
export function generateGatewayToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Serves the gateway over Streamable HTTP on 127.0.0.1 only. Before anything
 * reaches the MCP transport, each request must name this server in `Host`
 * (and in `Origin`, when a browser sends one) — so a web page cannot reach it
 * through DNS rebinding — and carry the bearer token, compared in constant
 * time. Each client session gets its own MCP server (its own elicitation
 * channel and session approvals); all share the gateway's upstreams and gate.
 * Sessions end on DELETE, after `sessionIdleTimeoutMs` idle, or when a new
 * client needs the place of an idle one (http-session-pool.ts); ending one
 * aborts its calls and drops its resource subscriptions.
 *
 * @example
 * const http = await startHttpGateway({ gateway, port: 8808, token: generateGatewayToken() });
 * console.error(`MCP endpoint: ${http.url}`);
 */
export async function startHttpGateway(options: HttpGatewayOptions): Promise<HttpGateway> {
  const { gateway } = options;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const log = options.log ?? (() => undefined);
  const expected = digest(options.token);
  const sessions = createHttpSessionPool<HttpSession>({
    maxSessions,
    idleTimeoutMs: options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS,
    onEnded: (id, reason) => log(`session ${id} closed: ${reason === 'idle' ? 'idle too long' : 'its place was needed by a new client'}`),
    onError: (id, error) => log(`could not close session ${id}: ${errorMessage(error)}`),
  });
  let port = options.port;

  const server = http.createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      log(`HTTP request failed: ${errorMessage(error)}`);
      if (!response.headersSent) reply(response, 500, 'internal error');
      else response.end();
    });
  });

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const refusal = refuse(request);
    if (refusal !== undefined) {
      reply(response, refusal.status, refusal.message, refusal.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="toolgate"' } : {});
      return;
    }
    if (options.metrics !== undefined && pathOf(request) === METRICS_HTTP_PATH) {
      if (request.method !== 'GET') {
        reply(response, 405, `method ${request.method ?? ''} not allowed on ${METRICS_HTTP_PATH}: use GET`, { Allow: 'GET' });
        return;
      }
      const text = await options.metrics.metrics();
      response.writeHead(200, { 'Content-Type': options.metrics.contentType, 'Cache-Control': 'no-store' });
      response.end(text);
      return;
    }
    const sessionHeader = request.headers['mcp-session-id'];
    if (typeof sessionHeader === 'string') {
      const session = sessions.get(sessionHeader);
      if (session === undefined) {
        reply(response, 404, 'unknown or expired session: initialize a new one');
        return;
      }
      // Busy until the response ends: a POST's answer, a GET's SSE stream.
      busyUntilClosed(response, sessions.begin(sessionHeader));
      await session.transport.handleRequest(request, response);
      return;
    }
    if (request.method !== 'POST') {
      reply(response, 400, 'no session: start one with an initialize request (POST)');
      return;
    }
    if (!sessions.reserve()) {
      reply(response, 503, `too many busy sessions (${maxSessions}, each with a request or stream open); try again when one finishes`);
      return;
    }
    let added = false;
    const connection = gateway.openSession();
    const session: HttpSession = {
      connection,
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          added = true;
          sessions.add(id, session);
          busyUntilClosed(response, sessions.begin(id));
        },
        // DELETE: the transport closes itself (and so the session's server) right after.
        onsessionclosed: (id) => sessions.remove(id),
      }),
      async close() {
        await session.transport.close();
        await connection.close();
      },
    };
    session.transport.onclose = () => {
      if (session.transport.sessionId !== undefined && sessions.get(session.transport.sessionId) === session) sessions.remove(session.transport.sessionId);
    };
    try {
      await connection.connect(session.transport);
      await session.transport.handleRequest(request, response);
    } finally {
      if (!added) sessions.release();
    }
    // Anything but an initialize request leaves no session behind.
    if (!added) await connection.close();
  }

  function refuse(request: http.IncomingMessage): { status: number; message: string } | undefined {
    const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
    const host = request.headers.host?.toLowerCase();
    if (host === undefined || !allowedHosts.includes(host)) {
      return { status: 403, message: `the Host header must be one of ${allowedHosts.join(', ')} (DNS rebinding protection)` };
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !allowedHosts.some((allowed) => origin.toLowerCase() === `http://${allowed}`)) {
      return { status: 403, message: 'requests from web pages of other origins are refused' };
    }
    const authorization = request.headers.authorization;
    const presented = typeof authorization === 'string' && /^Bearer\s+/i.test(authorization) ? authorization.replace(/^Bearer\s+/i, '').trim() : undefined;
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      return { status: 401, message: 'missing or wrong bearer token: send Authorization: Bearer <token> (printed by toolgate mcp --http, or set with --token / TOOLGATE_MCP_TOKEN)' };
    }
    const path = pathOf(request);
    if (path !== MCP_HTTP_PATH && !(path === METRICS_HTTP_PATH && options.metrics !== undefined)) return { status: 404, message: `not found: the MCP endpoint is ${MCP_HTTP_PATH}` };
    return undefined;
  }

  port = await listenOnLoopback(server, options.port);

  return {
    url: `http://127.0.0.1:${port}${MCP_HTTP_PATH}`,
    port,
    sessions: () => sessions.size,
    async close() {
      await sessions.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

interface HttpSession {
  transport: StreamableHTTPServerTransport;
  connection: McpGatewayConnection;
  close(): Promise<void>;
}

/** Ends a session's busy mark when the response ends or its connection drops (at once if it already has). */
function busyUntilClosed(response: http.ServerResponse, end: () => void): void {
  if (response.closed) end();
  else response.once('close', end);
}

function pathOf(request: http.IncomingMessage): string {
  return new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
}

/** Equal-length digests, so the comparison takes the same time whatever was sent. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

function reply(response: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
