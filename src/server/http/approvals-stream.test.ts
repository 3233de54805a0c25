import http from 'node:http';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type PendingView } from '../run-service.ts';
import { createLogger } from '../log.ts';
import { approvalsStreamResponse } from './approvals-stream.ts';
import { startHttpServer, type RunningHttpServer } from './start-http-server.ts';
import { send, startTestServer, type TestServer } from './test-server.ts';

const view = (index: number, extra: Record<string, unknown> = {}): PendingView => ({ run_id: `run-${index}`, tool_call_id: `call-${index}`, tool_name: 'write_file', group_id: null, prompt: `écrire "${index}" \u2028`, ...extra });

/** Pages from a list (as the views' JSON texts), recording how many were read and whether the reader stopped early. */
function recordedPages(pages: PendingView[][], options: { failAt?: number } = {}) {
  const state = { read: 0, returned: false };
  async function* generate(): AsyncGenerator<string[]> {
    try {
      for (const [index, page] of pages.entries()) {
        if (index === options.failAt) throw new Error(`page ${index} could not be read`);
        state.read++;
        yield page.map((view) => JSON.stringify(view));
      }
    } finally {
      state.returned = true;
    }
  }
  return { pages: generate(), state };
}

/** A bare app serving whatever `respond` returns, over real HTTP. */
async function serve(respond: () => Promise<Response>): Promise<{ server: RunningHttpServer }> {
  const app = new Hono();
  app.get('/approvals', () => respond());
  app.onError((error) => Response.json({ error: error.message }, { status: error instanceof ApiError ? error.status : 500 }));
  const server = await startHttpServer({ app: app as never, host: '127.0.0.1', port: 0 });
  return { server };
}

function get(port: number): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/approvals', agent: false }, (incoming) => {
        let text = '';
        incoming.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, complete: incoming.complete }));
        incoming.on('error', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, complete: false }));
        incoming.on('aborted', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, complete: false }));
      })
      .on('error', reject);
  });
}

describe('approvalsStreamResponse', () => {
  const logLines: string[] = [];
  const logger = createLogger({ level: 'debug', verbose: false, write: (line) => logLines.push(line) });

  it('sends exactly the bytes of JSON.stringify({ approvals }), across pages, skipping empty ones', async () => {
    const pages = [[view(1), view(2, { presentation: { diff: '- a\n+ b' } })], [], [view(3)], []];
    const recorded = recordedPages(pages);
    const { server } = await serve(() => approvalsStreamResponse({ pages: recorded.pages, logger, principal: 'carol' }));
    try {
      const response = await get(server.port);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.text).toBe(JSON.stringify({ approvals: pages.flat() }));
      expect(recorded.state).toEqual({ read: 4, returned: true });
    } finally {
      await server.close();
    }
  });

  it('no pages, or only empty ones: {"approvals":[]}', async () => {
    for (const pages of [[], [[]], [[], []]]) {
      const { server } = await serve(() => approvalsStreamResponse({ pages: recordedPages(pages).pages, logger, principal: 'carol' }));
      try {
        const response = await get(server.port);
        expect(response.text).toBe('{"approvals":[]}');
        expect(JSON.parse(response.text)).toEqual({ approvals: [] });
      } finally {
        await server.close();
      }
    }
  });

  it('a first page that fails is the caller\'s error (its JSON status), not a 200', async () => {
    const recorded = recordedPages([[view(1)]], { failAt: 0 });
    await expect(approvalsStreamResponse({ pages: recorded.pages, logger, principal: 'carol' })).rejects.toThrow('page 0 could not be read');
    const { server } = await serve(async () => {
      async function* refuse(): AsyncGenerator<string[]> {
        throw new ApiError(403, 'not yours');
      }
      return approvalsStreamResponse({ pages: refuse(), logger, principal: 'carol' });
    });
    try {
      const response = await get(server.port);
      expect(response.status).toBe(403);
      expect(JSON.parse(response.text)).toEqual({ error: 'not yours' });
    } finally {
      await server.close();
    }
  });

  it('a later page that fails cuts the connection: the client never gets a well-formed partial list', async () => {
    logLines.length = 0;
    const big = Array.from({ length: 50 }, (_, index) => view(index, { padding: 'x'.repeat(2000) }));
    const recorded = recordedPages([big, big, big], { failAt: 2 });
    const { server } = await serve(() => approvalsStreamResponse({ pages: recorded.pages, logger, principal: 'carol' }));
    try {
      const response = await get(server.port);
      expect(response.status).toBe(200);
      expect(response.complete).toBe(false);
      expect(response.text.startsWith('{"approvals":[')).toBe(true);
      expect(() => JSON.parse(response.text)).toThrow();
      expect(recorded.state.returned).toBe(true);
      const logged = logLines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.level === 'error');
      expect(logged).toMatchObject({ msg: 'GET /approvals failed after the first page; the response is cut short', principal: 'carol', written: 100, error: 'Error: page 2 could not be read' });
    } finally {
      await server.close();
    }
  });

  it('reads pages only as fast as the client takes them, and stops reading when the client goes away', async () => {
    // 1,000 pages of ~100 KB (~100 MB) is more than the kernel's socket buffers can hold
    // (tcp_rmem/tcp_wmem max out at 32 MB + 4 MB here), so a reader that waits for the socket
    // must stop short of the end while the client is paused; one that does not reads them all.
    const totalPages = 1000;
    const page = Array.from({ length: 20 }, (_, index) => view(index, { padding: 'y'.repeat(5000) }));
    const recorded = recordedPages(Array.from({ length: totalPages }, () => page));
    const { server } = await serve(() => approvalsStreamResponse({ pages: recorded.pages, logger, principal: 'carol' }));
    try {
      const incoming = await new Promise<http.IncomingMessage>((resolve, reject) => http.get({ host: '127.0.0.1', port: server.port, path: '/approvals', agent: false }, resolve).on('error', reject));
      incoming.pause();
      // Wait until reading has stalled: the same count over 300 ms (or everything read, which fails below).
      let stalledAt = -1;
      for (let waited = 0, unchangedFor = 0; waited < 10_000 && unchangedFor < 300; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        unchangedFor = recorded.state.read === stalledAt ? unchangedFor + 50 : 0;
        stalledAt = recorded.state.read;
      }
      expect(stalledAt).toBeGreaterThan(0);
      expect(stalledAt).toBeLessThan(totalPages);
      incoming.destroy();
      for (let waited = 0; waited < 2000 && !recorded.state.returned; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(recorded.state.returned).toBe(true);
      expect(recorded.state.read).toBeLessThan(totalPages);
    } finally {
      await server.close();
    }
  });
});

