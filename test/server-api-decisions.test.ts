/**
 * `toolgate serve` end to end, deciding: several calls waiting at once (by
 * tool_call_id, by group_id, concurrently), edited arguments, the run modes
 * (interactive, daemon with and without auto_approve_in_daemon, strict,
 * auto_deny, approve_all refused), and approvals that time out.
 */
import { describe, expect, it } from 'vitest';
import { auditEntries, type ApiServer, type SseFrame, serveForEachTest } from './server-api-harness.ts';

const FINISHED = ['completed', 'cancelled', 'failed'];
const { serve } = serveForEachTest();

async function startAndSettle(api: ApiServer, body: Record<string, unknown>): Promise<{ runId: string; view: any }> {
  const started = await api.startRun(body);
  expect(started.status).toBe(201);
  const runId = started.json.run_id as string;
  return { runId, view: await api.waitForStatus(runId, ['paused_checkpoint', ...FINISHED]) };
}

function allEvents(api: ApiServer, runId: string): Promise<SseFrame[]> {
  return api.events(runId, (frames) => frames.some((frame) => ['run_completed', 'run_cancelled', 'run_failed'].includes(frame.type)));
}

describe('several calls waiting at once', () => {
  it('needs tool_call_id to decide one of them, and says so without deciding anything', async () => {
    const api = await serve({ script: 'two-writes.yaml' });
    const { runId, view } = await startAndSettle(api, { input: 'Write both files' });
    expect(view.status).toBe('paused_checkpoint');
    expect(view.pending_approvals.map((pending: any) => pending.tool_call_id)).toEqual(['tg_1_1', 'tg_1_2']);

    const ambiguous = await api.approve(runId, { approved: true });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.json.error).toMatch(/^Missing required field: tool_call_id/);
    expect(ambiguous.json).toMatchObject({ field: 'tool_call_id', waiting: ['tg_1_1', 'tg_1_2'] });

    const unknown = await api.approve(runId, { approved: true, tool_call_id: 'tg_9_9' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.field).toBe('tool_call_id');
    expect(unknown.json.error).toContain('tg_9_9');

    const after = await api.run(runId);
    expect(after.status).toBe('paused_checkpoint');
    expect(after.decisions).toEqual([]);
    expect(after.pending_approvals).toHaveLength(2);
  });

  it('deciding one leaves the run paused with the other waiting; deciding the other resumes it', async () => {
    const api = await serve({ script: 'two-writes.yaml' });
    const { runId } = await startAndSettle(api, { input: 'Write both files' });

    const first = await api.approve(runId, { approved: true, tool_call_id: 'tg_1_2' });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ status: 'approved', decided: ['tg_1_2'], waiting: ['tg_1_1'], run_status: 'paused_checkpoint' });
    const between = await api.run(runId);
    expect(between.status).toBe('paused_checkpoint');
    expect(between.pending_approvals.map((pending: any) => pending.tool_call_id)).toEqual(['tg_1_1']);
    // Who decided, and how: a client of the API that does not say otherwise is the API.
    expect(between.decisions).toMatchObject([{ tool_call_id: 'tg_1_2', approved: true, decided_by: 'carol', via: 'api' }]);
    // Approved calls run only when the run resumes.
    expect(api.project.read('ws/b.txt')).toBeUndefined();

    const again = await api.approve(runId, { approved: false, tool_call_id: 'tg_1_2' });
    expect(again.status).toBe(400);
    expect(again.json.field).toBe('tool_call_id');

    const second = await api.approve(runId, { approved: false, tool_call_id: 'tg_1_1', reason: 'not alpha' });
    expect(second.json).toMatchObject({ status: 'denied', decided: ['tg_1_1'], waiting: [], run_status: 'running' });
    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.status).toBe('completed');
    expect(done.text).toBe('At least one write was denied.');
    expect(api.project.read('ws/a.txt')).toBeUndefined();
    expect(api.project.read('ws/b.txt')).toBe('beta\n');
  });

  it('group_id decides every call of the group at once', async () => {
    const api = await serve({ script: 'two-writes.yaml' });
    const { runId, view } = await startAndSettle(api, { input: 'Write both files' });
    const groups = new Set(view.pending_approvals.map((pending: any) => pending.group_id));
    expect(groups.size).toBe(1);
    const groupId = [...groups][0] as string;
    expect(typeof groupId).toBe('string');

    const both = await api.approve(runId, { approved: true, group_id: groupId });
    expect(both.status).toBe(200);
    expect(both.json).toMatchObject({ status: 'approved', message: 'Tool execution approved and resumed', waiting: [], run_status: 'running' });
    expect([...both.json.decided].sort()).toEqual(['tg_1_1', 'tg_1_2']);
    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.text).toBe('Both files are written.');
    expect(api.project.read('ws/a.txt')).toBe('alpha\n');
    expect(api.project.read('ws/b.txt')).toBe('beta\n');
    expect(done.decisions).toHaveLength(2);

    const wrongGroup = await api.approve(runId, { approved: true, group_id: groupId });
    expect(wrongGroup.status).toBe(400);
  });

  it('an unknown group_id, or tool_call_id and group_id together, is a 400 naming the field', async () => {
    const api = await serve({ script: 'two-writes.yaml' });
    const { runId, view } = await startAndSettle(api, { input: 'Write both files' });
    const unknown = await api.approve(runId, { approved: true, group_id: 'no-such-group' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.field).toBe('group_id');
    const both = await api.approve(runId, { approved: true, group_id: view.pending_approvals[0].group_id, tool_call_id: 'tg_1_1' });
    expect(both.status).toBe(400);
    expect(both.json.field).toBe('group_id');
    expect((await api.run(runId)).decisions).toEqual([]);
  });

  it('two concurrent approvals of the last waiting call: exactly one decides and resumes, the tool runs once', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const { runId } = await startAndSettle(api, { input: 'Write the note' });
    const answers = await Promise.all([api.approve(runId, { approved: true, reason: 'first' }), api.approve(runId, { approved: true, reason: 'second' }, 'admin')]);
    const ok = answers.filter((answer) => answer.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.json).toMatchObject({ status: 'approved', message: 'Tool execution approved and resumed', run_status: 'running' });
    const loser = answers.find((answer) => answer.status !== 200)!;
    expect([400, 409]).toContain(loser.status);
    expect(loser.json.error).toMatch(/already decided|run is not paused for approval, current status: (running|completed)/);

    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.status).toBe('completed');
    expect(api.project.read('ws/note.txt')).toBe('first draft\n');
    expect(done.decisions).toHaveLength(1);
    const frames = await allEvents(api, runId);
    expect(frames.filter((frame) => frame.type === 'run_resumed')).toHaveLength(1);
    expect(frames.filter((frame) => frame.type === 'approval_decided')).toHaveLength(1);
    expect(frames.filter((frame) => frame.type === 'tool_result' && frame.data.tool_call_id === 'tg_1_1')).toMatchObject([{ outcome: 'ran' }].map((data) => ({ data })));
    const call = await api.server.store.getCall(runId, 'tg_1_1');
    expect(call?.status).toBe('completed');
    const personDecisions = auditEntries(api.project).filter((entry) => entry.kind === 'decision' && entry.source === 'person' && entry.call_id === 'tg_1_1');
    expect(personDecisions).toHaveLength(1);
  });

  it('two concurrent decisions of the two waiting calls resume the run once, each file written once', async () => {
    const api = await serve({ script: 'two-writes.yaml' });
    const { runId } = await startAndSettle(api, { input: 'Write both files' });
    const answers = await Promise.all([api.approve(runId, { approved: true, tool_call_id: 'tg_1_1' }), api.approve(runId, { approved: true, tool_call_id: 'tg_1_2' })]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers.filter((answer) => answer.json.run_status === 'running')).toHaveLength(1);
    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.text).toBe('Both files are written.');
    const frames = await allEvents(api, runId);
    expect(frames.filter((frame) => frame.type === 'run_resumed')).toHaveLength(1);
    expect(frames.filter((frame) => frame.type === 'tool_result').map((frame) => frame.data.tool_call_id).sort()).toEqual(['tg_1_1', 'tg_1_2']);
    expect(api.project.read('ws/a.txt')).toBe('alpha\n');
    expect(api.project.read('ws/b.txt')).toBe('beta\n');
  });
});

