/**
 * The HTTP tests' fixture: a real SQLite store in a temp directory, tokens of
 * every role, the app over real HTTP on 127.0.0.1, and a raw HTTP client (so
 * a test can send any Host, Origin or body) with an SSE reader. Test code only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStore } from '../../store/sqlite-store.ts';
import type { ToolgateStore } from '../../store/store.ts';
import { createLogger } from '../log.ts';
import { createApiToken, hashToken, newToken } from '../tokens.ts';
import { defaultAllowedHosts } from './browser-guard.ts';
import { createServerApp, type ServerAppOptions } from './create-server-app.ts';
import { startHttpServer } from './start-http-server.ts';
import { createTestRunService, type TestRunService } from './test-run-service.ts';

export interface TestServer {
  url: string;
  port: number;
  host: string;
  store: ToolgateStore;
  service: TestRunService;
  /** Tokens by name: `alice` and `bob` (submitters), `carol` (approver), `dave` (admin token in the store), `admin` (the server's own). */
  tokens: Record<'alice' | 'bob' | 'carol' | 'dave' | 'admin', string>;
  /** Every log line the server wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  /** The raw log text. */
  logText(): string;
  close(): Promise<void>;
}

export async function startTestServer(options: Partial<Pick<ServerAppOptions, 'heartbeatMs' | 'maxBodyBytes' | 'web'>> & { verbose?: boolean } = {}): Promise<TestServer> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-http-'));
  const store = openSqliteStore({ file: path.join(directory, '.toolgate', 'toolgate.db') });
  const service = createTestRunService({ store });
  const admin = newToken();
  const tokens = {
    alice: await createApiToken({ store, name: 'alice', role: 'submitter' }),
    bob: await createApiToken({ store, name: 'bob', role: 'submitter' }),
    carol: await createApiToken({ store, name: 'carol', role: 'approver' }),
    dave: await createApiToken({ store, name: 'dave', role: 'admin' }),
    admin,
  };
  let logText = '';
  const logger = createLogger({ level: 'debug', verbose: options.verbose ?? false, write: (line) => (logText += line) });
  const allowedHosts: string[] = [];
  const app = createServerApp({ service, store, adminTokenHash: hashToken(admin), allowedHosts, logger, ...options });
  const server = await startHttpServer({ app, host: '127.0.0.1', port: 0 });
  allowedHosts.push(...defaultAllowedHosts({ host: '127.0.0.1', port: server.port }));
  return {
    url: server.url,
    port: server.port,
    host: `127.0.0.1:${server.port}`,
    store,
    service,
    tokens,
    get logs() {
      return logText
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    logText: () => logText,
    async close() {
      await server.close();
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown>;
}

/**
 * One request with full control of the headers (Host included) and body.
 * `token` becomes `Authorization: Bearer <token>`; a `json` body sets
 * `Content-Type: application/json` unless `headers` says otherwise.
 */
export function send(server: Pick<TestServer, 'port' | 'host'>, request: { method?: string; path: string; token?: string; json?: unknown; body?: string | Buffer; headers?: Record<string, string> }): Promise<RawResponse> {
  const headers: Record<string, string> = { host: server.host };
  if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
  let body = request.body;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, request.headers);
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port: server.port, method: request.method ?? 'GET', path: request.path, headers, agent: false }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // Not JSON: the test looks at `text`.
        }
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, json });
      });
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export interface SseFrame {
  id: number;
  type: string;
  data: Record<string, unknown>;
}

export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  frames: SseFrame[];
  /** Comment lines (`: ping`), without the colon. */
  comments: string[];
  raw(): string;
  /** Resolves once `count` frames arrived in all; rejects after `timeoutMs`. */
  waitForFrames(count: number, timeoutMs?: number): Promise<SseFrame[]>;
  waitForComments(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves once the server ended the stream; rejects after `timeoutMs`. */
  waitForEnd(timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens an SSE stream; resolves once the response headers are in. */
export function openEventStream(server: Pick<TestServer, 'port' | 'host'>, request: { path: string; token: string; lastEventId?: number | string }): Promise<SseClient> {
  const headers: Record<string, string> = { host: server.host, authorization: `Bearer ${request.token}`, accept: 'text/event-stream' };
  if (request.lastEventId !== undefined) headers['last-event-id'] = String(request.lastEventId);
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port: server.port, path: request.path, headers, agent: false }, (incoming) => {
      let raw = '';
      let pending = '';
      const frames: SseFrame[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => {
        raw += chunk;
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf('\n\n')) !== -1) {
          const block = pending.slice(0, end);
          pending = pending.slice(end + 2);
          let id: number | undefined;
          let data: string | undefined;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) id = Number(line.slice(4));
            else if (line.startsWith('data: ')) data = line.slice(6);
          }
          if (data !== undefined) {
            const parsed = JSON.parse(data) as { type: string; data: Record<string, unknown> };
            frames.push({ id: id ?? Number.NaN, type: parsed.type, data: parsed.data });
          }
        }
        for (const waiter of [...waiters]) waiter();
      });
      let ended = false;
      incoming.on('end', () => {
        ended = true;
        for (const waiter of [...waiters]) waiter();
      });
      incoming.on('error', () => {});
      const waitUntil = (done: () => boolean, what: string, timeoutMs: number) =>
        new Promise<void>((resolveWait, rejectWait) => {
          if (done()) return resolveWait();
          const timer = setTimeout(() => {
            waiters.delete(check);
            rejectWait(new Error(`timed out waiting for ${what}; got ${JSON.stringify(raw).slice(0, 2000)}`));
          }, timeoutMs);
          const check = () => {
            if (!done()) return;
            clearTimeout(timer);
            waiters.delete(check);
            resolveWait();
          };
          waiters.add(check);
        });
      resolve({
        status: incoming.statusCode ?? 0,
        headers: incoming.headers,
        frames,
        comments,
        raw: () => raw,
        waitForFrames: async (count, timeoutMs = 5000) => {
          await waitUntil(() => frames.length >= count, `${count} frames`, timeoutMs);
          return frames;
        },
        waitForComments: (count, timeoutMs = 5000) => waitUntil(() => comments.length >= count, `${count} comments`, timeoutMs),
        waitForEnd: (timeoutMs = 5000) => waitUntil(() => ended, 'the end of the stream', timeoutMs),
        close: () => outgoing.destroy(),
      });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Waits until `condition` holds (polling), or fails after `timeoutMs`. */
export async function eventually(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
