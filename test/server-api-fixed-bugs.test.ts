/**
 * Bugs found by the API suites, now fixed: a timeout under on_deny: stop,
 * secrets in the approval view, and a blocked edit missing from the events.
 */
import { readFileSync, existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { auditEntries, serveForEachTest } from './server-api-harness.ts';

const FINISHED = ['completed', 'cancelled', 'failed'];
const { serve, servers } = serveForEachTest();

describe('fixed bugs of the API', () => {
  // Timeouts follow on_deny as every denial does in toolgate (the terminal too): under on_deny: stop the run ends, recorded as timed out.
  it('a timeout under on_deny: stop cancels the run, as a timeout and not as a person\'s denial', async () => {
    const api = await serve({ script: 'write-note.yaml', extraPolicy: 'approval_timeout: 1s\non_deny: stop\n' });
    const started = await api.startRun({ input: 'Write the note' });
    const done = await api.waitForStatus(started.json.run_id, FINISHED, 15_000);
    expect(done.status).toBe('cancelled');
    expect(done.decisions).toEqual([expect.objectContaining({ approved: false, decided_by: 'timeout', reason: expect.stringMatching(/^timed out/) })]);
    const sources = auditEntries(api.project).filter((entry) => entry.kind === 'decision' && entry.tool === 'write_file').map((entry) => entry.source);
    expect(sources).toContain('timeout');
    expect(sources).not.toContain('person');
  });

  // run-events.ts checkpointData(): the presentation (approvalView) keeps the new file's content in `blocks[].lines` unredacted,
  // although `content` is a redact.keys key; it is stored in the approvals table and the checkpoint_required event (plain JSON
  // in SQLite), and served by GET /runs/:id, GET /approvals and the SSE streams.
  it('redact.keys: no view, stream or store byte ever holds the secret, while the written file does', async () => {
    const SECRET = 'sk-live-PLUTONIUM-7f3a9c2e41b8';
    const api = await serve({ script: 'secret-note.yaml', extraPolicy: 'redact:\n  keys: [content]\n' });
    const started = await api.startRun({ input: 'Store the deploy key' });
    const runId = started.json.run_id as string;
    await api.waitForStatus(runId, 'paused_checkpoint');
    const stream = await api.stream('/events');
    const runStream = await api.stream(`/runs/${runId}/events`);
    expect((await api.request(`/runs/${runId}`)).text).not.toContain(SECRET);
    expect((await api.request('/approvals')).text).not.toContain(SECRET);
    expect((await api.request('/runs')).text).not.toContain(SECRET);
    await api.approve(runId, { approved: true });
    await api.waitForStatus(runId, FINISHED);
    await runStream.waitFor((frames) => frames.some((frame) => frame.type === 'run_completed'));
    await stream.waitFor((frames) => frames.some((frame) => frame.type === 'run_completed'));
    stream.close();
    runStream.close();
    expect(runStream.raw()).not.toContain(SECRET);
    expect(stream.raw()).not.toContain(SECRET);
    expect(api.project.read('ws/deploy-key.txt')).toBe(`${SECRET}\n`);
    for (const file of [api.project.storeFile, `${api.project.storeFile}-wal`]) {
      if (existsSync(file)) expect(readFileSync(file).includes(Buffer.from(SECRET)), file).toBe(false);
    }
    await api.close();
    servers.splice(servers.indexOf(api), 1);
    expect(readFileSync(api.project.storeFile).includes(Buffer.from(SECRET))).toBe(false);
    api.project.remove();
  });

  // drive-run.ts: when a call approved with edited_args is refused on resume (the gate judges the edit again and blocks it),
  // no event says so: the stream shows approval_decided {approved: true}, run_resumed, then the model's text; no tool_result.
  it('an approved edit that the policy then blocks is reported as a tool_result in the run\'s events', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const started = await api.startRun({ input: 'Write the note' });
    const runId = started.json.run_id as string;
    await api.waitForStatus(runId, 'paused_checkpoint');
    await api.approve(runId, { approved: true, edited_args: { path: '../escaped.txt', content: 'outside\n' } });
    const frames = await api.events(runId, (seen) => seen.some((frame) => frame.type === 'run_completed'));
    const result = frames.find((frame) => frame.type === 'tool_result' && frame.data.tool_call_id === 'tg_1_1');
    expect(result?.data.outcome).toMatch(/blocked|denied/);
    expect(auditEntries(api.project).some((entry) => entry.decision === 'block')).toBe(true);
  });

  it('an edit of a call whose secret was shown as [REDACTED] keeps the secret where the edit kept the marker', async () => {
    const SECRET = 'sk-live-PLUTONIUM-7f3a9c2e41b8';
    const api = await serve({ script: 'secret-note.yaml', extraPolicy: 'redact:\n  keys: [content]\n' });
    const runId = (await api.startRun({ input: 'Store the deploy key' })).json.run_id as string;
    const paused = await api.waitForStatus(runId, 'paused_checkpoint');
    const shown = JSON.parse(paused.pending_approvals[0].tool_arguments);
    expect(shown).toEqual({ path: 'ws/deploy-key.txt', content: '[REDACTED]' });
    // The person changes the path only.
    const answer = await api.approve(runId, { approved: true, edited_args: { ...shown, path: 'ws/moved-key.txt' } });
    expect(answer.status).toBe(200);
    await api.waitForStatus(runId, FINISHED);
    expect(api.project.read('ws/moved-key.txt')).toBe(`${SECRET}\n`);
  });

  it('the audit log names the authenticated approver of every decision a person took', async () => {
    const api = await serve({ script: 'write-note.yaml' });
    const runId = (await api.startRun({ input: 'Write the note' })).json.run_id as string;
    await api.waitForStatus(runId, 'paused_checkpoint');
    expect((await api.approve(runId, { approved: true })).status).toBe(200);
    await api.waitForStatus(runId, FINISHED);
    const decisions = auditEntries(api.project).filter((entry) => entry.kind === 'decision' && entry.tool === 'write_file');
    expect(decisions.map((entry) => [entry.source, entry.approver])).toEqual([
      ['policy', undefined],
      ['person', 'carol'],
    ]);
  });
});
