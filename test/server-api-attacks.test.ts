/**
 * `toolgate serve` under attack: requests a client crafts to make the server
 * do something no person allowed, or to knock it over for everyone else.
 * Each test is an attack that once worked (or answered 500), on a real
 * server with a real run waiting for approval.
 */
import { describe, expect, it } from 'vitest';
import { MAX_STREAMS_PER_PRINCIPAL } from '../src/server/http/event-routes.ts';
import { MAX_JSON_DEPTH } from '../src/server/http/read-json-body.ts';
import { serveForEachTest, type ApiServer, type EventStream } from './server-api-harness.ts';

const { serve } = serveForEachTest();

/** A server with alice's run paused on its write of ws/note.txt. */
async function pausedRun(): Promise<{ api: ApiServer; runId: string }> {
  const api = await serve({ script: 'write-note.yaml' });
  const runId = (await api.startRun({ input: 'Write the note' })).json.run_id as string;
  await api.waitForStatus(runId, 'paused_checkpoint');
  return { api, runId };
}

const asJson = { 'content-type': 'application/json' };

describe('deeply nested request bodies', () => {
  it('edited_args nested thousands of levels deep are a 400 naming the limit, not a 500; nothing is decided', async () => {
    const { api, runId } = await pausedRun();
    for (const depth of [3_000, 200_000]) {
      const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const body = `{"approved":true,"edited_args":{"path":"ws/note.txt","content":"x","extra":${deep}}}`;
      const response = await api.request(`/runs/${runId}/approve`, { token: 'carol', body, headers: asJson });
      expect(response.status).toBe(400);
      expect(response.json).toEqual({ error: `request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`, limit: MAX_JSON_DEPTH });
    }
    const view = await api.run(runId);
    expect(view.status).toBe('paused_checkpoint');
    expect(view.decisions).toEqual([]);
    expect(api.project.read('ws/note.txt')).toBeUndefined();
  });

  it('brackets inside strings do not count, and a body as deep as the limit is read', async () => {
    const { api, runId } = await pausedRun();
    // At the limit: the body parses and the schema names what is wrong with it.
    const atLimit = `{"approved":true,"edited_args":{"path":"ws/note.txt","content":"x","extra":${'['.repeat(MAX_JSON_DEPTH - 2)}${']'.repeat(MAX_JSON_DEPTH - 2)}}}`;
    const deepButAllowed = await api.request(`/runs/${runId}/approve`, { token: 'carol', body: atLimit, headers: asJson });
    expect(deepButAllowed.status).toBe(400);
    expect(deepButAllowed.json.error).toMatch(/^edited_args do not fit write_file's schema: /);
    const content = `${'[{'.repeat(5_000)}\\"`;
    const approved = await api.approve(runId, { approved: true, edited_args: { path: 'ws/note.txt', content } });
    expect(approved.status).toBe(200);
    await api.waitForStatus(runId, 'completed');
    expect(api.project.read('ws/note.txt')).toBe(content);
  });
});

describe('event streams held open', () => {
  it('one token cannot hold more than the limit of streams open (429); others still can, and a closed stream frees its place', async () => {
    const { api, runId } = await pausedRun();
    const streams: EventStream[] = [];
    try {
      for (let index = 0; index < MAX_STREAMS_PER_PRINCIPAL; index++) {
        streams.push(await api.stream(index % 2 === 0 ? '/events' : `/runs/${runId}/events`, { token: 'alice' }));
      }
      for (const pathname of ['/events', `/runs/${runId}/events`]) {
        const refused = await api.request(pathname, { token: 'alice' });
        expect(refused.status).toBe(429);
        expect(refused.json).toEqual({ error: `too many open event streams for token "alice": at most ${MAX_STREAMS_PER_PRINCIPAL} at once; close one first`, limit: MAX_STREAMS_PER_PRINCIPAL });
      }
      // A refused or unauthorized attempt takes no place: bob and carol are not affected.
      streams.push(await api.stream('/events', { token: 'bob' }));
      streams.push(await api.stream(`/runs/${runId}/events`, { token: 'carol' }));
      // Streams still open keep working.
      await api.approve(runId, { approved: true });
      await streams[1]!.waitFor((frames) => frames.some((frame) => frame.type === 'run_completed'));
      streams.shift()!.close();
      const deadline = Date.now() + 5_000;
      for (;;) {
        const again = await api.stream('/events', { token: 'alice' }).catch((error: { status?: number }) => error);
        if (!('status' in again) || again.status === 200) {
          streams.push(again as EventStream);
          break;
        }
        expect(again.status).toBe(429);
        if (Date.now() > deadline) throw new Error('a closed stream never freed its place');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('HEAD on an event route answers its headers and leaves no stream open behind it', async () => {
    const { api, runId } = await pausedRun();
    for (let index = 0; index <= MAX_STREAMS_PER_PRINCIPAL; index++) {
      const head = await api.request(index % 2 === 0 ? '/events' : `/runs/${runId}/events`, { token: 'alice', method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    }
    // Still the service's 404 for a run the caller may not see.
    expect((await api.request(`/runs/${runId}/events`, { token: 'bob', method: 'HEAD' })).status).toBe(404);
    // Had each HEAD left a stream open, alice would be at the limit now.
    const stream = await api.stream(`/runs/${runId}/events`, { token: 'alice' });
    await stream.waitFor((frames) => frames.some((frame) => frame.type === 'checkpoint_required'));
    stream.close();
  });
});

describe('ids and cursors a client makes up', () => {
  it('a Last-Event-ID or ?last_event_id= past 2^53 is a 400 naming it, not a 500', async () => {
    const { api, runId } = await pausedRun();
    for (const pathname of ['/events', `/runs/${runId}/events`]) {
      const header = await api.request(pathname, { token: 'alice', headers: { 'last-event-id': '9999999999999999' } });
      expect(header.status).toBe(400);
      expect(header.json).toEqual({ error: 'Last-Event-ID must be the id of an event (a whole number), got "9999999999999999"', field: 'Last-Event-ID', expected: 'a whole number' });
      const query = await api.request(`${pathname}?last_event_id=9999999999999999`, { token: 'alice' });
      expect(query.status).toBe(400);
      expect(query.json.field).toBe('last_event_id');
      expect(query.json.error).toMatch(/^query parameter "last_event_id": expected at most 9007199254740991/);
    }
    // The largest safe id is still a valid place to resume from: nothing after it yet.
    const stream = await api.stream(`/runs/${runId}/events`, { token: 'alice', lastEventId: Number.MAX_SAFE_INTEGER });
    stream.close();
  });

  it('a made-up ?before= cursor is a 400 naming before, not a 500; a real one still pages', async () => {
    const { api } = await pausedRun();
    for (const before of ['x'.repeat(500), 'bm9wZQ', 'not a cursor!']) {
      const response = await api.request(`/runs?before=${encodeURIComponent(before)}`, { token: 'alice' });
      expect(response.status).toBe(400);
      expect(response.json).toEqual({ error: `query parameter "before": expected the next cursor of a previous page, got ${JSON.stringify(before.slice(0, 80))}`, field: 'before', expected: 'a cursor from next' });
    }
    await api.startRun({ input: 'Write the note again' });
    const first = await api.request('/runs?limit=1', { token: 'alice' });
    expect(first.json.runs).toHaveLength(1);
    const second = await api.request(`/runs?limit=1&before=${encodeURIComponent(first.json.next)}`, { token: 'alice' });
    expect(second.status).toBe(200);
    expect(second.json.runs).toHaveLength(1);
    expect(second.json.runs[0].run_id).not.toBe(first.json.runs[0].run_id);
  });
});
