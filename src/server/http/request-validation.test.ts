import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../run-service.ts';
import { send, startTestServer, type TestServer } from './test-server.ts';

let server: TestServer;
let runId: string;

beforeAll(async () => {
  server = await startTestServer({ maxBodyBytes: 4096 });
  runId = (await send(server, { method: 'POST', path: '/runs', token: server.tokens.alice, json: { input: 'task' } })).json.run_id as string;
});
afterAll(async () => {
  await server.close();
});

const post = (path: string, options: { json?: unknown; body?: string | Buffer; headers?: Record<string, string>; token?: string }) =>
  send(server, { method: 'POST', path, token: options.token ?? server.tokens.dave, ...options });

describe('request bodies', () => {
  it('malformed JSON: 400 naming the problem', async () => {
    const response = await post('/runs', { body: '{"input": "x",', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatch(/^malformed JSON in request body: /);
  });

  it('an empty body, bytes that are not UTF-8, a body that is not an object: 400 saying which', async () => {
    const json = { 'content-type': 'application/json' };
    expect((await post('/runs', { body: '', headers: json })).json.error).toBe('request body is empty: send a JSON object');
    expect((await post('/runs', { body: Buffer.from([0x7b, 0xff, 0x7d]), headers: json })).json.error).toBe('request body is not valid UTF-8');
    for (const [body, got] of [['[1]', 'an array'], ['"x"', 'the string "x"'], ['null', 'null'], ['3', 'the number 3']]) {
      const response = await post('/runs', { body, headers: json });
      expect(response.status).toBe(400);
      expect(response.json.error).toBe(`request body must be a JSON object, got ${got}`);
    }
  });

  it('wrong types: 400 naming the field and what was expected', async () => {
    const response = await post('/runs', { json: { input: 42 } });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: 'field "input": expected a string, got the number 42', field: 'input', expected: 'string' });
    const mode = await post('/runs', { json: { input: 'x', mode: 'yolo' } });
    expect(mode.json.error).toBe('field "mode": expected one of "interactive", "approve_all", "strict", "auto_deny", "daemon", got the string "yolo"');
    const missing = await post('/runs', { json: {} });
    expect(missing.json.error).toBe('missing field "input": expected a string');
    const scope = await post(`/runs/${runId}/approve`, { json: { approved: 'yes', scope: 'forever' } });
    expect(scope.status).toBe(400);
    expect(scope.json.error).toBe('field "approved": expected a boolean, got the string "yes"; field "scope": expected one of "once", "session", "always", got the string "forever"');
  });

  it('unknown fields: 400 naming them, before any other problem', async () => {
    const response = await post('/runs', { json: { input: 1, prompt: 'x', temperature: 2 } });
    expect(response.status).toBe(400);
    expect(response.json.error).toBe('unknown fields "prompt", "temperature"; field "input": expected a string, got the number 42'.replace('42', '1'));
    expect(response.json.field).toBe('prompt');
    const approve = await post(`/runs/${runId}/approve`, { json: { approved: true, approve_all: true } });
    expect(approve.json.error).toBe('unknown field "approve_all"');
  });

  it('seed 004: a decision without approved is 400 Missing required field: approved', async () => {
    const response = await post(`/runs/${runId}/approve`, { json: { reason: 'test' } });
    expect(response.status).toBe(400);
    expect(response.json.error).toBe('Missing required field: approved');
  });

  it('a body over the limit: 413, by Content-Length or by counting a chunked body', async () => {
    const big = JSON.stringify({ input: 'x'.repeat(5000) });
    const declared = await post('/runs', { body: big, headers: { 'content-type': 'application/json' } });
    expect(declared.status).toBe(413);
    expect(declared.json.error).toBe('request body is larger than the limit of 4096 bytes');
    const chunked = await post('/runs', { body: big, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
    expect(chunked.status).toBe(413);
    const calls = server.service.calls.filter((call) => call.method === 'startRun' && JSON.stringify(call.args).includes('xxxx'));
    expect(calls).toEqual([]);
  });

  it('a POST without Content-Type: application/json: 415', async () => {
    for (const headers of [{}, { 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }] as Array<Record<string, string>>) {
      const response = await post('/runs', { body: '{"input":"x"}', headers });
      expect(response.status).toBe(415);
      expect(response.json.error).toMatch(/^request body must be JSON: send Content-Type: application\/json/);
    }
    const approve = await post(`/runs/${runId}/approve`, { body: '{"approved":true}', headers: { 'content-type': 'text/plain' } });
    expect(approve.status).toBe(415);
    const charset = await post('/runs', { body: '{"input":"x"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(charset.status).toBe(201);
  });

  it('a cancel needs no body, and takes no fields', async () => {
    const run = (await post('/runs', { json: { input: 'y' } })).json.run_id as string;
    expect((await post(`/runs/${run}/cancel`, { json: { force: true } })).json.error).toBe('unknown field "force"');
    const cancelled = await post(`/runs/${run}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toEqual({ status: 'cancelled', message: 'run cancelled' });
  });
});

describe('queries', () => {
  it('GET /runs checks status, limit and before', async () => {
    const get = (query: string) => send(server, { path: `/runs${query}`, token: server.tokens.dave });
    expect((await get('?status=done')).json.error).toBe('query parameter "status": expected one of "running", "paused_checkpoint", "completed", "cancelled", "failed", got the string "done"');
    expect((await get('?limit=10001')).json.error).toBe('query parameter "limit": expected at most 10000, got the string "10001"');
    expect((await get('?limit=0')).json.error).toBe('query parameter "limit": expected at least 1, got the string "0"');
    expect((await get('?limit=ten')).json.error).toBe('query parameter "limit": expected a whole number, got the string "ten"');
    expect((await get('?limit=1&limit=2')).json.error).toBe('query parameter "limit" given 2 times: give it once');
    expect((await get('?sort=asc')).json.error).toBe('unknown query parameter "sort"');
    expect((await get('?status=running&limit=10000')).status).toBe(200);
  });

  it('routes without parameters refuse any', async () => {
    const response = await send(server, { path: `/runs/${runId}?verbose=1`, token: server.tokens.dave });
    expect(response.status).toBe(400);
    expect(response.json.error).toBe('unknown query parameter "verbose"');
  });
});

describe('routes and errors', () => {
  it('an unknown route: 404 naming it', async () => {
    const response = await send(server, { path: '/x', token: server.tokens.dave });
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ error: 'no route GET /x' });
    expect((await send(server, { method: 'POST', path: '/runs/a/b/c', token: server.tokens.dave })).json).toEqual({ error: 'no route POST /runs/a/b/c' });
  });

  it('a wrong method on a known path: 405 with Allow', async () => {
    const response = await send(server, { method: 'PUT', path: `/runs/${runId}`, token: server.tokens.dave });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
    expect(response.json.error).toBe(`method PUT not allowed on /runs/${runId}: use GET, HEAD`);
    const approve = await send(server, { method: 'GET', path: `/runs/${runId}/approve`, token: server.tokens.dave });
    expect(approve.status).toBe(405);
    expect(approve.headers.allow).toBe('POST');
  });

  it('an ApiError from the service: its status and {error, ...details}', async () => {
    const response = await post(`/runs/${runId}/approve`, { json: { approved: true } });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: 'run is not paused for approval, current status: running', current_status: 'running' });
    server.service.failNext('listRuns', new ApiError(409, 'busy', { retry_after: 1, error: 'not this' }));
    const conflict = await send(server, { path: '/runs', token: server.tokens.dave });
    expect(conflict.status).toBe(409);
    expect(conflict.json).toEqual({ error: 'busy', retry_after: 1 });
  });

  it('any other error: 500 internal error, logged with its stack, never sent', async () => {
    const error = new Error('database exploded at /secret/path');
    server.service.failNext('getRun', error);
    const response = await send(server, { path: `/runs/${runId}`, token: server.tokens.dave });
    expect(response.status).toBe(500);
    expect(response.json).toEqual({ error: 'internal error' });
    expect(response.text).not.toContain('exploded');
    const logged = server.logs.find((line) => line.msg === 'internal error');
    expect(JSON.stringify(logged)).toContain('database exploded');
    expect(JSON.stringify(logged)).toContain('request-validation.test.ts');
  });
});
