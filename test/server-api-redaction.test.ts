/**
 * `toolgate serve` end to end, redaction: with `redact.keys: [content]`,
 * write_file's content is a secret. The tool still writes it to the file,
 * but the API's views of the arguments, the streamed events and the audit
 * log show `[REDACTED]`; `redact.outputs` hides tool outputs from events.
 */
import { describe, expect, it } from 'vitest';
import { auditEntries, serveForEachTest } from './server-api-harness.ts';

const SECRET = 'sk-live-PLUTONIUM-7f3a9c2e41b8';
const FINISHED = ['completed', 'cancelled', 'failed'];
const { serve } = serveForEachTest();

describe('redact.keys', () => {
  it('the secret argument is [REDACTED] in tool_arguments, the arguments view, tool_call events and the audit log, while the file holds it', async () => {
    const api = await serve({ script: 'secret-note.yaml', extraPolicy: 'redact:\n  keys: [content]\n' });
    const started = await api.startRun({ input: 'Store the deploy key' });
    const runId = started.json.run_id as string;
    const view = await api.waitForStatus(runId, 'paused_checkpoint');
    const pending = view.pending_approvals[0];
    expect(JSON.parse(pending.tool_arguments)).toEqual({ path: 'ws/deploy-key.txt', content: '[REDACTED]' });
    expect(JSON.stringify(pending.presentation.arguments)).not.toContain(SECRET);
    const inbox = (await api.request('/approvals', { token: 'carol' })).json.approvals;
    expect(JSON.parse(inbox[0].tool_arguments)).toEqual({ path: 'ws/deploy-key.txt', content: '[REDACTED]' });

    expect((await api.approve(runId, { approved: true })).json.message).toBe('Tool execution approved and resumed');
    const done = await api.waitForStatus(runId, FINISHED);
    expect(done.text).toBe('The key is stored.');
    expect(api.project.read('ws/deploy-key.txt')).toBe(`${SECRET}\n`);

    const frames = await api.events(runId, (seen) => seen.some((frame) => frame.type === 'run_completed'));
    const call = frames.find((frame) => frame.type === 'tool_call')!;
    expect(call.data.arguments).toEqual({ path: 'ws/deploy-key.txt', content: '[REDACTED]' });
    const checkpoint = frames.find((frame) => frame.type === 'checkpoint_required')!;
    expect(JSON.parse(checkpoint.data.tool_arguments as string)).toEqual({ path: 'ws/deploy-key.txt', content: '[REDACTED]' });
    const result = frames.find((frame) => frame.type === 'tool_result')!;
    expect(JSON.stringify(result.data)).not.toContain(SECRET);

    const audit = auditEntries(api.project);
    expect(audit.length).toBeGreaterThan(0);
    expect(JSON.stringify(audit)).not.toContain(SECRET);
    expect(audit.every((entry) => entry.args.content === '[REDACTED]')).toBe(true);
  });
});

describe('redact.outputs', () => {
  it('tool outputs are left out of tool_result events, and the tool still runs', async () => {
    const api = await serve({ script: 'write-note.yaml', extraPolicy: 'redact:\n  outputs: true\n' });
    const started = await api.startRun({ input: 'Write the note' });
    const runId = started.json.run_id as string;
    await api.waitForStatus(runId, 'paused_checkpoint');
    await api.approve(runId, { approved: true });
    const frames = await api.events(runId, (seen) => seen.some((frame) => frame.type === 'run_completed'));
    const result = frames.find((frame) => frame.type === 'tool_result')!;
    expect(result.data).toMatchObject({ tool_call_id: 'tg_1_1', outcome: 'ran', output: '[output hidden by redact.outputs]' });
    expect(api.project.read('ws/note.txt')).toBe('first draft\n');
  });
});
