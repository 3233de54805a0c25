import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from './security-headers.ts';
import { send, startTestServer, type TestServer } from './test-server.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    web: new Map([
      ['/', { body: '<!doctype html><title>inbox</title><script src="/assets/app.js"></script>', contentType: 'text/html; charset=utf-8' }],
      ['/assets/app.js', { body: Buffer.from('console.log(1)'), contentType: 'text/javascript; charset=utf-8' }],
    ]),
  });
});
afterAll(async () => {
  await server.close();
});

const lastCall = () => server.service.calls.at(-1)!;

describe('routes map one to one onto the RunService', () => {
  it('POST /runs: 201 {run_id, status: running}, owned by the caller', async () => {
    const response = await send(server, { method: 'POST', path: '/runs', token: server.tokens.alice, json: { input: 'Delete all temporary files in /tmp', mode: 'interactive', session_id: 'user-session-123' } });
    expect(response.status).toBe(201);
    expect(response.json).toEqual({ run_id: expect.any(String), status: 'running' });
    expect(lastCall()).toEqual({ method: 'startRun', principal: { name: 'alice', role: 'submitter' }, args: [{ input: 'Delete all temporary files in /tmp', mode: 'interactive', session_id: 'user-session-123' }] });
    const run = await send(server, { path: `/runs/${response.json.run_id as string}`, token: server.tokens.alice });
    expect(run.json).toMatchObject({ run_id: response.json.run_id, status: 'running', owner: 'alice', session_id: 'user-session-123' });
  });

  it('GET /runs: the caller\'s runs, newest first, paged with ?limit and ?before, filtered by ?status', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await send(server, { method: 'POST', path: '/runs', token: server.tokens.bob, json: { input: `t${index}` } })).json.run_id as string);
    const first = await send(server, { path: '/runs?limit=2', token: server.tokens.bob });
    expect(lastCall().args).toEqual([{ limit: 2 }]);
    expect((first.json.runs as Array<{ run_id: string }>).map((run) => run.run_id)).toEqual([ids[2], ids[1]]);
    const second = await send(server, { path: `/runs?limit=2&before=${encodeURIComponent(first.json.next as string)}`, token: server.tokens.bob });
    expect((second.json.runs as Array<{ run_id: string }>).map((run) => run.run_id)).toEqual([ids[0]]);
    expect(second.json.next).toBeNull();
    await send(server, { path: '/runs?status=paused_checkpoint', token: server.tokens.bob });
    expect(lastCall().args).toEqual([{ limit: 1000, status: 'paused_checkpoint' }]);
  });

  it('POST /runs/:id/approve: seed 004\'s answers', async () => {
    const runId = (await send(server, { method: 'POST', path: '/runs', token: server.tokens.alice, json: { input: 'x' } })).json.run_id as string;
    await server.service.pause(runId);
    const pending = await send(server, { path: '/approvals', token: server.tokens.carol });
    expect(pending.json.approvals).toContainEqual(expect.objectContaining({ run_id: runId, tool_call_id: 'call-1', tool_name: 'write_file' }));
    const approved = await send(server, { method: 'POST', path: `/runs/${runId}/approve`, token: server.tokens.carol, json: { approved: true, reason: 'User confirmed deletion is safe', scope: 'once' } });
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({ status: 'approved', message: 'Tool execution approved and resumed' });
    expect(lastCall()).toEqual({ method: 'approve', principal: { name: 'carol', role: 'approver' }, args: [runId, { approved: true, reason: 'User confirmed deletion is safe', scope: 'once' }] });
    const again = await send(server, { method: 'POST', path: `/runs/${runId}/approve`, token: server.tokens.carol, json: { approved: true } });
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('run is not paused for approval, current status: running');
    const unknown = await send(server, { method: 'POST', path: '/runs/invalid-run/approve', token: server.tokens.carol, json: { approved: true } });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: 'run not found or not active' });
  });

  it('POST /runs/:id/cancel, DELETE /sessions/:session/chats/:chat and /sessions/:session, GET /metrics', async () => {
    const runId = (await send(server, { method: 'POST', path: '/runs', token: server.tokens.alice, json: { input: 'x' } })).json.run_id as string;
    expect((await send(server, { method: 'POST', path: `/runs/${runId}/cancel`, token: server.tokens.alice })).json).toEqual({ status: 'cancelled', message: 'run cancelled' });
    await server.store.remember({ key: 'k1', sessionId: 'user session', chatId: 'chat/1', decision: { approved: true } });
    const cleared = await send(server, { method: 'DELETE', path: `/sessions/${encodeURIComponent('user session')}/chats/${encodeURIComponent('chat/1')}`, token: server.tokens.admin });
    expect(cleared.status).toBe(200);
    expect(cleared.json).toEqual({ cleared: 1 });
    expect(lastCall().args).toEqual(['user session', 'chat/1']);
    // A run started without a chat_id remembers its decisions in no chat: the session route forgets those.
    await server.store.remember({ key: 'k2', sessionId: 'user session', chatId: null, decision: { approved: true } });
    expect((await send(server, { method: 'DELETE', path: `/sessions/${encodeURIComponent('user session')}/chats/null`, token: server.tokens.admin })).json).toEqual({ cleared: 0 });
    const noChat = await send(server, { method: 'DELETE', path: `/sessions/${encodeURIComponent('user session')}`, token: server.tokens.admin });
    expect(noChat.json).toEqual({ cleared: 1 });
    expect(lastCall().args).toEqual(['user session', null]);
    expect((await send(server, { method: 'DELETE', path: '/sessions/s1', token: server.tokens.alice })).status).toBe(403);
    const metrics = await send(server, { path: '/metrics', token: server.tokens.admin });
    expect(metrics.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(metrics.text).toContain('tool_consent_required_total 0');
  });

  it('HEAD is answered like GET, without a body', async () => {
    const response = await send(server, { method: 'HEAD', path: '/runs', token: server.tokens.alice });
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
  });
});

describe('headers', () => {
  it('API answers: no-store, nosniff, no referrer, the strict CSP, no CORS', async () => {
    for (const response of [await send(server, { path: '/runs', token: server.tokens.alice }), await send(server, { path: '/runs' }), await send(server, { path: '/nope', token: server.tokens.alice })]) {
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('the inbox: / and /login serve the page, /assets/* its files, without a token, under the CSP', async () => {
    for (const path of ['/', '/login']) {
      const page = await send(server, { path });
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('<title>inbox</title>');
      expect(page.headers['content-security-policy']).toBe("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
      expect(page.headers['x-content-type-options']).toBe('nosniff');
    }
    const script = await send(server, { path: '/assets/app.js' });
    expect(script.text).toBe('console.log(1)');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await send(server, { path: '/assets/missing.js' })).json).toEqual({ error: 'no route GET /assets/missing.js' });
  });
});