describe('GET /approvals through the app', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('streams the service\'s pages when it has them, and answers pendingApprovals in one piece when it does not: the same JSON', async () => {
    for (let index = 0; index < 3; index++) {
      const runId = (await send(server, { method: 'POST', path: '/runs', token: server.tokens.alice, json: { input: `t${index}` } })).json.run_id as string;
      await server.service.pause(runId);
    }
    const streamed = await send(server, { path: '/approvals', token: server.tokens.carol });
    expect(server.service.calls.at(-1)).toEqual({ method: 'pendingApprovalPages', principal: { name: 'carol', role: 'approver' }, args: [500] });
    expect(streamed.status).toBe(200);
    expect(streamed.headers['transfer-encoding']).toBe('chunked');
    expect(streamed.headers['content-type']).toBe('application/json');
    expect(streamed.headers['cache-control']).toBe('no-store');
    expect(streamed.headers['x-content-type-options']).toBe('nosniff');
    expect((streamed.json.approvals as unknown[]).length).toBe(3);

    const pages = server.service.pendingApprovalPages;
    delete (server.service as { pendingApprovalPages?: unknown }).pendingApprovalPages;
    try {
      const whole = await send(server, { path: '/approvals', token: server.tokens.carol });
      expect(server.service.calls.at(-1)?.method).toBe('pendingApprovals');
      expect(whole.headers['content-length']).toBe(String(Buffer.byteLength(whole.text)));
      expect(whole.text).toBe(streamed.text);
    } finally {
      server.service.pendingApprovalPages = pages;
    }
  });

  it('a service that fails at once: its JSON error, and a submitter is still refused before any page is read', async () => {
    server.service.failNext('pendingApprovalPages', new ApiError(409, 'the inbox moved'));
    const failed = await send(server, { path: '/approvals', token: server.tokens.carol });
    expect(failed.status).toBe(409);
    expect(failed.json).toEqual({ error: 'the inbox moved' });
    const before = server.service.calls.length;
    const refused = await send(server, { path: '/approvals', token: server.tokens.alice });
    expect(refused.status).toBe(403);
    expect(server.service.calls.length).toBe(before);
    const withQuery = await send(server, { path: '/approvals?limit=5', token: server.tokens.carol });
    expect(withQuery.status).toBe(400);
    expect(server.service.calls.length).toBe(before);
  });
});
