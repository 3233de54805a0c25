/**
 * The server API tests' fixture: `toolgate serve` started in-process on
 * 127.0.0.1 (port 0) over a real SQLite file in a temp project, with the
 * scripted model and the real built-in tools of test/fixtures/server-api's
 * policy; tokens of every role; a fetch-based client and an SSE reader.
 * Test code only.
 */
import { afterEach } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../src/server/log.ts';
import { startToolgateServer, type RunningToolgateServer } from '../src/server/start-server.ts';
import { createApiToken } from '../src/server/tokens.ts';

export const FIXTURES = fileURLToPath(new URL('./fixtures/server-api/', import.meta.url));

/** `script:/abs/path` of a script in test/fixtures/server-api. */
export function scriptModel(name: string): string {
  return `script:${path.join(FIXTURES, name)}`;
}

/** A project: the policy (the fixture plus `extraPolicy`), ws/ and the store under .toolgate/. */
export interface ApiProject {
  root: string;
  policyFile: string;
  storeFile: string;
  /** Reads a file of the project (relative to its root), or undefined when absent. */
  read(relative: string): string | undefined;
  remove(): void;
}

/**
 * A fresh project in a temp directory. `extraPolicy` is YAML appended to the
 * fixture policy's top level (e.g. `on_deny: stop`).
 */
