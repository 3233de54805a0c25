/**
 * `toolgate serve` end to end, a run's life: started over HTTP, paused on a
 * write with seed 004's checkpoint fields, approved (the file is written),
 * denied with a reason the scripted model adapts to, denied and stopped,
 * cancelled, listed in pages, counted in /metrics, and still paused and
 * approvable after a restart on the same SQLite store.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPROVAL_SCHEMA } from '../src/server/runs/run-events.ts';
import { createApiProject, startApiServer, type ApiServer, serveForEachTest } from './server-api-harness.ts';

const FINISHED = ['completed', 'cancelled', 'failed'];
const { serve } = serveForEachTest();

async function pausedRun(api: ApiServer, body: Record<string, unknown> = { input: 'Write the note' }): Promise<{ runId: string; view: any }> {
  const started = await api.startRun(body);
  expect(started.status).toBe(201);
  const runId = started.json.run_id as string;
  const view = await api.waitForStatus(runId, ['paused_checkpoint', ...FINISHED]);
  expect(view.status).toBe('paused_checkpoint');
  return { runId, view };
}

describe('POST /runs and the pause', () => {
  it('answers 201 {run_id, status: "running"} and the run pauses on the write with seed 004 checkpoint fields', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const started = await api.startRun({ input: 'Write the note', mode: 'interactive', session_id: 'user-session-123' });
    expect(started.status).toBe(201);
    expect(started.json).toEqual({ run_id: expect.stringMatching(/^run_/), status: 'running' });

    const view = await api.waitForStatus(started.json.run_id, ['paused_checkpoint', ...FINISHED]);
    expect(view).toMatchObject({ run_id: started.json.run_id, status: 'paused_checkpoint', owner: 'alice', session_id: 'user-session-123', mode: 'interactive', decisions: [] });
    expect(view.pending_approvals).toHaveLength(1);
    const pending = view.pending_approvals[0];
    expect(pending).toMatchObject({
      run_id: started.json.run_id,
      tool_call_id: 'tg_1_1',
      tool_name: 'write_file',
      approval_required: true,
      approval_schema: APPROVAL_SCHEMA,
      group_id: null,
    });
    expect(pending.reason).toContain('ws/note.txt');
    expect(pending.prompt).toMatch(/^Do you approve executing 'write_file'\? /);
    expect(typeof pending.tool_arguments).toBe('string');
    expect(JSON.parse(pending.tool_arguments)).toEqual({ path: 'ws/note.txt', content: 'first draft\n' });
    expect(pending.approval_schema.required).toEqual(['approved']);
    expect(pending.approval_schema.properties.approved.type).toBe('boolean');
    // toolgate's presentation: the new file's content, shown in full.
    expect(pending.presentation).toMatchObject({ tool: 'write_file', required: true });
    expect(JSON.stringify(pending.presentation.blocks)).toContain('first draft');
    // Which rule of the policy asked, and where it is written (issue 39).
    expect(pending.presentation.asked_by).toMatch(/^fs\.zones\[\d+\]\.approval\.write \(zone \w+: ask\) — .*\.ya?ml:\d+$/);
    // Nothing was written while the run waits.
    expect(api.project.read('ws/note.txt')).toBeUndefined();

    // The inbox lists the same call for an approver.
    const inbox = await api.request('/approvals', { token: 'carol' });
    expect(inbox.status).toBe(200);
    expect(inbox.json.approvals).toEqual([pending]);
  });

  it('approve → seed 004 answer, the file is written, the run completes with the history naming the approver', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const { runId } = await pausedRun(api);
    const approved = await api.approve(runId, { approved: true, reason: 'User confirmed the note is fine' });
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({ status: 'approved', message: 'Tool execution approved and resumed', decided: ['tg_1_1'], waiting: [], run_status: 'running' });

    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.status).toBe('completed');
    expect(done.text).toBe('The note is written.');
    expect(api.project.read('ws/note.txt')).toBe('first draft\n');
    expect(done.pending_approvals).toEqual([]);
    expect(done.decisions).toEqual([
      { tool_call_id: 'tg_1_1', tool_name: 'write_file', approved: true, reason: 'User confirmed the note is fine', scope: 'once', decided_by: 'carol', decided_at: expect.any(String), via: 'api' },
    ]);
    // Nothing is left in the inbox.
    expect((await api.request('/approvals', { token: 'carol' })).json.approvals).toEqual([]);
  });

  it('records the admin as the approver when the admin token decides', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const { runId } = await pausedRun(api);
    expect((await api.approve(runId, { approved: true }, 'admin')).status).toBe(200);
    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.decisions.map((decision: any) => decision.decided_by)).toEqual(['admin']);
  });

  it('deny with a reason → the run continues, the model reads the reason and adapts, nothing is written', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const { runId } = await pausedRun(api);
    const denied = await api.approve(runId, { approved: false, reason: 'too early: wait for the review' });
    expect(denied.status).toBe(200);
    expect(denied.json).toMatchObject({ status: 'denied', decided: ['tg_1_1'], waiting: [], run_status: 'running' });
    expect(denied.json.message).not.toBe('Tool execution denied and run cancelled');

    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.status).toBe('completed');
    expect(done.text).toBe('You said it is too early, so I wrote nothing and will ask again tomorrow.');
    expect(api.project.read('ws/note.txt')).toBeUndefined();
    expect(done.decisions).toMatchObject([{ approved: false, reason: 'too early: wait for the review', decided_by: 'carol' }]);
  });

  it('a denial without the reason the script looks for takes the other branch (the model really reads it)', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const { runId } = await pausedRun(api);
    expect((await api.approve(runId, { approved: false, reason: 'not this file' })).status).toBe(200);
    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.text).toBe('The write was denied; I wrote nothing.');
  });

  it('on_deny: stop → seed 004 "denied and run cancelled", status cancelled, a run_cancelled event', async () => {
    const api = await serve({ script: 'write-note.yaml', extraPolicy: 'on_deny: stop\n' });
    const { runId } = await pausedRun(api);
    const denied = await api.approve(runId, { approved: false, reason: 'Too risky' });
    expect(denied.status).toBe(200);
    expect(denied.json).toMatchObject({ status: 'denied', message: 'Tool execution denied and run cancelled', run_status: 'cancelled' });
    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.status).toBe('cancelled');
    expect(done.text).toBeNull();
    expect(api.project.read('ws/note.txt')).toBeUndefined();
    const frames = await api.events(runId, (seen) => seen.some((frame) => frame.type === 'run_cancelled'));
    expect(frames.find((frame) => frame.type === 'run_cancelled')!.data).toMatchObject({ reason: 'tool_execution_denied', status: 'cancelled', tool_name: 'write_file' });
    expect(frames.some((frame) => frame.type === 'run_completed')).toBe(false);
    // A finished run is no longer paused for approval.
    const again = await api.approve(runId, { approved: true });
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('run is not paused for approval, current status: cancelled');
  });

  it('a denial with stop: true cancels the run even under on_deny: continue', async () => {
    const api = await serve({ script: 'write-note.yaml', extraPolicy: 'on_deny: continue\n' });
    const { runId } = await pausedRun(api);
    const denied = await api.approve(runId, { approved: false, reason: 'stop everything', stop: true });
    expect(denied.json).toMatchObject({ status: 'denied', message: 'Tool execution denied and run cancelled', run_status: 'cancelled' });
    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.status).toBe('cancelled');
    const frames = await api.events(runId, (seen) => seen.some((frame) => frame.type === 'run_cancelled'));
    expect(frames.at(-1)!.type).toBe('run_cancelled');
    expect(api.project.read('ws/note.txt')).toBeUndefined();
  });

  it('stop on an approval is refused with 400 naming stop, and nothing is decided', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const { runId } = await pausedRun(api);
    const refused = await api.approve(runId, { approved: true, stop: true });
    expect(refused.status).toBe(400);
    expect(refused.json.field).toBe('stop');
    const view = await api.run(runId);
    expect(view.status).toBe('paused_checkpoint');
    expect(view.decisions).toEqual([]);
  });
});

describe('POST /runs/:id/cancel', () => {
  it('cancels a paused run: status cancelled, no pending approvals, run_cancelled, the call never runs', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const { runId } = await pausedRun(api);
    const cancelled = await api.request(`/runs/${runId}/cancel`, { token: 'alice', method: 'POST' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toEqual({ status: 'cancelled', message: 'Run cancelled' });

    const view = await api.run(runId);
    expect(view.status).toBe('cancelled');
    expect(view.pending_approvals).toEqual([]);
    expect((await api.request('/approvals', { token: 'carol' })).json.approvals).toEqual([]);
    const frames = await api.events(runId, (seen) => seen.some((frame) => frame.type === 'run_cancelled'));
    expect(frames.find((frame) => frame.type === 'run_cancelled')!.data).toMatchObject({ reason: 'cancelled_by_request', status: 'cancelled', by: 'alice' });

    const late = await api.approve(runId, { approved: true });
    expect(late.status).toBe(400);
    expect(late.json.error).toBe('run is not paused for approval, current status: cancelled');
    const twice = await api.request(`/runs/${runId}/cancel`, { token: 'alice', method: 'POST' });
    expect(twice.status).toBe(400);
    expect(twice.json.error).toContain('cancelled');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(api.project.read('ws/note.txt')).toBeUndefined();
  });
});

describe('GET /runs', () => {
  it('pages the caller\'s runs with ?limit and the next cursor, filters by ?status, and shows a submitter only its own', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) ids.push((await pausedRun(api, { input: `note ${index}` })).runId);
    const { runId: bobs } = await (async () => {
      const started = await api.startRun({ input: 'bob writes' }, 'bob');
      await api.waitForStatus(started.json.run_id, 'paused_checkpoint');
      return { runId: started.json.run_id as string };
    })();

    const seen: string[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const response = await api.request(`/runs?limit=2${before === null ? '' : `&before=${encodeURIComponent(before)}`}`, { token: 'alice' });
      expect(response.status).toBe(200);
      expect(response.json.runs.length).toBeLessThanOrEqual(2);
      for (const run of response.json.runs) {
        expect(run).toMatchObject({ owner: 'alice', status: 'paused_checkpoint', pending: 1 });
        seen.push(run.run_id);
      }
      before = response.json.next;
      pages++;
    } while (before !== null && pages < 10);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(5);
    expect([...seen].sort()).toEqual([...ids].sort());
    expect(seen).not.toContain(bobs);

    // The whole list in one page by default; bob sees only his run; the admin sees all six.
    expect((await api.request('/runs', { token: 'alice' })).json).toMatchObject({ next: null });
    expect((await api.request('/runs', { token: 'bob' })).json.runs.map((run: any) => run.run_id)).toEqual([bobs]);
    expect((await api.request('/runs')).json.runs).toHaveLength(6);

    // ?status=: complete one of alice's runs.
    expect((await api.approve(ids[2]!, { approved: true })).status).toBe(200);
    await api.waitForStatus(ids[2]!, 'completed');
    const completed = await api.request('/runs?status=completed', { token: 'alice' });
    expect(completed.json.runs.map((run: any) => run.run_id)).toEqual([ids[2]]);
    expect(completed.json.runs[0]).toMatchObject({ status: 'completed', pending: 0, text: 'The note is written.' });
    const paused = await api.request('/runs?status=paused_checkpoint', { token: 'alice' });
    expect(paused.json.runs.map((run: any) => run.run_id).sort()).toEqual(ids.filter((id) => id !== ids[2]).sort());

    // Bad queries name the parameter.
    const badStatus = await api.request('/runs?status=sleeping', { token: 'alice' });
    expect(badStatus.status).toBe(400);
    expect(badStatus.json.field).toBe('status');
    const badLimit = await api.request('/runs?limit=0', { token: 'alice' });
    expect(badLimit.status).toBe(400);
    expect(badLimit.json.field).toBe('limit');
  });
});

describe('GET /metrics', () => {
  it('counts asks, denials and paused runs in Prometheus text for the admin only', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const first = await pausedRun(api);
    await pausedRun(api);
    const metrics = await api.request('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    for (const name of ['tool_consent_required_total', 'tool_authorization_failures_total', 'dangerous_operations_detected_total', 'toolgate_paused_runs']) {
      expect(metrics.text).toContain(`# TYPE ${name}`);
    }
    expect(metrics.text).toMatch(/^tool_consent_required_total\{tool="write_file"\} 2$/m);
    expect(metrics.text).toMatch(/^toolgate_paused_runs 2$/m);
    // Counted at this very scrape, not the one before.
    expect(metrics.text).toMatch(/^toolgate_runs\{status="paused_checkpoint"\} 2$/m);

    expect((await api.approve(first.runId, { approved: false, reason: 'no' })).status).toBe(200);
    await api.waitForStatus(first.runId, 'completed');
    const after = await api.request('/metrics');
    expect(after.text).toMatch(/^toolgate_paused_runs 1$/m);
    expect(after.text).toMatch(/^toolgate_runs\{status="paused_checkpoint"\} 1$/m);
    expect(after.text).toMatch(/^toolgate_runs\{status="completed"\} 1$/m);
    expect(after.text).toMatch(/^tool_authorization_failures_total\{tool="write_file",decision="denied",source="person"\} 1$/m);

    for (const token of ['alice', 'carol'] as const) expect((await api.request('/metrics', { token })).status).toBe(403);
    expect((await api.request('/metrics', { token: null })).status).toBe(401);
  });
});

describe('restart', () => {
  it('a run paused when the server stops is still paused after a restart on the same store, and approvable to completion', async () => {
    const project = createApiProject();
    const first = await startApiServer({ script: 'write-note.yaml', project });
    let second: ApiServer | undefined;
    try {
      const { runId, view } = await pausedRun(first);
      await first.close();
      // The server is gone: nothing answers on its port.
      await expect(fetch(`${first.url}/healthz`)).rejects.toThrow();

      second = await startApiServer({ script: 'write-note.yaml', project, tokens: first.tokens });
      const after = await second.run(runId);
      expect(after.status).toBe('paused_checkpoint');
      expect(after.pending_approvals).toEqual(view.pending_approvals);
      // The tokens live in the store: carol still decides.
      const approved = await second.approve(runId, { approved: true });
      expect(approved.json).toMatchObject({ status: 'approved', message: 'Tool execution approved and resumed' });
      const done = await second.waitForStatus(runId, FINISHED);
      expect(done.status).toBe('completed');
      expect(done.text).toBe('The note is written.');
      expect(project.read('ws/note.txt')).toBe('first draft\n');
      expect(done.decisions).toMatchObject([{ decided_by: 'carol', approved: true }]);
    } finally {
      await second?.close();
      await first.close().catch(() => {});
      project.remove();
    }
  });

  it('a run paused under one server secret fails, saying why, when a server with another secret resumes it; nothing runs', async () => {
    const project = createApiProject();
    const first = await startApiServer({ script: 'write-note.yaml', project });
    let second: ApiServer | undefined;
    try {
      const { runId } = await pausedRun(first);
      await first.close();
      // The secret that sealed the run is lost (a new machine, a deleted file).
      writeFileSync(path.join(project.root, '.toolgate', 'server-secret'), 'another-secret-of-at-least-32-bytes-0123456789\n');
      second = await startApiServer({ script: 'write-note.yaml', project, tokens: first.tokens });
      expect((await second.approve(runId, { approved: true })).status).toBe(200);
      const done = await second.waitForStatus(runId, FINISHED);
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(/its stored state could not be opened: .*does not open with this server's secret/);
      expect(project.read('ws/note.txt')).toBeUndefined();
    } finally {
      await second?.close();
      await first.close().catch(() => {});
      project.remove();
    }
  });
});
