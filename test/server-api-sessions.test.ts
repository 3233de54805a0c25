/**
 * `toolgate serve` end to end, remembered approvals: `scope: "session"`
 * lets an equal call in a later run of the same session and chat run
 * without asking; sessions are scoped by owner and chats are isolated;
 * `DELETE /sessions/:session/chats/:chat` forgets; a restart remembers.
 */
import { describe, expect, it } from 'vitest';
import { auditEntries, createApiProject, startApiServer, type ApiServer, type TokenName, serveForEachTest } from './server-api-harness.ts';
import { rmSync } from 'node:fs';
import path from 'node:path';

const FINISHED = ['completed', 'cancelled', 'failed'];
const { serve } = serveForEachTest();

async function runNote(api: ApiServer, options: { session_id: string; chat_id?: string; token?: TokenName }): Promise<{ runId: string; view: any }> {
  const { token = 'alice', ...scope } = options;
  const started = await api.startRun({ input: 'Write the note', ...scope }, token);
  expect(started.status).toBe(201);
  const runId = started.json.run_id as string;
  return { runId, view: await api.waitForStatus(runId, ['paused_checkpoint', ...FINISHED]) };
}

/** Starts a run that pauses, approves it for the session, waits for it to finish, and removes the file it wrote. */
async function approveForSession(api: ApiServer, options: { session_id: string; chat_id?: string; token?: TokenName }): Promise<void> {
  const { runId, view } = await runNote(api, options);
  expect(view.status).toBe('paused_checkpoint');
  const approved = await api.approve(runId, { approved: true, scope: 'session' });
  expect(approved.json).toMatchObject({ status: 'approved', message: 'Tool execution approved and resumed' });
  expect((await api.waitForStatus(runId, FINISHED)).status).toBe('completed');
  expect(api.project.read('ws/note.txt')).toBe('first draft\n');
  rmSync(path.join(api.project.root, 'ws/note.txt'));
}

describe('scope "session"', () => {
  it('an equal call in a later run of the same session and chat runs without asking', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    await approveForSession(api, { session_id: 'S1', chat_id: 'A' });
    const { runId, view } = await runNote(api, { session_id: 'S1', chat_id: 'A' });
    expect(view.status).toBe('completed');
    expect(view.text).toBe('The note is written.');
    expect(view.decisions).toEqual([]);
    expect(api.project.read('ws/note.txt')).toBe('first draft\n');
    const audit = auditEntries(api.project).filter((entry) => entry.run === runId && entry.kind === 'decision');
    expect(audit).toMatchObject([{ decision: 'approved', source: 'memory' }]);
  });

  it('a "once" approval is not remembered', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const first = await runNote(api, { session_id: 'S1', chat_id: 'A' });
    expect((await api.approve(first.runId, { approved: true, scope: 'once' })).status).toBe(200);
    await api.waitForStatus(first.runId, FINISHED);
    expect((await runNote(api, { session_id: 'S1', chat_id: 'A' })).view.status).toBe('paused_checkpoint');
  });

  it('the same session_id under another submitter\'s token still asks: sessions are scoped by owner', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    await approveForSession(api, { session_id: 'shared', chat_id: 'A' });
    const bobs = await runNote(api, { session_id: 'shared', chat_id: 'A', token: 'bob' });
    expect(bobs.view.status).toBe('paused_checkpoint');
    expect(bobs.view.owner).toBe('bob');
    expect(api.project.read('ws/note.txt')).toBeUndefined();
    // And alice's memory still holds for alice.
    const alices = await runNote(api, { session_id: 'shared', chat_id: 'A' });
    expect(alices.view.status).toBe('completed');
  });

  it('another chat of the same session, or another session, asks: chats are isolated', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    await approveForSession(api, { session_id: 'S1', chat_id: 'A' });
    expect((await runNote(api, { session_id: 'S1', chat_id: 'B' })).view.status).toBe('paused_checkpoint');
    expect((await runNote(api, { session_id: 'S2', chat_id: 'A' })).view.status).toBe('paused_checkpoint');
    expect((await runNote(api, { session_id: 'S1' })).view.status).toBe('paused_checkpoint');
    expect(api.project.read('ws/note.txt')).toBeUndefined();
  });

  it('a denial for the session is remembered too: the next equal call is denied without asking, with the reason', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const first = await runNote(api, { session_id: 'S1', chat_id: 'A' });
    expect((await api.approve(first.runId, { approved: false, scope: 'session', reason: 'too early today' })).json.status).toBe('denied');
    expect((await api.waitForStatus(first.runId, FINISHED)).text).toBe('You said it is too early, so I wrote nothing and will ask again tomorrow.');
    const second = await runNote(api, { session_id: 'S1', chat_id: 'A' });
    expect(second.view.status).toBe('completed');
    expect(second.view.text).toBe('You said it is too early, so I wrote nothing and will ask again tomorrow.');
    expect(api.project.read('ws/note.txt')).toBeUndefined();
  });

  it('scope "always" on a denial is refused with 400 naming scope', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const { runId } = await runNote(api, { session_id: 'S1', chat_id: 'A' });
    const refused = await api.approve(runId, { approved: false, scope: 'always' });
    expect(refused.status).toBe(400);
    expect(refused.json.field).toBe('scope');
    expect((await api.run(runId)).decisions).toEqual([]);
  });
});

describe('DELETE /sessions/:session/chats/:chat', () => {
  it('forgets that chat\'s approvals (the next equal call asks again) and leaves other chats\' alone', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    await approveForSession(api, { session_id: 'S1', chat_id: 'A' });
    await approveForSession(api, { session_id: 'S1', chat_id: 'B' });

    for (const token of ['alice', 'carol'] as const) {
      expect((await api.request('/sessions/S1/chats/A', { method: 'DELETE', token })).status).toBe(403);
    }
    // Refused requests forgot nothing.
    expect((await runNote(api, { session_id: 'S1', chat_id: 'A' })).view.status).toBe('completed');
    rmSync(path.join(api.project.root, 'ws/note.txt'));

    const cleared = await api.request('/sessions/S1/chats/A', { method: 'DELETE' });
    expect(cleared.status).toBe(200);
    expect(cleared.json.cleared).toBeGreaterThanOrEqual(1);

    expect((await runNote(api, { session_id: 'S1', chat_id: 'A' })).view.status).toBe('paused_checkpoint');
    expect(api.project.read('ws/note.txt')).toBeUndefined();
    expect((await runNote(api, { session_id: 'S1', chat_id: 'B' })).view.status).toBe('completed');

    const nothing = await api.request('/sessions/S1/chats/never-used', { method: 'DELETE' });
    expect(nothing.status).toBe(200);
    expect(nothing.json).toEqual({ cleared: 0 });
  });
});

describe('restart', () => {
  it('a session approval survives a restart on the same store', async () => {
    const project = createApiProject();
    const first = await startApiServer({ script: 'write-note.yaml', project });
    let second: ApiServer | undefined;
    try {
      await approveForSession(first, { session_id: 'S1', chat_id: 'A' });
      await first.close();
      second = await startApiServer({ script: 'write-note.yaml', project, tokens: first.tokens });
      const { view } = await runNote(second, { session_id: 'S1', chat_id: 'A' });
      expect(view.status).toBe('completed');
      expect(project.read('ws/note.txt')).toBe('first draft\n');
    } finally {
      await second?.close();
      project.remove();
    }
  });
});
