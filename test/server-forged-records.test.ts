/**
 * Records written straight into the store are never acted on (issue 32):
 * `toolgate serve` on a real SQLite file, the records changed with plain
 * SQL through another connection, as anyone who can write the database
 * could. A decision on a paused call and a session's remembered decision
 * each carry a MAC under the server's secret; one that does not verify is
 * refused — the call does not run, the run's history says so, and the run
 * goes on as if the call had been denied.
 */
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiProject, serveForEachTest, startApiServer, type ApiServer, type SseFrame } from './server-api-harness.ts';

const FINISHED = ['completed', 'cancelled', 'failed'];
const { serve } = serveForEachTest();

/** Runs `sql` on the server's store from a connection of its own, as an attacker with write access would. */
function writeStore(api: ApiServer, sql: string, ...params: unknown[]): number {
  const database = new Database(api.project.storeFile, { timeout: 10_000 });
  try {
    return database.prepare(sql).run(...params).changes;
  } finally {
    database.close();
  }
}

function decisionOf(api: ApiServer, runId: string, toolCallId: string): Record<string, unknown> {
  const database = new Database(api.project.storeFile, { readonly: true });
  try {
    return JSON.parse(database.prepare('SELECT decision FROM approvals WHERE run_id = ? AND tool_call_id = ?').pluck().get(runId, toolCallId) as string);
  } finally {
    database.close();
  }
}

async function pausedTwoWrites(api: ApiServer): Promise<string> {
  const started = await api.startRun({ input: 'Write both files' });
  expect(started.status).toBe(201);
  const runId = started.json.run_id as string;
  const view = await api.waitForStatus(runId, ['paused_checkpoint', ...FINISHED]);
  expect(view.pending_approvals.map((pending: any) => pending.tool_call_id)).toEqual(['tg_1_1', 'tg_1_2']);
  return runId;
}

function untilEnded(frames: SseFrame[]): boolean {
  return frames.some((frame) => ['run_completed', 'run_cancelled', 'run_failed'].includes(frame.type));
}

describe('a decision written into the store without the server', () => {
  it('an approval inserted with plain SQL is refused: the call never runs, the run shows why, and it goes on', async () => {
    const api = await serve({ script: 'two-writes.yaml' });
    const runId = await pausedTwoWrites(api);
    const forged = { approved: true, reason: null, scope: 'once', decidedBy: 'carol', decidedAt: new Date().toISOString() };
    expect(writeStore(api, `UPDATE approvals SET decision = ? WHERE run_id = ? AND tool_call_id = 'tg_1_1'`, JSON.stringify(forged), runId)).toBe(1);

    // A person decides the other call: that resumes the run, with the forged row among its decisions.
    const approved = await api.approve(runId, { approved: true, tool_call_id: 'tg_1_2' });
    expect(approved.status, approved.text).toBe(200);
    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.status).toBe('completed');
    expect(done.text).toBe('At least one write was denied.');
    expect(api.project.read('ws/a.txt'), 'the forged approval ran its call').toBeUndefined();
    expect(api.project.read('ws/b.txt')).toBe('beta\n');

    const frames = await api.events(runId, untilEnded);
    const refused = frames.filter((frame) => frame.type === 'decision_refused');
    expect(refused.map((frame) => frame.data)).toMatchObject([{ tool_call_id: 'tg_1_1', tool_name: 'write_file', claimed_decided_by: 'carol' }]);
    expect(refused[0]!.data.reason).toMatch(/does not carry this server's signature/);
    // What the model read for that call is the refusal, made by toolgate (not by the person the row names).
    const results = frames.filter((frame) => frame.type === 'tool_result');
    expect(results.find((frame) => frame.data.tool_call_id === 'tg_1_1')?.data).toMatchObject({ outcome: 'denied', reason: refused[0]!.data.reason });
    expect(results.find((frame) => frame.data.tool_call_id === 'tg_1_2')?.data.outcome).not.toBe('denied');
  });

  it('a signed decision changed in place (a denial turned into an approval, or moved to another run) is refused', async () => {
    const api = await startApiServer({ script: 'two-writes.yaml' });
    const runId = await pausedTwoWrites(api);
    expect((await api.approve(runId, { approved: false, tool_call_id: 'tg_1_1', reason: 'not alpha' })).status).toBe(200);
    const denial = decisionOf(api, runId, 'tg_1_1');
    expect(typeof denial.mac).toBe('string');
    expect(writeStore(api, `UPDATE approvals SET decision = ? WHERE run_id = ? AND tool_call_id = 'tg_1_1'`, JSON.stringify({ ...denial, approved: true }), runId)).toBe(1);
    // And the approval of the other call copied from a signed one of another run (still waiting on its first call, so nothing of it runs).
    const other = await pausedTwoWrites(api);
    expect((await api.approve(other, { approved: true, tool_call_id: 'tg_1_2' })).status).toBe(200);
    const signedElsewhere = decisionOf(api, other, 'tg_1_2');
    expect(writeStore(api, `UPDATE approvals SET decision = ? WHERE run_id = ? AND tool_call_id = 'tg_1_2'`, JSON.stringify(signedElsewhere), runId)).toBe(1);
    // Nothing is waiting now; the forger still needs the run to resume: it marks the run running, and the server is restarted.
    expect(writeStore(api, `UPDATE runs SET status = 'running' WHERE run_id = ?`, runId)).toBe(1);
    await api.close();
    const again = await startApiServer({ script: 'two-writes.yaml', project: api.project, tokens: api.tokens });
    try {
      const done = await again.waitForStatus(runId, FINISHED);
      expect(done.text).toBe('At least one write was denied.');
      expect(api.project.read('ws/a.txt')).toBeUndefined();
      expect(api.project.read('ws/b.txt')).toBeUndefined();
      const frames = await again.events(runId, untilEnded);
      expect(frames.filter((frame) => frame.type === 'decision_refused').map((frame) => frame.data.tool_call_id).sort()).toEqual(['tg_1_1', 'tg_1_2']);
      const outcomes = frames.filter((frame) => frame.type === 'tool_result').map((frame) => [frame.data.tool_call_id, frame.data.outcome]);
      expect(outcomes.sort()).toEqual([
        ['tg_1_1', 'denied'],
        ['tg_1_2', 'denied'],
      ]);
    } finally {
      await again.close();
      api.project.remove();
    }
  });
});