describe('edited_args', () => {
  it('arguments that do not fit the tool\'s schema are a 400 naming the problem, and nothing is decided', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const { runId } = await startAndSettle(api, { input: 'Write the note' });
    const wrongType = await api.approve(runId, { approved: true, edited_args: { path: 42, content: 'x' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.field).toBe('edited_args');
    expect(wrongType.json.error).toContain('write_file');
    expect(wrongType.json.error).toContain('path');
    const missing = await api.approve(runId, { approved: true, edited_args: { path: 'ws/note.txt' } });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toContain('content');
    const onDenial = await api.approve(runId, { approved: false, edited_args: { path: 'ws/note.txt', content: 'x' } });
    expect(onDenial.status).toBe(400);
    expect(onDenial.json.field).toBe('edited_args');
    // An edited call is approved once: a session or always scope would be recorded (and streamed) but never remembered.
    for (const scope of ['session', 'always']) {
      const remembered = await api.approve(runId, { approved: true, scope, edited_args: { path: 'ws/note.txt', content: 'x' } });
      expect(remembered.status).toBe(400);
      expect(remembered.json).toMatchObject({ field: 'scope' });
      expect(remembered.json.error).toContain(`scope "${scope}" cannot remember edited arguments`);
    }

    const view = await api.run(runId);
    expect(view.status).toBe('paused_checkpoint');
    expect(view.decisions).toEqual([]);
    expect(view.pending_approvals).toHaveLength(1);
    expect(api.project.read('ws/note.txt')).toBeUndefined();
  });

  it('valid edited arguments are what runs: the file holds the edited content', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const { runId } = await startAndSettle(api, { input: 'Write the note' });
    const approved = await api.approve(runId, { approved: true, edited_args: { path: 'ws/note.txt', content: 'edited by carol\n' } });
    expect(approved.json).toMatchObject({ status: 'approved', message: 'Tool execution approved and resumed' });
    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.status).toBe('completed');
    expect(api.project.read('ws/note.txt')).toBe('edited by carol\n');
    const audit = auditEntries(api.project).filter((entry) => entry.kind === 'decision' && entry.source === 'person');
    expect(audit).toMatchObject([{ decision: 'approved', args: { path: 'ws/note.txt', content: 'edited by carol\n' } }]);
  });

  it('edited arguments are judged again: a path outside every zone is not written and the model is told it was refused', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const { runId } = await startAndSettle(api, { input: 'Write the note' });
    const approved = await api.approve(runId, { approved: true, edited_args: { path: '../escaped.txt', content: 'outside\n' } });
    expect(approved.status).toBe(200);
    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.status).toBe('completed');
    expect(done.text).toBe('The write was denied; I wrote nothing.');
    expect(api.project.read('../escaped.txt')).toBeUndefined();
    expect(api.project.read('ws/note.txt')).toBeUndefined();
    const blocked = auditEntries(api.project).filter((entry) => entry.kind === 'decision' && entry.decision === 'block');
    expect(blocked).toHaveLength(1);
    expect(blocked[0]!.reason).toContain('outside every zone');
  });
});

