/**
 * `toolgate serve` end to end, the unhappy paths: seed 004's exact error
 * texts, every bad input a 4xx whose JSON names the problem (malformed
 * JSON, wrong types, unknown fields, oversized and non-JSON bodies), and
 * who may see and decide which run (404 for another submitter's run, roles,
 * tokens, hosts and origins), on a real run that waits for approval.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken } from '../src/server/tokens.ts';
import { startApiServer, type ApiServer } from './server-api-harness.ts';

const FINISHED = ['completed', 'cancelled', 'failed'];
const NOT_FOUND = { error: 'run not found or not active' };
let api: ApiServer;
/** alice's run, paused on its write. */
let paused: string;

beforeAll(async () => {
  api = await startApiServer({ script: 'write-note.yaml' });
  const started = await api.startRun({ input: 'Write the note' });
  paused = started.json.run_id;
  await api.waitForStatus(paused, 'paused_checkpoint');
});

afterAll(async () => {
  await api.close();
  api.project.remove();
});

/**
 * A POST over node:http that reads the answer even when the server answers
 * before taking the whole body (fetch reports that as a failure to send).
 */
function rawPost(pathname: string, options: { token: string; chunks: string[]; contentLength: boolean }): Promise<{ status: number; text: string }> {
  const url = new URL(api.url);
  const headers: Record<string, string | number> = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' };
  if (options.contentLength) headers['content-length'] = Buffer.byteLength(options.chunks.join(''));
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, method: 'POST', path: pathname, headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      response.on('error', reject);
    });
    // The server may close its side once it has answered: that is not the test's failure.
    request.on('error', () => {});
    void (async () => {
      for (const chunk of options.chunks) {
        if (request.destroyed) return;
        if (!request.write(chunk)) await new Promise((resolve) => request.once('drain', resolve).once('close', resolve));
      }
      request.end();
    })();
    setTimeout(() => reject(new Error(`no answer to POST ${pathname} within 10 s`)), 10_000).unref();
  });
}

/** Asserts the paused run was left as it was: still paused, nothing decided, nothing written. */
async function expectUntouched(): Promise<void> {
  const view = await api.run(paused);
  expect(view.status).toBe('paused_checkpoint');
  expect(view.decisions).toEqual([]);
  expect(view.pending_approvals).toHaveLength(1);
  expect(api.project.read('ws/note.txt')).toBeUndefined();
}

describe('seed 004 error texts', () => {
  it('400 Missing required field: approved', async () => {
    const response = await api.approve(paused, { reason: 'test' });
    expect(response.status).toBe(400);
    expect(response.json.error).toBe('Missing required field: approved');
    await expectUntouched();
  });

  it('404 run not found or not active, for an unknown run on every run route', async () => {
    expect(await api.approve('invalid-run', { approved: true })).toMatchObject({ status: 404, json: NOT_FOUND });
    expect(await api.request('/runs/invalid-run')).toMatchObject({ status: 404, json: NOT_FOUND });
    expect(await api.request('/runs/invalid-run/cancel', { method: 'POST' })).toMatchObject({ status: 404, json: NOT_FOUND });
    expect(await api.request('/runs/invalid-run/events')).toMatchObject({ status: 404, json: NOT_FOUND });
  });

  it('404 run not found or not active, for another submitter\'s run: bob can neither see, stream nor cancel alice\'s run', async () => {
    expect(await api.request(`/runs/${paused}`, { token: 'bob' })).toMatchObject({ status: 404, json: NOT_FOUND });
    expect(await api.request(`/runs/${paused}/events`, { token: 'bob' })).toMatchObject({ status: 404, json: NOT_FOUND });
    expect(await api.request(`/runs/${paused}/cancel`, { token: 'bob', method: 'POST' })).toMatchObject({ status: 404, json: NOT_FOUND });
    expect((await api.request('/runs', { token: 'bob' })).json.runs).toEqual([]);
    await expectUntouched();
  });

  it('400 run is not paused for approval, current status: completed (and cancelled)', async () => {
    const started = await api.startRun({ input: 'Write the note', mode: 'strict' });
    const done = await api.waitForStatus(started.json.run_id, FINISHED);
    expect(done.status).toBe('completed');
    const response = await api.approve(started.json.run_id, { approved: true });
    expect(response.status).toBe(400);
    expect(response.json.error).toBe('run is not paused for approval, current status: completed');
  });

  it('400 run is not paused for approval, current status: running (a run busy in the shell)', async () => {
    const slow = await startApiServer({ script: 'slow-then-write.yaml' });
    try {
      const started = await slow.startRun({ input: 'Nap, then write' });
      const runId = started.json.run_id as string;
      // The run is in `sleep 2` (allowed by the policy): running, not paused.
      await slow.events(runId, (frames) => frames.some((frame) => frame.type === 'tool_call'));
      const response = await slow.approve(runId, { approved: true });
      expect(response.status).toBe(400);
      expect(response.json.error).toBe('run is not paused for approval, current status: running');
      // It then pauses on the write, and is approvable.
      await slow.waitForStatus(runId, 'paused_checkpoint');
      expect((await slow.approve(runId, { approved: true })).json.message).toBe('Tool execution approved and resumed');
      expect((await slow.waitForStatus(runId, FINISHED)).text).toBe('The note is written.');
      expect(slow.project.read('ws/note.txt')).toBe('after the nap\n');
    } finally {
      await slow.close();
      slow.project.remove();
    }
  });
});

