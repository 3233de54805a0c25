import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setTracingEnabled } from '../tracing.ts';
import { send, startTestServer, type TestServer } from './test-server.ts';

const exporter = new InMemorySpanExporter();
let server: TestServer;

beforeAll(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  server = await startTestServer({ verbose: true });
});
afterAll(async () => {
  setTracingEnabled(false);
  await server.close();
});
beforeEach(() => {
  exporter.reset();
});

describe('request logs', () => {
  it('one JSON line per request: method, path, status, ms, principal', async () => {
    await send(server, { path: '/runs?limit=5', token: server.tokens.alice });
    await send(server, { path: '/runs', token: 'tg_wrong' });
    const requests = server.logs.filter((line) => line.msg === 'request');
    expect(requests.at(-2)).toMatchObject({ level: 'info', method: 'GET', path: '/runs', status: 200, principal: 'alice', ms: expect.any(Number) });
    expect(requests.at(-1)).toMatchObject({ method: 'GET', path: '/runs', status: 401, principal: null });
  });

  it('verbose_logging adds request bodies without secrets; no token ever reaches the log', async () => {
    const secret = 'hunter2-password';
    await send(server, { method: 'POST', path: '/runs', token: server.tokens.alice, json: { input: 'deploy', mode: 'strict' } });
    await send(server, { method: 'POST', path: '/runs', token: server.tokens.alice, json: { input: `use ${server.tokens.bob}`, reason: server.tokens.carol } });
    await send(server, { method: 'POST', path: '/runs', token: server.tokens.alice, json: { input: 'x', api_key: secret } });
    const requests = server.logs.filter((line) => line.msg === 'request' && line.method === 'POST');
    expect(requests.at(-3)!.body).toEqual({ input: 'deploy', mode: 'strict' });
    expect(requests.at(-2)!.body).toEqual({ input: 'use tg_[REDACTED]', reason: 'tg_[REDACTED]' });
    expect(requests.at(-1)).toMatchObject({ status: 400, body: { input: 'x', api_key: '[REDACTED]' } });
    const text = server.logText();
    expect(text).not.toContain(secret);
    for (const token of Object.values(server.tokens)) expect(text).not.toContain(token);
  });
});

describe('spans', () => {
  it('none while tracing is off', async () => {
    setTracingEnabled(false);
    await send(server, { path: '/healthz' });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('one per request while on, named after the route, with status and principal', async () => {
    setTracingEnabled(true);
    const runId = (await send(server, { method: 'POST', path: '/runs', token: server.tokens.alice, json: { input: 'x' } })).json.run_id as string;
    await send(server, { path: `/runs/${runId}`, token: server.tokens.alice });
    await send(server, { path: '/metrics', token: server.tokens.alice });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual(['POST /runs', 'GET /runs/:id', 'GET /metrics']);
    expect(spans[1]!.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.route': '/runs/:id', 'url.path': `/runs/${runId}`, 'http.response.status_code': 200, 'toolgate.principal': 'alice' });
    expect(spans[2]!.attributes['http.response.status_code']).toBe(403);
  });

  it('a request that fails inside is an error span', async () => {
    setTracingEnabled(true);
    server.service.failNext('listRuns', new Error('boom'));
    await send(server, { path: '/runs', token: server.tokens.alice });
    const [span] = exporter.getFinishedSpans();
    expect(span!.attributes['http.response.status_code']).toBe(500);
    expect(span!.status.code).toBe(2);
  });
});