describe('modes', () => {
  it('daemon with auto_approve_in_daemon: true runs the write without pausing; the same run in interactive mode pauses', async () => {
    const api = await serve({ script: 'write-note.yaml', extraPolicy: 'auto_approve_in_daemon: true\n' });
    const daemon = await startAndSettle(api, { input: 'Write the note', mode: 'daemon' });
    expect(daemon.view.status).toBe('completed');
    expect(daemon.view.text).toBe('The note is written.');
    expect(daemon.view.mode).toBe('daemon');
    expect(api.project.read('ws/note.txt')).toBe('first draft\n');
    const frames = await allEvents(api, daemon.runId);
    expect(frames.map((frame) => frame.type)).not.toContain('checkpoint_required');
    expect(frames.map((frame) => frame.type)).not.toContain('run_paused');
    const audit = auditEntries(api.project).filter((entry) => entry.kind === 'decision' && entry.run === daemon.runId);
    expect(audit).toMatchObject([{ decision: 'approved', source: 'mode' }]);

    const interactive = await startAndSettle(api, { input: 'Write the note', mode: 'interactive' });
    expect(interactive.view.status).toBe('paused_checkpoint');
    const defaulted = await startAndSettle(api, { input: 'Write the note' });
    expect(defaulted.view.status).toBe('paused_checkpoint');
  });

  it('daemon with auto_approve_in_daemon: false pauses like any run', async () => {
    const api = await serve({ script: 'write-note.yaml', extraPolicy: 'auto_approve_in_daemon: false\n' });
    const daemon = await startAndSettle(api, { input: 'Write the note', mode: 'daemon' });
    expect(daemon.view.status).toBe('paused_checkpoint');
    expect(api.project.read('ws/note.txt')).toBeUndefined();
  });

  it('refuses mode approve_all when the policy\'s mode is not approve_all, and starts nothing', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const refused = await api.startRun({ input: 'Write the note', mode: 'approve_all' });
    expect(refused.status).toBe(400);
    expect(refused.json.field).toBe('mode');
    expect(refused.json.error).toContain('approve_all');
    expect((await api.request('/runs')).json.runs).toEqual([]);
  });

  it('refuses mode strict where the policy marks asks soft (required: false) and its own mode would not approve them', async () => {
    const soft = 'tools:\n  write_file: { decision: ask, required: false }\n';
    for (const policyMode of ['auto_deny', 'interactive']) {
      const api = await serve({ script: 'write-note.yaml', extraPolicy: `mode: ${policyMode}\n${soft}` });
      const refused = await api.startRun({ input: 'Write the note', mode: 'strict' });
      expect(refused.status).toBe(400);
      expect(refused.json.field).toBe('mode');
      expect(refused.json.error).toContain(`the policy's mode (${policyMode}) sends to a person or denies (strict approves the asks the policy marks required: false)`);
      expect((await api.request('/runs')).json.runs).toEqual([]);
      expect(api.project.read('ws/note.txt')).toBeUndefined();
      // A stricter choice is still a run's to make.
      const { view } = await startAndSettle(api, { input: 'Write the note', mode: 'auto_deny' });
      expect(view.status).toBe('completed');
      expect(api.project.read('ws/note.txt')).toBeUndefined();
    }
  });

  it('under auto_deny, approve_all is refused, and strict only when soft asks exist', async () => {
    const api = await serve({ script: 'write-note.yaml', extraPolicy: 'mode: auto_deny\n' });
    expect((await api.startRun({ input: 'Write the note', mode: 'approve_all' })).status).toBe(400);
    // No soft asks: strict denies every ask this policy has, as auto_deny does.
    const { view } = await startAndSettle(api, { input: 'Write the note', mode: 'strict' });
    expect(view.status).toBe('completed');
    expect(api.project.read('ws/note.txt')).toBeUndefined();
  });

  for (const mode of ['strict', 'auto_deny'] as const) {
    it(`mode ${mode} denies the ask without pausing; the model is told and the file is not written`, async () => {
      const api = await serve({ script: 'write-note.yaml' });
      const { runId, view } = await startAndSettle(api, { input: 'Write the note', mode });
      expect(view.status).toBe('completed');
      expect(view.text).toBe('The write was denied; I wrote nothing.');
      expect(view.decisions).toEqual([]);
      expect(api.project.read('ws/note.txt')).toBeUndefined();
      const frames = await allEvents(api, runId);
      expect(frames.map((frame) => frame.type)).not.toContain('run_paused');
      expect(frames.find((frame) => frame.type === 'tool_result')!.data).toMatchObject({ tool_call_id: 'tg_1_1', outcome: 'denied' });
    });
  }
});

