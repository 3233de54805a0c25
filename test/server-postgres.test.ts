/**
 * `toolgate serve --store postgres://...` as real processes on a real
 * PostgreSQL server: paused runs survive a `kill -9`, every approved call
 * runs exactly once after the restart, tokens made with `toolgate token` on
 * the same database work, a second server on the database serves the same
 * runs, and a database that cannot be reached is a 503 that nothing was
 * decided on, until it is back.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase } from './postgres-server.ts';
import { api, callsLogLines, createServerProject, inParallel, NODE, ROOT, runsWithStatus, startServerProcess, waitFor, type ServerProcess, type ServerProject } from './server-harness.ts';

const RUNS = 40;
/** The backends of the test's database, other than the asking one, waiting on a lock. */
const WAITING_ON_LOCK = "SELECT pid, query FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()";
const run = promisify(execFile);

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A project whose store is a new database on the test server. */
async function postgresProject(policy = 'crash-policy.yaml'): Promise<ServerProject> {
  const database = await freshDatabase();
  const project = createServerProject({ policy });
  cleanup.push(() => rmSync(project.directory, { recursive: true, force: true }));
  cleanup.push(() => database.drop());
  return { ...project, storeFile: database.url };
}

async function start(project: ServerProject): Promise<ServerProcess> {
  const server = await startServerProcess({ project, script: 'append-once.yaml' });
  cleanup.push(() => server.kill9());
  return server;
}


