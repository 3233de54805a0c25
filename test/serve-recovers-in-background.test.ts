/**
 * A restart with runs under way (issue 51): `toolgate serve` listens first,
 * says it is recovering (its listening line, `/healthz`), and recovers the
 * runs the last stop left running in the background. The recovery is held
 * up for as long as the test wants by another connection holding the runs'
 * rows locked in the PostgreSQL store (its claims wait, its reads do not),
 * so that "answers while it recovers" is seen, not hoped for on a fast
 * machine. (A SQLite store's writes are synchronous: a lock held on its file
 * holds the whole server, not only its recovery.)
 */
import { rmSync } from 'node:fs';
import pg from 'pg';
import { freshDatabase } from './postgres-server.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { servedBy, startRandomIdModel } from './random-id-model.ts';
import { api, callsLogLines, createServerProject, inParallel, readEventStream, runsWithStatus, startServerProcess, waitFor } from './server-harness.ts';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const RUNS = 40;

describe('toolgate serve restarted with runs under way', () => {
  it(`answers at once, says it is recovering, and drives on all ${RUNS} runs in the background, each once`, { timeout: 180_000 }, async () => {
    const database = await freshDatabase();
    cleanup.push(() => database.drop());
    const base = createServerProject({ policy: 'random-ids-shared-policy.yaml' });
    cleanup.push(() => rmSync(base.directory, { recursive: true, force: true }));
    const project = { ...base, storeFile: database.url };
    const holder = new pg.Client({ connectionString: database.url, options: '-c search_path=toolgate' });
    await holder.connect();
    cleanup.push(() => holder.end().catch(() => undefined));
    const model = await startRandomIdModel({ commands: ['echo ran >> calls.log'] });
    cleanup.push(() => model.close());
    // Every run waits on the model's first answer: all of them are running when the server is killed.
    model.hold = () => true;
    const first = await startServerProcess({ project, ...servedBy(model) });
    cleanup.push(() => first.kill9());
    const runIds = await inParallel(Array.from({ length: RUNS }), 8, async (_, index) => {
      const created = await api(first.url, 'POST', '/runs', { input: `Append your line (run ${index + 1}).` });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.run_id as string;
    });
    await waitFor(async () => (model.requests.length > 0 ? true : undefined), { timeoutMs: 20_000, describe: () => 'the model asked' });
    await first.kill9();

    // Its lease runs out (2 s), as after any crash; then another connection locks every run: the recovery's claims wait on it.
    await waitFor(async () => ((await holder.query("SELECT 1 FROM instances WHERE expires_at > now()")).rowCount === 0 ? true : undefined), { timeoutMs: 20_000, describe: () => 'the killed server\'s lease to run out' });
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM runs FOR UPDATE');
    const second = await startServerProcess({ project, ...servedBy(model) });
    cleanup.push(() => second.kill9());
    const listening = await waitFor(async () => /"msg":"listening".*"recovering":(\d+)/.exec(second.stderr())?.[1], { timeoutMs: 10_000, describe: () => `the listening log line in ${second.stderr()}` });
    expect(Number(listening)).toBe(RUNS);
    // Serving while it recovers: health says so, and every run can be read.
    expect((await api(second.url, 'GET', '/healthz')).body).toEqual({ status: 'ok', recovering: true });
    expect((await runsWithStatus(second.url, 'running')).map((run) => run.run_id).sort()).toEqual([...runIds].sort());

    // A fault while it recovers: the connection waiting to claim the first run is cut. That run is claimed again, later.
    const cut = await holder.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%UPDATE runs%' AND pid <> pg_backend_pid()");
    expect(cut.rowCount).toBe(1);
    await waitFor(async () => (second.stderr().includes('could not claim a run to recover it') ? true : undefined), { timeoutMs: 20_000, describe: () => `the cut claim (server exit ${second.child.exitCode} ${second.child.signalCode}) in ${second.stderr()}` });
    expect((await api(second.url, 'GET', '/healthz')).body).toEqual({ status: 'ok', recovering: true });
    await holder.query('ROLLBACK');
    await waitFor(async () => ((await api(second.url, 'GET', '/healthz')).body.recovering === undefined ? true : undefined), { timeoutMs: 30_000, describe: () => `recovery to end: ${second.stderr().slice(-2000)}` });
    // The log lines may still be on their way when /healthz says the recovery ended.
    await waitFor(async () => (second.stderr().includes('"msg":"recovered"') ? true : undefined), { timeoutMs: 10_000, describe: () => `the recovered log line in ${second.stderr().slice(-2000)}` });
    expect(second.stderr()).toContain('"msg":"could not claim runs the last stop left under way; trying again","runs":1');
    expect(second.stderr()).toContain(`"msg":"recovered","recovered":${RUNS},"of":${RUNS}`);
    model.hold = undefined;
    model.answerHeld();
    await waitFor(async () => ((await runsWithStatus(second.url, 'completed')).length === RUNS ? true : undefined), {
      timeoutMs: 120_000,
      describe: async () => `every run completed (now ${(await runsWithStatus(second.url, 'completed')).length}, failed ${(await runsWithStatus(second.url, 'failed')).length})`,
    });
    const events = await readEventStream(second.url, (all) => all.filter((event) => event.type === 'run_completed').length === RUNS, 30_000);
    // Each call ran once. Should one not have, the failure says how: a call begun and not run ("interrupted"), or a command that failed.
    const completed = await runsWithStatus(second.url, 'completed');
    const interrupted = completed.filter((run) => run.text !== 'Appended the line.');
    const unlike = events.filter((event) => event.type === 'tool_result' && event.data.outcome !== 'ran').map((event) => event.data);
    expect(callsLogLines(project), `runs that did not run their call: ${JSON.stringify(interrupted)}; results not "ran": ${JSON.stringify(unlike).slice(0, 3000)}; the server said: ${second.stderr().slice(-3000)}`).toHaveLength(RUNS);
    const recovered = events.filter((event) => event.type === 'run_recovered');
    expect(recovered.map((event) => event.data.run_id).sort()).toEqual([...runIds].sort());
    for (const event of recovered) expect(event.data.reason).toBe('server_restarted');
  });
});
