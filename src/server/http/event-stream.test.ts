import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken } from '../tokens.ts';
import { EVENT_PAGE_SIZE } from './event-stream.ts';
import { eventually, openEventStream, send, startTestServer, type SseClient, type TestServer } from './test-server.ts';

let server: TestServer;
const open: SseClient[] = [];

beforeAll(async () => {
  server = await startTestServer({ heartbeatMs: 100 });
});
afterAll(async () => {
  for (const client of open) client.close();
  await server.close();
});

async function stream(request: Parameters<typeof openEventStream>[1]): Promise<SseClient> {
  const client = await openEventStream(server, request);
  open.push(client);
  return client;
}

async function newRun(token: string): Promise<string> {
  return (await send(server, { method: 'POST', path: '/runs', token, json: { input: 'task' } })).json.run_id as string;
}

describe('GET /runs/:id/events', () => {
  it('seed 004\'s wire form: id and data {type, data}, the run\'s events from its start', async () => {
    const runId = await newRun(server.tokens.alice);
    await server.service.pause(runId);
    const client = await stream({ path: `/runs/${runId}/events`, token: server.tokens.alice });
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(client.headers['cache-control']).toBe('no-store');
    const frames = await client.waitForFrames(3);
    expect(frames.map((frame) => frame.type)).toEqual(['run_started', 'checkpoint_required', 'run_paused']);
    expect(frames[1]!.data).toMatchObject({ tool_call_id: 'call-1', tool_name: 'write_file', approval_required: true });
    expect(frames[2]!.data).toEqual({ reason: 'tool_approval_required', tool_name: 'write_file' });
    // Seed 004's two fields, and when the event happened.
    expect(client.raw()).toMatch(new RegExp(`^id: ${frames[0]!.id}\\ndata: \\{"type":"run_started","data":\\{"input":"task"\\},"at":"\\d{4}-\\d\\d-\\d\\dT[^"]+"\\}\\n\\n`));
    expect(frames[1]!.id).toBeGreaterThan(frames[0]!.id);
    // Live: a decision's event follows.
    await send(server, { method: 'POST', path: `/runs/${runId}/approve`, token: server.tokens.carol, json: { approved: true } });
    expect((await client.waitForFrames(4))[3]).toMatchObject({ type: 'run_resumed', data: { reason: 'tool_approved' } });
  });

  it('a reconnect with Last-Event-ID gets exactly what it missed, written while it was away', async () => {
    const runId = await newRun(server.tokens.alice);
    const first = await stream({ path: `/runs/${runId}/events`, token: server.tokens.alice });
    await server.service.addEvents(runId, [{ type: 'text', data: { n: 1 } }, { type: 'text', data: { n: 2 } }]);
    const seen = await first.waitForFrames(3);
    const subscribed = server.service.listenerCount();
    first.close();
    await eventually(() => server.service.listenerCount() === subscribed - 1, 'the first stream unsubscribed');
    await server.service.addEvents(runId, [{ type: 'text', data: { n: 3 } }, { type: 'text', data: { n: 4 } }]);
    const second = await stream({ path: `/runs/${runId}/events`, token: server.tokens.alice, lastEventId: seen.at(-1)!.id });
    await server.service.addEvents(runId, [{ type: 'text', data: { n: 5 } }]);
    const frames = await second.waitForFrames(3);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(second.frames.map((frame) => frame.data.n)).toEqual([3, 4, 5]);
    expect(frames[0]!.id).toBeGreaterThan(seen.at(-1)!.id);
    // ?last_event_id= for clients that cannot set headers; the header wins over it.
    const byQuery = await stream({ path: `/runs/${runId}/events?last_event_id=${frames[1]!.id}`, token: server.tokens.alice });
    expect((await byQuery.waitForFrames(1)).map((frame) => frame.data.n)).toEqual([5]);
    const both = await stream({ path: `/runs/${runId}/events?last_event_id=0`, token: server.tokens.alice, lastEventId: frames[0]!.id });
    expect((await both.waitForFrames(2)).map((frame) => frame.data.n)).toEqual([4, 5]);
  });

  it('a backlog longer than a page, with events written during the replay: each sent once, in order', async () => {
    const runId = await newRun(server.tokens.bob);
    const total = EVENT_PAGE_SIZE * 2 + 37;
    await server.service.addEvents(runId, Array.from({ length: total }, (_, n) => ({ type: 'text', data: { n } })));
    const client = await stream({ path: `/runs/${runId}/events`, token: server.tokens.bob });
    const live = Array.from({ length: 20 }, (_, index) => server.service.addEvents(runId, [{ type: 'text', data: { n: total + index } }]));
    await Promise.all(live);
    const frames = await client.waitForFrames(total + 21, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const numbers = client.frames.slice(1).map((frame) => frame.data.n);
    expect(numbers).toEqual(Array.from({ length: total + 20 }, (_, n) => n));
    const ids = frames.map((frame) => frame.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('a run the caller may not see: 404 JSON, no stream', async () => {
    const runId = await newRun(server.tokens.alice);
    const response = await send(server, { path: `/runs/${runId}/events`, token: server.tokens.bob });
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ error: 'run not found or not active' });
  });

  it('a Last-Event-ID that is not an event id: 400', async () => {
    const runId = await newRun(server.tokens.alice);
    const response = await send(server, { path: `/runs/${runId}/events`, token: server.tokens.alice, headers: { 'last-event-id': 'abc' } });
    expect(response.status).toBe(400);
    expect(response.json.error).toBe('Last-Event-ID must be the id of an event (a whole number), got "abc"');
    expect((await send(server, { path: `/runs/${runId}/events?last_event_id=-1`, token: server.tokens.alice })).status).toBe(400);
  });
});

describe('GET /events', () => {
  it('without Last-Event-ID: only new events, of the runs the caller may see, each naming its run', async () => {
    const aliceRun = await newRun(server.tokens.alice);
    const bobRun = await newRun(server.tokens.bob);
    await server.service.addEvents(aliceRun, [{ type: 'text', data: { old: true } }]);
    const alice = await stream({ path: '/events', token: server.tokens.alice });
    const approver = await stream({ path: '/events', token: server.tokens.carol });
    await server.service.addEvents(bobRun, [{ type: 'text', data: { who: 'bob' } }]);
    await server.service.addEvents(aliceRun, [{ type: 'text', data: { who: 'alice' } }]);
    expect((await alice.waitForFrames(1)).map((frame) => frame.data)).toEqual([{ who: 'alice', run_id: aliceRun }]);
    expect((await approver.waitForFrames(2)).map((frame) => frame.data)).toEqual([{ who: 'bob', run_id: bobRun }, { who: 'alice', run_id: aliceRun }]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(alice.frames).toHaveLength(1);
  });

  it('with Last-Event-ID: exactly the visible events after it', async () => {
    const runId = await newRun(server.tokens.alice);
    const [a, b] = await server.service.addEvents(runId, [{ type: 'text', data: { n: 'a' } }, { type: 'text', data: { n: 'b' } }]);
    const client = await stream({ path: '/events', token: server.tokens.alice, lastEventId: a!.id });
    expect((await client.waitForFrames(1))[0]).toEqual({ id: b!.id, type: 'text', data: { n: 'b', run_id: runId } });
  });
});

describe('connection life', () => {
  it('sends : ping heartbeats while idle', async () => {
    const client = await stream({ path: '/events', token: server.tokens.carol });
    await client.waitForComments(2, 2000);
    expect(client.comments.slice(0, 2)).toEqual(['ping', 'ping']);
    expect(client.raw()).toMatch(/^: ping\n\n/);
  });

  it('a client that goes away is unsubscribed, its timer cleared, and the server keeps serving', async () => {
    for (const client of open.splice(0)) client.close();
    await eventually(() => server.service.listenerCount() === 0, 'every stream unsubscribed');
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const idleTimers = timers();
    const clients = await Promise.all(Array.from({ length: 5 }, () => openEventStream(server, { path: '/events', token: server.tokens.carol })));
    await eventually(() => server.service.listenerCount() === 5, 'five streams subscribed');
    expect(timers()).toBeGreaterThanOrEqual(idleTimers + 5);
    for (const client of clients) client.close();
    await eventually(() => server.service.listenerCount() === 0, 'the five unsubscribed');
    await eventually(() => timers() <= idleTimers, 'their heartbeat timers cleared');
    const reads = server.service.calls.filter((call) => call.method === 'readEvents').length;
    const runId = await newRun(server.tokens.alice);
    await server.service.addEvents(runId, [{ type: 'text' }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // No stream is left to read (or to ping).
    expect(server.service.calls.filter((call) => call.method === 'readEvents').length).toBe(reads);
    expect((await send(server, { path: '/healthz' })).status).toBe(200);
  });
});

describe('a token revoked while its stream is open', () => {
  it('ends the stream before the next event reaches it, and an idle one at its next heartbeat', async () => {
    const token = await createApiToken({ store: server.store, name: 'revoked-watcher', role: 'approver' });
    const watcher = await stream({ path: '/events', token });
    const runId = await newRun(server.tokens.alice);
    await server.service.addEvents(runId, [{ type: 'text', data: { n: 'before' } }]);
    await watcher.waitForFrames(1);
    const seen = watcher.frames.length;
    expect(await server.store.revokeToken('revoked-watcher')).toBe(true);
    await server.service.addEvents(runId, [{ type: 'text', data: { n: 'after' } }]);
    await watcher.waitForEnd();
    expect(watcher.frames.slice(seen).map((frame) => frame.data.n)).not.toContain('after');

    const idleToken = await createApiToken({ store: server.store, name: 'revoked-idle', role: 'approver' });
    const idle = await stream({ path: '/events', token: idleToken });
    await idle.waitForComments(1);
    await server.store.revokeToken('revoked-idle');
    await idle.waitForEnd();
  });
});