describe('approval_timeout', () => {
  it('an undecided call is denied as timed out (decided_by timeout, audit source timeout), and the run goes on', async () => {
    const api = await serve({ script: 'write-note.yaml', extraPolicy: 'approval_timeout: 1s\n' });
    const started = await api.startRun({ input: 'Write the note' });
    const runId = started.json.run_id as string;
    const stream = await api.stream(`/runs/${runId}/events`);
    try {
      const frames = await stream.waitFor((seen) => seen.some((frame) => frame.type === 'run_completed' || frame.type === 'run_failed'), 15_000);
      const decided = frames.find((frame) => frame.type === 'approval_decided')!;
      expect(decided.data).toMatchObject({ tool_call_id: 'tg_1_1', approved: false, timed_out: true, decided_by: 'timeout' });
      expect(frames.map((frame) => frame.type)).toContain('run_paused');
      expect(frames.map((frame) => frame.type)).not.toContain('run_cancelled');
    } finally {
      stream.close();
    }
    const done = await api.run(runId);
    expect(done.status).toBe('completed');
    expect(done.text).toBe('Nobody answered in time, so I wrote nothing.');
    expect(done.decisions).toMatchObject([{ approved: false, decided_by: 'timeout', via: 'timeout' }]);
    expect(api.project.read('ws/note.txt')).toBeUndefined();
    const decisions = auditEntries(api.project).filter((entry) => entry.kind === 'decision' && entry.decision !== 'ask');
    expect(decisions).toMatchObject([{ decision: 'denied', source: 'timeout' }]);
    expect(decisions.some((entry) => entry.source === 'person')).toBe(false);
  });
});