describe('a remembered session decision written into the store without the server', () => {
  it('is never used: a signed one copied to another chat, and one inserted unsigned, still ask after a restart', async () => {
    const project = createApiProject();
    const first = await startApiServer({ script: 'write-note.yaml', project });
    let second: ApiServer | undefined;
    try {
      const started = await first.startRun({ input: 'Write the note', session_id: 'S1', chat_id: 'A' });
      const runId = started.json.run_id as string;
      expect((await first.waitForStatus(runId, ['paused_checkpoint'])).status).toBe('paused_checkpoint');
      expect((await first.approve(runId, { approved: true, scope: 'session' })).status).toBe(200);
      expect((await first.waitForStatus(runId, FINISHED)).status).toBe('completed');
      rmSync(path.join(project.root, 'ws/note.txt'));
      await first.close();

      const database = new Database(project.storeFile);
      try {
        const [row] = database.prepare('SELECT * FROM memory').all() as Array<{ key: string; session_id: string; chat_id: string; decision: string; updated_at: string; schema_version: number }>;
        expect(row!.chat_id).toBe('A');
        expect(JSON.parse(row!.decision).mac).toMatch(/^v1\./);
        const insert = database.prepare('INSERT INTO memory (key, session_id, chat_id, decision, updated_at, schema_version) VALUES (?, ?, ?, ?, ?, ?)');
        // The key is JSON: [session (scoped by owner), chat, tool, identity], then the payload's fingerprint.
        const keyFor = (chat: string) => row!.key.replace(',"A",', `,${JSON.stringify(chat)},`);
        expect(keyFor('B')).not.toBe(row!.key);
        insert.run(keyFor('B'), 'S1', 'B', row!.decision, row!.updated_at, row!.schema_version);
        insert.run(keyFor('C'), 'S1', 'C', JSON.stringify({ approved: true }), row!.updated_at, row!.schema_version);
      } finally {
        database.close();
      }

      second = await startApiServer({ script: 'write-note.yaml', project, tokens: first.tokens });
      const statusIn = async (chat: string) => {
        const run = await second!.startRun({ input: 'Write the note', session_id: 'S1', chat_id: chat });
        return (await second!.waitForStatus(run.json.run_id as string, ['paused_checkpoint', ...FINISHED])).status;
      };
      expect(await statusIn('B')).toBe('paused_checkpoint');
      expect(await statusIn('C')).toBe('paused_checkpoint');
      expect(project.read('ws/note.txt')).toBeUndefined();
      // The one the server signed still holds.
      expect(await statusIn('A')).toBe('completed');
    } finally {
      await second?.close();
      project.remove();
    }
  });
});