describe('toolgate serve on PostgreSQL', () => {
  it(`keeps ${RUNS} paused runs across a kill -9; approved after the restart, every call runs exactly once`, { timeout: 300_000 }, async () => {
    const project = await postgresProject();
    const first = await start(project);
    // Its stderr comes through another pipe than the listening line: it may arrive a moment later.
    const keptIn = `runs are kept in ${project.storeFile} (with "approve always" and the audit trail: every server on it shares them)`;
    await waitFor(async () => (first.stderr().includes(keptIn) ? true : undefined), { timeoutMs: 10_000, describe: async () => `stderr saying ${keptIn}: ${first.stderr()}` });
    const runIds = await inParallel(Array.from({ length: RUNS }), 8, async (_, index) => {
      const created = await api(first.url, 'POST', '/runs', { input: `Append your line (run ${index + 1}).` });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.run_id as string;
    });
    await waitFor(async () => ((await runsWithStatus(first.url, 'paused_checkpoint')).length === RUNS ? true : undefined), {
      timeoutMs: 120_000,
      describe: async () => `${RUNS} paused runs (now ${(await runsWithStatus(first.url, 'paused_checkpoint')).length})`,
    });

    // A second server on the same database serves the same runs.
    const second = await start(project);
    expect((await runsWithStatus(second.url, 'paused_checkpoint')).map((run) => run.run_id).sort()).toEqual([...runIds].sort());

    await first.kill9();
    await second.kill9();
    // Both gone: a new server starts at once, and finds everything paused.
    const restarted = await start(project);
    expect((await runsWithStatus(restarted.url, 'paused_checkpoint')).map((run) => run.run_id).sort()).toEqual([...runIds].sort());
    const inbox = await api(restarted.url, 'GET', '/approvals');
    expect((inbox.body.approvals as Array<{ run_id: string }>).map((approval) => approval.run_id).sort()).toEqual([...runIds].sort());

    const answers = await inParallel(runIds, 8, (runId) => api(restarted.url, 'POST', `/runs/${runId}/approve`, { approved: true }));
    for (const answer of answers) expect(answer.body).toMatchObject({ status: 'approved', run_status: 'running' });
    await waitFor(async () => ((await runsWithStatus(restarted.url, 'completed')).length === RUNS ? true : undefined), {
      timeoutMs: 120_000,
      describe: async () => `every run completed (now ${(await runsWithStatus(restarted.url, 'completed')).length})`,
    });
    const lines = callsLogLines(project);
    expect(lines).toHaveLength(RUNS);
    expect(new Set(lines).size).toBe(RUNS);
    // Every approval decided once: a second answer finds nothing left to decide, and nothing runs again.
    const again = await api(restarted.url, 'POST', `/runs/${runIds[0]}/approve`, { approved: true });
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(callsLogLines(project)).toHaveLength(RUNS);
  });

  it('"approve for session" on one server holds on another at once', { timeout: 120_000 }, async () => {
    const project = await postgresProject();
    const alpha = await start(project);
    const beta = await start(project);
    const first = await api(alpha.url, 'POST', '/runs', { input: 'Append your line.', session_id: 'shared' });
    await waitFor(async () => ((await runsWithStatus(alpha.url, 'paused_checkpoint')).length === 1 ? true : undefined), { timeoutMs: 60_000, describe: () => 'the first run paused' });
    expect((await api(alpha.url, 'POST', `/runs/${first.body.run_id}/approve`, { approved: true, scope: 'session' })).status).toBe(200);
    await waitFor(async () => ((await runsWithStatus(beta.url, 'completed')).length === 1 ? true : undefined), { timeoutMs: 60_000, describe: () => 'the first run completed' });
    // The same call in the same session, started on the other server: remembered there too, so it never pauses.
    const second = await api(beta.url, 'POST', '/runs', { input: 'Append your line.', session_id: 'shared' });
    await waitFor(async () => ((await runsWithStatus(beta.url, 'completed')).length === 2 ? true : undefined), {
      timeoutMs: 60_000,
      describe: async () => `the second run completed without a pause (paused: ${(await runsWithStatus(beta.url, 'paused_checkpoint')).length})`,
    });
    const run = await api(beta.url, 'GET', `/runs/${second.body.run_id}`);
    expect(run.body.status).toBe('completed');
    expect(callsLogLines(project)).toHaveLength(2);
    // A session of its own still asks.
    await api(beta.url, 'POST', '/runs', { input: 'Append your line.', session_id: 'other' });
    await waitFor(async () => ((await runsWithStatus(alpha.url, 'paused_checkpoint')).length === 1 ? true : undefined), { timeoutMs: 60_000, describe: () => 'the other session paused' });
  });

  it('"approve always" on one server holds on every server, a revoke with `toolgate approvals --store` reaches them all, and one audit trail holds every server\'s decisions', { timeout: 120_000 }, async () => {
    const project = await postgresProject('shared-records-policy.yaml');
    const alpha = await start(project);
    const beta = await start(project);
    const cli = (...args: string[]) => run(NODE, [path.join(ROOT, 'src/cli/main.ts'), ...args], { cwd: project.directory });
    const completed = (count: number) =>
      waitFor(async () => ((await runsWithStatus(alpha.url, 'completed')).length === count ? true : undefined), {
        timeoutMs: 60_000,
        describe: async () => `${count} runs completed (paused: ${(await runsWithStatus(alpha.url, 'paused_checkpoint')).length})`,
      });
    const paused = () => waitFor(async () => ((await runsWithStatus(beta.url, 'paused_checkpoint')).length === 1 ? true : undefined), { timeoutMs: 60_000, describe: () => 'a run paused' });

    const first = await api(alpha.url, 'POST', '/runs', { input: 'Append your line.', session_id: 'one' });
    await paused();
    expect((await api(beta.url, 'POST', `/runs/${first.body.run_id}/approve`, { approved: true, scope: 'always' })).body).toMatchObject({ status: 'approved' });
    await completed(1);
    // Another session on the server that did not take the decision (the store told it, within moments): approved
    // always, never paused. Nothing was kept beside the policy (the files there exist, empty, only so that the
    // sandbox can hide them from commands).
    await new Promise((resolve) => setTimeout(resolve, 500));
    await api(alpha.url, 'POST', '/runs', { input: 'Append your line.', session_id: 'two' });
    await completed(2);
    expect(JSON.parse(readFileSync(path.join(project.directory, '.toolgate', 'approvals.json'), 'utf8')).approvals).toEqual([]);
    expect(readFileSync(path.join(project.directory, '.toolgate', 'audit.jsonl'), 'utf8')).toBe('');

    const listed = (await cli('approvals', 'list', '--store', project.storeFile, '--json')).stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(listed).toEqual([expect.objectContaining({ tool: 'shell', payload_preview: expect.stringContaining('calls.log') })]);
    // The inbox's list reads the same store, on either server.
    const overApi = await api(alpha.url, 'GET', '/approvals/always');
    expect(overApi.body).toEqual({ where: 'the store servers share', approvals: [expect.objectContaining({ id: listed[0].id, tool: 'shell' })] });
    expect(overApi.body.approvals[0]).not.toHaveProperty('mac');
    const revoked = await cli('approvals', 'revoke', listed[0].id, '--store', project.storeFile);
    expect(revoked.stdout).toContain(`revoked ${listed[0].id}`);
    // The store tells both servers; a run started a moment later on either (here: the one that added it) asks again.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await api(beta.url, 'POST', '/runs', { input: 'Append your line.', session_id: 'three' });
    await paused();
    expect(callsLogLines(project)).toHaveLength(2);

    const trail = (await cli('audit', '--store', project.storeFile, '--json')).stdout.trim().split('\n').map((line) => JSON.parse(line));
    // Sessions are the owner's: ["admin", "one"].
    const decisions = trail.map((entry) => [JSON.parse(entry.session)[1], entry.decision, entry.source, entry.reason.split(':')[0]]);
    expect(decisions).toEqual([
      ['one', 'ask', 'policy', 'shell asks'],
      ['one', 'ask', 'policy', 'waiting for approval'],
      // Resumed on the server that took the decision: the verdict again, then the person's decision.
      ['one', 'ask', 'policy', 'shell asks'],
      ['one', 'approved', 'person', 'approved by a person always'],
      ['two', 'ask', 'policy', 'shell asks'],
      ['two', 'approved', 'memory', 'approved always (the shared store)'],
      ['three', 'ask', 'policy', 'shell asks'],
      ['three', 'ask', 'policy', 'waiting for approval'],
    ]);
    // The trail replays as any audit log through `toolgate check --batch`.
    const trailFile = path.join(project.directory, 'trail.jsonl');
    writeFileSync(trailFile, trail.map((entry) => JSON.stringify(entry)).join('\n'));
    const replayed = await cli('check', '--policy', project.policyFile, '--batch', trailFile).catch((error: { stdout: string }) => error);
    const replayedDecisions = replayed.stdout.trim().split('\n').map((line: string) => JSON.parse(line).decision);
    // Session one's call (its two verdicts) with the person's answer; two and three ask (a replay keeps no "always").
    expect(replayedDecisions).toEqual(['approved', 'approved', 'ask', 'ask']);
    const admin = new pg.Client({ connectionString: project.storeFile });
    await admin.connect();
    const writers = await admin.query('SELECT count(DISTINCT instance)::int AS servers FROM toolgate.audit');
    await admin.end();
    expect(writers.rows).toEqual([{ servers: 2 }]);
    // A SQLite store keeps no shared records: the command says where they are instead.
    await expect(cli('audit', '--store', path.join(project.directory, 'store.db'))).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('beside its policy') });
  });

  it('serves the tokens `toolgate token` made in the same database', { timeout: 120_000 }, async () => {
    const project = await postgresProject();
    const created = await run(NODE, [path.join(ROOT, 'src/cli/main.ts'), 'token', 'create', 'ci-bot', '--role', 'submitter', '--store', project.storeFile], { cwd: project.directory });
    const token = created.stdout.trim();
    expect(token.length).toBeGreaterThan(20);
    const listed = await run(NODE, [path.join(ROOT, 'src/cli/main.ts'), 'token', 'list', '--json'], { cwd: project.directory, env: { ...process.env, TOOLGATE_STORE_URL: project.storeFile } });
    expect(JSON.parse(listed.stdout.trim().split('\n')[0]!)).toMatchObject({ name: 'ci-bot', role: 'submitter' });
    const server = await start(project);
    const response = await fetch(`${server.url}/runs`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ input: 'hello' }) });
    expect(response.status).toBe(201);
  });

  it('answers 503 while the database cannot be reached, deciding nothing, and recovers by itself', { timeout: 120_000 }, async () => {
    const project = await postgresProject();
    const server = await start(project);
    const created = await api(server.url, 'POST', '/runs', { input: 'Append your line.' });
    const runId = created.body.run_id as string;
    await waitFor(async () => ((await runsWithStatus(server.url, 'paused_checkpoint')).length === 1 ? true : undefined), { timeoutMs: 60_000, describe: () => 'the run paused' });

    const name = new URL(project.storeFile).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.TOOLGATE_TEST_POSTGRES_URL });
    await admin.connect();
    cleanup.push(() => admin.end());
    // The database refuses new connections and drops the server's: as when it restarts or fails over.
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
    const refused = await api(server.url, 'POST', `/runs/${runId}/approve`, { approved: true });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toContain('the store is unavailable');
    expect(callsLogLines(project)).toEqual([]);
    expect(server.child.exitCode).toBeNull();

    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    const approved = await waitFor(
      async () => {
        const answer = await api(server.url, 'POST', `/runs/${runId}/approve`, { approved: true });
        return answer.status === 503 ? undefined : answer;
      },
      { timeoutMs: 30_000, describe: () => 'an answer other than 503 once the database is back' },
    );
    expect(approved.body).toMatchObject({ status: 'approved' });
    await waitFor(async () => ((await runsWithStatus(server.url, 'completed')).length === 1 ? true : undefined), { timeoutMs: 60_000, describe: () => 'the run completed' });
    expect(callsLogLines(project)).toHaveLength(1);
  });

  it('a connection the database ends in the middle of an approval\'s transaction: the request fails, the server lives, and the approval sent again runs the call once', { timeout: 120_000 }, async () => {
    const project = await postgresProject();
    const server = await start(project);
    const created = await api(server.url, 'POST', '/runs', { input: 'Append your line.' });
    const runId = created.body.run_id as string;
    await waitFor(async () => ((await runsWithStatus(server.url, 'paused_checkpoint')).length === 1 ? true : undefined), { timeoutMs: 60_000, describe: () => 'the run paused' });
    const holder = new pg.Client({ connectionString: project.storeFile, options: '-c search_path=toolgate' });
    await holder.connect();
    cleanup.push(() => holder.end().catch(() => undefined));
    // The approval's transaction waits on the run's row, checked out of the pool; then its backend is ended.
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM runs WHERE run_id = $1 FOR UPDATE', [runId]);
    const answer = api(server.url, 'POST', `/runs/${runId}/approve`, { approved: true });
    await waitFor(async () => ((await holder.query(WAITING_ON_LOCK)).rowCount === 1 ? true : undefined), {
      timeoutMs: 20_000,
      describe: () => 'the approval waiting on the row',
    });
    expect((await holder.query(`SELECT pg_terminate_backend(pid) FROM (${WAITING_ON_LOCK}) AS waiting`)).rowCount).toBe(1);
    await holder.query('ROLLBACK');
    const failed = await answer;
    expect(failed.status, JSON.stringify(failed.body)).toBe(503);
    expect(server.child.exitCode, `the server exited: ${server.stderr()}`).toBeNull();
    expect((await api(server.url, 'GET', '/approvals')).body.approvals).toHaveLength(1);

    expect((await api(server.url, 'POST', `/runs/${runId}/approve`, { approved: true })).body).toMatchObject({ status: 'approved' });
    await waitFor(async () => ((await runsWithStatus(server.url, 'completed')).length === 1 ? true : undefined), { timeoutMs: 60_000, describe: () => 'the run completed' });
    expect(callsLogLines(project)).toHaveLength(1);
  });

  it('refuses a server whose secret is not the one the runs in the database are sealed under', { timeout: 60_000 }, async () => {
    const project = await postgresProject();
    await start(project);
    const other = await startServerProcess({ project, script: 'append-once.yaml', env: { TOOLGATE_SERVER_SECRET: 'another-secret-0123456789abcdef-0123456789' } }).catch((error: Error) => error);
    expect(other).toBeInstanceOf(Error);
    expect((other as Error).message).toMatch(/exited \(1\) before listening/);
    expect((other as Error).message).toContain('sealed under another secret than this server\'s (TOOLGATE_SERVER_SECRET)');
    expect((other as Error).message).not.toContain('another-secret');
  });

  it('does not start on a database it cannot reach: exit 1, the reason, no password', async () => {
    const project = createServerProject({ policy: 'crash-policy.yaml' });
    cleanup.push(() => rmSync(project.directory, { recursive: true, force: true }));
    const failed = await startServerProcess({ project: { ...project, storeFile: 'postgres://toolgate:hunter2@127.0.0.1:9/none' }, script: 'append-once.yaml' }).catch((error: Error) => error);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toMatch(/exited \(1\) before listening/);
    expect((failed as Error).message).toContain('cannot be reached');
    expect((failed as Error).message).toContain('STORE_UNAVAILABLE');
    expect((failed as Error).message).not.toContain('hunter2');
  });
});