describe('"approve always", listed and revoked over the API', () => {
  it('lists what an always approval lets run, revokes it by id (then the call asks again), and refuses bad ids and submitters', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    expect((await api.request('/approvals/always', { token: 'carol' })).json).toMatchObject({ approvals: [] });
    const first = (await api.startRun({ input: 'write the note' })).json.run_id as string;
    await api.waitForStatus(first, 'paused_checkpoint');
    expect((await api.approve(first, { approved: true, scope: 'always' })).status).toBe(200);
    await api.waitForStatus(first, 'completed');
    const listed = await api.request('/approvals/always', { token: 'carol' });
    expect(listed.status).toBe(200);
    expect(listed.json.where).toMatch(/approvals\.json$/);
    expect(listed.json.approvals).toHaveLength(1);
    const [record] = listed.json.approvals as Array<Record<string, unknown>>;
    expect(record).toMatchObject({ tool: 'write_file', id: expect.stringMatching(/^[0-9a-f]{12}$/) });
    expect(record).not.toHaveProperty('fingerprint');
    expect(record).not.toHaveProperty('mac');
    // A submitter may neither see nor revoke them; a bad id and an unknown one say so.
    expect((await api.request('/approvals/always', { token: 'alice' })).status).toBe(403);
    expect((await api.request(`/approvals/always/${String(record!.id)}`, { method: 'DELETE', token: 'alice' })).status).toBe(403);
    const bad = await api.request('/approvals/always/xyz', { method: 'DELETE', token: 'carol' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toContain('expected at least 6 hex digits');
    expect((await api.request('/approvals/always/abcdef0123', { method: 'DELETE', token: 'carol' })).status).toBe(404);
    // Revoked: gone from the list, and the same call asks again.
    const revoked = await api.request(`/approvals/always/${String(record!.id)}`, { method: 'DELETE', token: 'carol' });
    expect(revoked.status).toBe(200);
    expect(revoked.json.revoked).toMatchObject([{ id: record!.id }]);
    expect((await api.request('/approvals/always', { token: 'carol' })).json.approvals).toEqual([]);
    const again = (await api.startRun({ input: 'write the note' })).json.run_id as string;
    await api.waitForStatus(again, 'paused_checkpoint');
  });
});

describe('"approve always" for a chosen scope (always_scope)', () => {
  it('a card offers its choices; always_scope "exact" keeps the rule it amounts to, and the same call then runs unasked', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const first = (await api.startRun({ input: 'write the note' })).json.run_id as string;
    const paused = await api.waitForStatus(first, 'paused_checkpoint');
    const pending = paused.pending_approvals[0];
    // A file at the zone root: the exact call is the one choice besides "calls like this one".
    expect(pending.always_scopes).toEqual([{ id: 'exact', text: 'write_file with exactly these arguments, nothing else', rule: expect.stringMatching(/^write_file with arguments sha256:[0-9a-f]{16}$/) }]);
    expect(pending.presentation.always_choices).toEqual(pending.always_scopes);

    // Answers that could not mean anything are refused, and decide nothing.
    const notOffered = await api.approve(first, { approved: true, scope: 'always', always_scope: 'folder' });
    expect(notOffered.status).toBe(400);
    expect(notOffered.json).toMatchObject({ field: 'always_scope', offered: ['exact'] });
    expect(notOffered.json.error).toContain('this call offers "exact"');
    for (const body of [{ approved: true, scope: 'once', always_scope: 'exact' }, { approved: false, always_scope: 'exact' }]) {
      const refused = await api.approve(first, body);
      expect(refused.status).toBe(400);
      expect(refused.json.field).toBe('always_scope');
    }
    const malformed = await api.approve(first, { approved: true, scope: 'always', always_scope: 'Exact<script>' });
    expect(malformed.status).toBe(400);
    expect((await api.run(first)).decisions).toEqual([]);

    expect((await api.approve(first, { approved: true, scope: 'always', always_scope: 'exact' })).status).toBe(200);
    await api.waitForStatus(first, 'completed');
    const [record] = (await api.request('/approvals/always', { token: 'carol' })).json.approvals as Array<Record<string, unknown>>;
    expect(record).toMatchObject({ tool: 'write_file', description: 'write_file with exactly these arguments, nothing else', rule: pending.always_scopes[0].rule });
    const decided = auditEntries(api.project).filter((entry) => entry.kind === 'decision' && entry.source === 'person');
    expect(decided.at(-1)).toMatchObject({ decision: 'approved', reason: expect.stringContaining(`approved by a person always: ${pending.always_scopes[0].rule}`) });

    // The same call (same arguments) in a new run is not asked about.
    const again = (await api.startRun({ input: 'write the note' })).json.run_id as string;
    expect((await api.waitForStatus(again, ['paused_checkpoint', 'completed'])).status).toBe('completed');
  });
});