describe('bad input: a 4xx whose JSON says what is wrong', () => {
  it('malformed JSON → 400 naming it', async () => {
    for (const [route, token] of [[`/runs/${paused}/approve`, 'carol'], ['/runs', 'alice']] as const) {
      const response = await api.request(route, { token, body: '{"approved": tru', headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(400);
      expect(response.json.error).toMatch(/^malformed JSON in request body/);
    }
    await expectUntouched();
  });

  it('wrong types → 400 naming the field and the type expected', async () => {
    const approved = await api.approve(paused, { approved: 'yes' });
    expect(approved.status).toBe(400);
    expect(approved.json).toMatchObject({ field: 'approved', expected: 'boolean' });
    expect(approved.json.error).toContain('"approved"');
    const reason = await api.approve(paused, { approved: false, reason: 42 });
    expect(reason.status).toBe(400);
    expect(reason.json.field).toBe('reason');
    const scope = await api.approve(paused, { approved: true, scope: 'forever' });
    expect(scope.status).toBe(400);
    expect(scope.json.field).toBe('scope');
    expect(scope.json.error).toContain('"once"');
    const input = await api.startRun({ input: 5 });
    expect(input.status).toBe(400);
    expect(input.json).toMatchObject({ field: 'input', expected: 'string' });
    const mode = await api.startRun({ input: 'x', mode: 'yolo' });
    expect(mode.status).toBe(400);
    expect(mode.json.field).toBe('mode');
    const notObject = await api.approve(paused, [true] as unknown as Record<string, unknown>);
    expect(notObject.status).toBe(400);
    expect(notObject.json.error).toContain('JSON object');
    await expectUntouched();
  });

  it('unknown fields → 400 naming them; nothing is started or decided', async () => {
    const approve = await api.approve(paused, { approved: true, approve_everything: true });
    expect(approve.status).toBe(400);
    expect(approve.json.field).toBe('approve_everything');
    expect(approve.json.error).toContain('"approve_everything"');
    const before = (await api.request('/runs')).json.runs.length;
    const start = await api.startRun({ input: 'x', model_file: '/etc/passwd' });
    expect(start.status).toBe(400);
    expect(start.json.error).toContain('"model_file"');
    expect((await api.request('/runs')).json.runs.length).toBe(before);
    const query = await api.request(`/runs/${paused}?verbose=1`);
    expect(query.status).toBe(400);
    expect(query.json.field).toBe('verbose');
    await expectUntouched();
  });

  it('a model the server does not offer (a file path of the client\'s choosing) → 400 naming model', async () => {
    const response = await api.startRun({ input: 'x', model: 'script:/etc/passwd' });
    expect(response.status).toBe(400);
    expect(response.json.field).toBe('model');
  });

  it('oversized body → 413, with or without a Content-Length to trust', async () => {
    const huge = JSON.stringify({ approved: false, reason: 'x'.repeat(1024 * 1024 + 10) });
    const declared = await rawPost(`/runs/${paused}/approve`, { token: api.tokens.carol, chunks: [huge], contentLength: true });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text).error).toContain('larger than the limit');
    // Streamed without a length (chunked): counted as it arrives.
    const piece = 'x'.repeat(64 * 1024);
    const streamed = await rawPost('/runs', { token: api.tokens.alice, chunks: ['{"input":"', ...Array.from({ length: 20 }, () => piece), '"}'], contentLength: false });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.text).error).toContain('larger than the limit');
    await expectUntouched();
  });

  it('wrong content type → 415', async () => {
    const response = await api.request(`/runs/${paused}/approve`, { token: 'carol', body: JSON.stringify({ approved: true }), headers: { 'content-type': 'text/plain' } });
    expect(response.status).toBe(415);
    expect(response.json.error).toContain('application/json');
    const form = await api.request('/runs', { token: 'alice', body: 'input=hello', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    await expectUntouched();
  });

  it('unknown routes → 404 naming the route; a known path with another method → 405', async () => {
    const unknown = await api.request('/runs/x/approve-all', { method: 'POST', json: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toBe('no route POST /runs/x/approve-all');
    const method = await api.request(`/runs/${paused}/approve`, { method: 'GET' });
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toContain('POST');
  });
});

describe('who may do what', () => {
  it('every endpoint but /healthz needs a valid token', async () => {
    expect((await api.request('/healthz', { token: null })).json).toEqual({ status: 'ok' });
    for (const [route, method] of [['/runs', 'GET'], [`/runs/${paused}`, 'GET'], ['/approvals', 'GET'], [`/runs/${paused}/events`, 'GET'], ['/events', 'GET']] as const) {
      expect((await api.request(route, { token: null, method })).status).toBe(401);
      expect((await api.request(route, { token: 'tg_not-a-real-token', method })).status).toBe(401);
    }
    expect((await api.request(`/runs/${paused}/approve`, { token: null, json: { approved: true } })).status).toBe(401);
    await expectUntouched();
  });

  it('a submitter cannot decide, not even its own run (403); an approver cannot start runs', async () => {
    const own = await api.approve(paused, { approved: true }, 'alice');
    expect(own.status).toBe(403);
    expect(own.json.error).toContain('approver');
    expect((await api.approve(paused, { approved: true }, 'bob')).status).toBe(403);
    expect((await api.request('/approvals', { token: 'alice' })).status).toBe(403);
    expect((await api.startRun({ input: 'x' }, 'carol')).status).toBe(403);
    await expectUntouched();
  });

  it('a revoked token stops working at once, on the running server', async () => {
    const token = await createApiToken({ store: api.server.store, name: 'erin', role: 'approver' });
    expect((await api.request(`/runs/${paused}`, { token })).status).toBe(200);
    await api.server.store.revokeToken('erin');
    const refused = await api.approve(paused, { approved: true }, token as never);
    expect(refused.status).toBe(401);
    await expectUntouched();
  });

  it('a cross-origin request or a rebinding Host is refused before anything is decided', async () => {
    const crossOrigin = await api.request(`/runs/${paused}/approve`, { token: 'carol', json: { approved: true }, headers: { origin: 'http://evil.example' } });
    expect(crossOrigin.status).toBe(403);
    expect(crossOrigin.headers.get('access-control-allow-origin')).toBeNull();
    const crossSite = await api.request(`/runs/${paused}/approve`, { token: 'carol', json: { approved: true }, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    await expectUntouched();
  });
});