export function createApiProject(options: { extraPolicy?: string; files?: Record<string, string> } = {}): ApiProject {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-server-api-'));
  mkdirSync(path.join(root, 'ws'));
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(path.join(root, name), text);
  const policyFile = path.join(root, 'toolgate.yaml');
  writeFileSync(policyFile, `${readFileSync(path.join(FIXTURES, 'policy.yaml'), 'utf8')}\n${options.extraPolicy ?? ''}\n`);
  return {
    root,
    policyFile,
    storeFile: path.join(root, '.toolgate', 'toolgate.db'),
    read(relative) {
      try {
        return readFileSync(path.join(root, relative), 'utf8');
      } catch {
        return undefined;
      }
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

export type TokenName = 'alice' | 'bob' | 'carol' | 'admin';

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface RequestOptions {
  method?: string;
  token?: TokenName | string | null;
  json?: unknown;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface ApiServer {
  project: ApiProject;
  server: RunningToolgateServer;
  url: string;
  /** alice and bob are submitters, carol an approver, admin the server's own token. */
  tokens: Record<TokenName, string>;
  request(pathname: string, options?: RequestOptions): Promise<ApiResponse>;
  /** `POST /runs` as `token` (alice by default); asserts nothing. */
  startRun(body: Record<string, unknown>, token?: TokenName): Promise<ApiResponse>;
  /** `POST /runs/:id/approve` as `token` (carol by default). */
  approve(runId: string, body: Record<string, unknown>, token?: TokenName): Promise<ApiResponse>;
  /** `GET /runs/:id` as admin. */
  run(runId: string): Promise<any>;
  /** Polls `GET /runs/:id` until its status is one of `statuses`; throws with the last view after `timeoutMs`. */
  waitForStatus(runId: string, statuses: string | string[], timeoutMs?: number): Promise<any>;
  /** The run's stored events (`GET /runs/:id/events` read until `until` holds of the frames so far). */
  events(runId: string, until: (frames: SseFrame[]) => boolean, options?: { token?: TokenName; lastEventId?: number; timeoutMs?: number }): Promise<SseFrame[]>;
  /** Opens `GET <pathname>` (an SSE route) as `token` (admin by default). */
  stream(pathname: string, options?: { token?: TokenName; lastEventId?: number }): Promise<EventStream>;
  close(): Promise<void>;
}

/** One frame as the SSE stream sends it. */
export interface SseFrame {
  id: number;
  type: string;
  data: Record<string, any>;
}

/**
 * Starts the server on `project` (created when absent) with the scripted
 * model `script` (a fixture name) and tokens alice, bob (submitters) and
 * carol (approver). Restarting on the same project reuses its store, secret
 * and tokens (pass `tokens` from the first server).
 */
export async function startApiServer(options: { script: string; project?: ApiProject; extraPolicy?: string; tokens?: Record<TokenName, string>; models?: string[] }): Promise<ApiServer> {
  const project = options.project ?? createApiProject({ ...(options.extraPolicy === undefined ? {} : { extraPolicy: options.extraPolicy }) });
  const server = await startToolgateServer({
    policyFile: project.policyFile,
    storeFile: project.storeFile,
    port: 0,
    model: scriptModel(options.script),
    env: {},
    logger: silentLogger(),
    cwd: project.root,
  });
  const tokens = options.tokens ?? {
    alice: await createApiToken({ store: server.store, name: 'alice', role: 'submitter' }),
    bob: await createApiToken({ store: server.store, name: 'bob', role: 'submitter' }),
    carol: await createApiToken({ store: server.store, name: 'carol', role: 'approver' }),
    admin: server.adminToken,
  };
  const tokenFor = (token: TokenName | string | null | undefined): string | undefined => (token === null || token === undefined ? undefined : ((tokens as Record<string, string>)[token] ?? token));

  async function request(pathname: string, request: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = {};
    const token = tokenFor(request.token === undefined ? 'admin' : request.token);
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    let body: string | Uint8Array | undefined = request.body;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, request.headers);
    const response = await fetch(`${server.url}${pathname}`, { method: request.method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  async function run(runId: string): Promise<any> {
    const response = await request(`/runs/${runId}`);
    if (response.status !== 200) throw new Error(`GET /runs/${runId}: ${response.status} ${response.text}`);
    return response.json;
  }

  return {
    project,
    server,
    url: server.url,
    tokens,
    request,
    startRun: (body, token = 'alice') => request('/runs', { token, json: body }),
    approve: (runId, body, token = 'carol') => request(`/runs/${runId}/approve`, { token, json: body }),
    run,
    async waitForStatus(runId, statuses, timeoutMs = 10_000) {
      const wanted = Array.isArray(statuses) ? statuses : [statuses];
      const deadline = Date.now() + timeoutMs;
      let view: any;
      for (;;) {
        view = await run(runId);
        if (wanted.includes(view.status)) return view;
        if (Date.now() > deadline) throw new Error(`run ${runId} did not reach ${wanted.join(' or ')} within ${timeoutMs} ms: ${JSON.stringify(view)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    events: (runId, until, eventOptions = {}) =>
      readEventStream({
        url: `${server.url}/runs/${runId}/events`,
        token: tokenFor(eventOptions.token ?? 'admin')!,
        until,
        ...(eventOptions.lastEventId === undefined ? {} : { lastEventId: eventOptions.lastEventId }),
        timeoutMs: eventOptions.timeoutMs ?? 10_000,
      }),
    stream: (pathname, streamOptions = {}) =>
      openEventStream({ url: `${server.url}${pathname}`, token: tokenFor(streamOptions.token ?? 'admin')!, ...(streamOptions.lastEventId === undefined ? {} : { lastEventId: streamOptions.lastEventId }) }),
    async close() {
      await server.close();
    },
  };
}

/** An open SSE connection: the frames so far, the raw text, and a way to wait for more. */
export interface EventStream {
  status: number;
  frames: SseFrame[];
  /** Everything received, heartbeats included. */
  raw(): string;
  /** Resolves with the frames so far once `until` holds of them; rejects after `timeoutMs` or when the stream ends first. */
  waitFor(until: (frames: SseFrame[]) => boolean, timeoutMs?: number): Promise<SseFrame[]>;
  close(): void;
}

/**
 * Opens an SSE stream and parses `id:`/`data:` frames as they arrive;
 * resolves once the response headers are in (a non-200 answer rejects with
 * its status and body).
 */
export async function openEventStream(options: { url: string; token: string; lastEventId?: number }): Promise<EventStream> {
  const controller = new AbortController();
  const response = await fetch(options.url, {
    headers: { authorization: `Bearer ${options.token}`, accept: 'text/event-stream', ...(options.lastEventId === undefined ? {} : { 'last-event-id': String(options.lastEventId) }) },
    signal: controller.signal,
  });
  if (response.status !== 200) {
    const text = await response.text();
    throw Object.assign(new Error(`${options.url}: ${response.status} ${text}`), { status: response.status, body: text });
  }
  const frames: SseFrame[] = [];
  let raw = '';
  let buffer = '';
  let ended: Error | undefined;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  void (async () => {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        raw += chunk.value;
        buffer += chunk.value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: number | undefined;
          let data: string | undefined;
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) id = Number(line.slice(4));
            else if (line.startsWith('data: ')) data = line.slice(6);
          }
          if (data === undefined) continue; // a heartbeat comment
          const parsed = JSON.parse(data) as { type: string; data: Record<string, unknown> };
          frames.push({ id: id ?? Number.NaN, type: parsed.type, data: parsed.data });
        }
        wake();
      }
      ended = new Error('the event stream ended');
    } catch (error) {
      ended = error as Error;
    }
    wake();
  })();
  return {
    status: response.status,
    frames,
    raw: () => raw,
    waitFor(until, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (until(frames)) {
            finish();
            resolve([...frames]);
          } else if (ended !== undefined) {
            finish();
            reject(new Error(`${ended.message} before the test saw what it waited for; frames: ${JSON.stringify(frames.map((frame) => frame.type))}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for SSE frames; frames: ${JSON.stringify(frames.map((frame) => frame.type))}`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () => controller.abort(),
  };
}

/** Reads an SSE stream until `until` holds of the frames read so far, then closes it. */
export async function readEventStream(options: { url: string; token: string; until: (frames: SseFrame[]) => boolean; lastEventId?: number; timeoutMs: number }): Promise<SseFrame[]> {
  const stream = await openEventStream(options);
  try {
    return await stream.waitFor(options.until, options.timeoutMs);
  } finally {
    stream.close();
  }
}

/** The audit log's entries of the project (`.toolgate/audit.jsonl`). */
export function auditEntries(project: ApiProject): Array<Record<string, any>> {
  const text = project.read('.toolgate/audit.jsonl') ?? '';
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** Polls `check` until it returns true; throws `what` after `timeoutMs`. */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * `serve` starts a server for the current test; every server it started is
 * closed, and its project removed, after each test (`servers` lists them).
 *
 * @example
 * const { serve } = serveForEachTest();
 * const api = await serve({ script: 'write-note.yaml' });
 */
export function serveForEachTest(): { serve: (options: Parameters<typeof startApiServer>[0]) => Promise<ApiServer>; servers: ApiServer[] } {
  const servers: ApiServer[] = [];
  afterEach(async () => {
    for (const api of servers.splice(0)) {
      await api.close();
      api.project.remove();
    }
  });
  return {
    servers,
    async serve(options) {
      const api = await startApiServer(options);
      servers.push(api);
      return api;
    },
  };
}
