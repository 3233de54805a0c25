/** server.max_concurrent_runs: runs beyond the limit wait their turn, claimed; a cancel while waiting means it never runs. */
import { describe, expect, it } from 'vitest';
import { serveForEachTest } from './server-api-harness.ts';

const { serve } = serveForEachTest();

describe('server.max_concurrent_runs', () => {
  it('drives one run at a time when the limit is 1: the others wait their turn, then run; one cancelled while waiting never runs', { timeout: 60_000 }, async () => {
    const api = await serve({ script: 'slow-then-write.yaml', extraPolicy: 'server:\n  max_concurrent_runs: 1\n' });
    const first = (await api.startRun({ input: 'one' })).json.run_id as string;
    const second = (await api.startRun({ input: 'two' })).json.run_id as string;
    const third = (await api.startRun({ input: 'three' })).json.run_id as string;
    // The first sleeps in its shell call; the others have not started their model yet.
    await new Promise((resolve) => setTimeout(resolve, 800));
    const started = (runId: string) => api.events(runId, (frames) => frames.some((frame) => frame.type === 'tool_call'), { timeoutMs: 500 }).then(() => true).catch(() => false);
    expect(await started(first)).toBe(true);
    expect(await started(second)).toBe(false);
    // Cancelled while it waits: it never runs.
    expect((await api.request(`/runs/${third}/cancel`, { method: 'POST', token: 'admin' })).status).toBe(200);
    await api.waitForStatus(first, 'paused_checkpoint', 20_000);
    await api.waitForStatus(second, 'paused_checkpoint', 20_000);
    const cancelled = await api.run(third);
    expect(cancelled.status).toBe('cancelled');
    expect(await started(third)).toBe(false);
  });
});
