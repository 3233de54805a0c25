/**
 * `toolgate serve` end to end, the event streams: seed 004's wire form
 * (`id:` and `data: {"type", "data"}`) for a real run from start to
 * completion, a reconnect with Last-Event-ID that gets exactly what it
 * missed, and `GET /events` across runs (every event names its run, a
 * submitter sees only its own).
 */
import { describe, expect, it } from 'vitest';
import { APPROVAL_SCHEMA } from '../src/server/runs/run-events.ts';
import { type SseFrame, serveForEachTest } from './server-api-harness.ts';

const FINISHED = ['completed', 'cancelled', 'failed'];
const { serve } = serveForEachTest();

const has = (type: string) => (frames: SseFrame[]) => frames.some((frame) => frame.type === type);

describe('GET /runs/:id/events', () => {
  it('streams the run from its start in seed 004\'s form: checkpoint_required, run_paused, then run_resumed, the tool\'s result and run_completed', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const started = await api.startRun({ input: 'Write the note' });
    const runId = started.json.run_id as string;
    // Opened as soon as the run exists: without Last-Event-ID it replays from the start, then follows live.
    const stream = await api.stream(`/runs/${runId}/events`, { token: 'alice' });
    try {
      const pausedFrames = await stream.waitFor(has('run_paused'));
      expect(pausedFrames.map((frame) => frame.type)).toEqual(['run_started', 'text', 'tool_call', 'checkpoint_required', 'run_paused']);
      const checkpoint = pausedFrames[3]!.data;
      expect(checkpoint).toMatchObject({
        tool_call_id: 'tg_1_1',
        tool_name: 'write_file',
        approval_required: true,
        approval_schema: APPROVAL_SCHEMA,
        group_id: null,
        run_id: runId,
      });
      expect(JSON.parse(checkpoint.tool_arguments)).toEqual({ path: 'ws/note.txt', content: 'first draft\n' });
      expect(checkpoint.prompt).toBe(`Do you approve executing 'write_file'? ${checkpoint.description}`);
      expect(checkpoint.reason).toContain('ws/note.txt');
      expect(checkpoint.presentation.tool).toBe('write_file');
      expect(pausedFrames[4]!.data).toMatchObject({ reason: 'tool_approval_required', status: 'paused_checkpoint', tool_name: 'write_file', waiting: ['tg_1_1'] });

      expect((await api.approve(runId, { approved: true })).status).toBe(200);
      const frames = await stream.waitFor(has('run_completed'));
      expect(frames.slice(5).map((frame) => frame.type)).toEqual(['approval_decided', 'run_resumed', 'tool_result', 'text', 'run_completed']);
      expect(frames[5]!.data).toMatchObject({ tool_call_id: 'tg_1_1', approved: true, decided_by: 'carol', timed_out: false });
      expect(frames[6]!.data).toMatchObject({ reason: 'tool_approved', status: 'running' });
      expect(frames[7]!.data).toMatchObject({ tool_call_id: 'tg_1_1', outcome: 'ran', output: { path: 'ws/note.txt', created: true } });
      expect(frames[9]!.data).toMatchObject({ status: 'completed', text: 'The note is written.' });
      // Every frame has an id, increasing; every data names the run.
      const ids = frames.map((frame) => frame.id);
      expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
      expect(frames.every((frame) => frame.data.run_id === runId)).toBe(true);
      // The raw wire: `id: N` then `data: {"type":...,"data":...}`.
      expect(stream.raw()).toMatch(/^id: \d+\ndata: \{"type":"run_started","data":\{/);
    } finally {
      stream.close();
    }
  });

  it('a reconnect with Last-Event-ID gets exactly the events it missed, none twice', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const started = await api.startRun({ input: 'Write the note' });
    const runId = started.json.run_id as string;
    const before = await api.events(runId, has('run_paused'));
    const lastSeen = before.at(-1)!.id;

    // Missed while disconnected: the decision, the resume, the result, the end.
    expect((await api.approve(runId, { approved: false, reason: 'too early' })).status).toBe(200);
    await api.waitForStatus(runId, FINISHED);
    const missed = await api.events(runId, has('run_completed'), { lastEventId: lastSeen });
    expect(missed[0]!.id).toBeGreaterThan(lastSeen);
    expect(missed.map((frame) => frame.type)).toEqual(['approval_decided', 'run_resumed', 'tool_result', 'text', 'run_completed']);
    expect(missed[2]!.data).toMatchObject({ outcome: 'denied', reason: expect.stringContaining('too early') });
    const all = await api.events(runId, has('run_completed'));
    expect(all.map((frame) => frame.id)).toEqual([...before, ...missed].map((frame) => frame.id));

    // ?last_event_id= stands in for the header; a bad header is a 400 naming it.
    const viaQuery = await api.request(`/runs/${runId}/events?last_event_id=abc`);
    expect(viaQuery.status).toBe(400);
    expect(viaQuery.json.field).toBe('last_event_id');
    const badHeader = await api.request(`/runs/${runId}/events`, { headers: { 'last-event-id': 'yesterday' } });
    expect(badHeader.status).toBe(400);
    expect(badHeader.json.field).toBe('Last-Event-ID');
  });

  it('a paused run\'s stream stays open and delivers the decision when it comes', async () => {
    const api = await serve({ script: 'two-writes.yaml' });
    const started = await api.startRun({ input: 'Write both files' });
    const runId = started.json.run_id as string;
    await api.waitForStatus(runId, 'paused_checkpoint');
    const stream = await api.stream(`/runs/${runId}/events`);
    try {
      const paused = await stream.waitFor(has('run_paused'));
      expect(paused.filter((frame) => frame.type === 'checkpoint_required').map((frame) => frame.data.tool_call_id)).toEqual(['tg_1_1', 'tg_1_2']);
      const groups = new Set(paused.filter((frame) => frame.type === 'checkpoint_required').map((frame) => frame.data.group_id));
      expect(groups.size).toBe(1);
      expect([...groups][0]).toEqual(expect.any(String));
      await api.approve(runId, { approved: true, tool_call_id: 'tg_1_1' });
      const one = await stream.waitFor((frames) => frames.filter((frame) => frame.type === 'approval_decided').length === 1);
      expect(one.at(-1)!.data).toMatchObject({ tool_call_id: 'tg_1_1', approved: true });
      expect(one.some((frame) => frame.type === 'run_resumed')).toBe(false);
      await api.approve(runId, { approved: true, tool_call_id: 'tg_1_2' });
      const done = await stream.waitFor(has('run_completed'));
      // The two calls run concurrently: their results come in either order.
      expect(done.filter((frame) => frame.type === 'tool_result').map((frame) => frame.data.tool_call_id).sort()).toEqual(['tg_1_1', 'tg_1_2']);
    } finally {
      stream.close();
    }
  });
});