describe('"for this session" decisions, listed and forgotten over the API', () => {
  it('lists who approved what in which session and when; forgotten by id, the same call in that session asks again', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    expect((await api.request('/approvals/session', { token: 'carol' })).json).toEqual({ approvals: [] });
    const first = (await api.startRun({ input: 'write the note', session_id: 'sess-1' })).json.run_id as string;
    await api.waitForStatus(first, 'paused_checkpoint');
    expect((await api.approve(first, { approved: true, scope: 'session' })).status).toBe(200);
    await api.waitForStatus(first, 'completed');
    // Remembered: the same call in the same session runs unasked.
    const second = (await api.startRun({ input: 'write the note', session_id: 'sess-1' })).json.run_id as string;
    await api.waitForStatus(second, 'completed');
    const listed = await api.request('/approvals/session', { token: 'carol' });
    expect(listed.status).toBe(200);
    expect(listed.json.approvals).toHaveLength(1);
    const [entry] = listed.json.approvals as Array<Record<string, unknown>>;
    expect(entry).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{16}$/), owner: 'alice', session_id: 'sess-1', chat_id: null, approved: true, reason: null, tool: 'write_file', decided_by: 'carol' });
    expect(String(entry!.description)).toContain('note.txt');
    expect(Date.parse(String(entry!.decided_at))).toBeGreaterThan(Date.now() - 60_000);
    // Only those who approve see and forget them; a bad id and an unknown one say so.
    expect((await api.request('/approvals/session', { token: 'alice' })).status).toBe(403);
    expect((await api.request(`/approvals/session/${String(entry!.id)}`, { method: 'DELETE', token: 'alice' })).status).toBe(403);
    const bad = await api.request('/approvals/session/xyz', { method: 'DELETE', token: 'carol' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toContain('expected the 16 hex digits');
    expect((await api.request('/approvals/session/0123456789abcdef', { method: 'DELETE', token: 'carol' })).status).toBe(404);
    const forgotten = await api.request(`/approvals/session/${String(entry!.id)}`, { method: 'DELETE', token: 'carol' });
    expect(forgotten.status).toBe(200);
    expect(forgotten.json).toEqual({ forgotten: entry!.id });
    expect((await api.request('/approvals/session', { token: 'carol' })).json.approvals).toEqual([]);
    const third = (await api.startRun({ input: 'write the note', session_id: 'sess-1' })).json.run_id as string;
    await api.waitForStatus(third, 'paused_checkpoint');
  });
});

describe('which cards other approvers have open, over the API', () => {
  it("tells each approver the others' open cards, never their own; refuses a submitter and what is not a short list of cards", async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const card = { run_id: 'run_1', tool_call_id: 'tg_1_1' };
    expect((await api.request('/approvals/presence', { token: 'carol', json: { open: [card] } })).json).toEqual({ others: [] });
    expect((await api.request('/approvals/presence', { token: 'admin', json: { open: [] } })).json).toEqual({ others: [{ ...card, names: ['carol'] }] });
    expect((await api.request('/approvals/presence', { token: 'carol', json: { open: [] } })).json).toEqual({ others: [] });
    // carol closed it: nobody has it open now.
    expect((await api.request('/approvals/presence', { token: 'admin', json: { open: [] } })).json).toEqual({ others: [] });
    expect((await api.request('/approvals/presence', { token: 'alice', json: { open: [] } })).status).toBe(403);
    const tooMany = Array.from({ length: 51 }, (_, index) => ({ run_id: 'run_1', tool_call_id: `tg_1_${index}` }));
    for (const body of [{ open: tooMany }, { open: [{ run_id: 'run_1' }] }, { open: [card], extra: 1 }, { open: [{ run_id: 'r\u0007', tool_call_id: 'c' }] }]) {
      expect((await api.request('/approvals/presence', { token: 'carol', json: body })).status, JSON.stringify(body)).toBe(400);
    }
  });
});