describe('GET /events', () => {
  it('streams every run the caller may see, each event naming its run; a submitter sees only its own', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const adminStream = await api.stream('/events');
    const aliceStream = await api.stream('/events', { token: 'alice' });
    const bobStream = await api.stream('/events', { token: 'bob' });
    try {
      const alices = (await api.startRun({ input: 'alice writes' }, 'alice')).json.run_id as string;
      await api.waitForStatus(alices, 'paused_checkpoint');
      const bobs = (await api.startRun({ input: 'bob writes' }, 'bob')).json.run_id as string;
      await api.waitForStatus(bobs, 'paused_checkpoint');

      const pausedBoth = (frames: SseFrame[]) => frames.filter((frame) => frame.type === 'run_paused').length === 2;
      const admin = await adminStream.waitFor(pausedBoth);
      expect(new Set(admin.map((frame) => frame.data.run_id))).toEqual(new Set([alices, bobs]));
      expect(admin.every((frame) => typeof frame.data.run_id === 'string')).toBe(true);

      const alice = await aliceStream.waitFor(has('run_paused'));
      const bob = await bobStream.waitFor(has('run_paused'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(new Set(aliceStream.frames.map((frame) => frame.data.run_id))).toEqual(new Set([alices]));
      expect(new Set(bobStream.frames.map((frame) => frame.data.run_id))).toEqual(new Set([bobs]));
      expect(alice[0]!.type).toBe('run_started');
      expect(bob[0]!.type).toBe('run_started');
      expect(aliceStream.raw()).not.toContain(bobs);
      expect(bobStream.raw()).not.toContain(alices);
    } finally {
      adminStream.close();
      aliceStream.close();
      bobStream.close();
    }
  });

  it('without Last-Event-ID it starts from now: earlier runs\' events are not replayed', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const earlier = (await api.startRun({ input: 'earlier' })).json.run_id as string;
    await api.waitForStatus(earlier, 'paused_checkpoint');
    const stream = await api.stream('/events');
    try {
      const later = (await api.startRun({ input: 'later' })).json.run_id as string;
      const frames = await stream.waitFor(has('run_paused'));
      expect(frames[0]!.type).toBe('run_started');
      expect(frames.every((frame) => frame.data.run_id === later)).toBe(true);
    } finally {
      stream.close();
    }
  });
});
