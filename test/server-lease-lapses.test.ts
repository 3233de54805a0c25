/**
 * Servers sharing a PostgreSQL database, when a server's lease lapses while
 * it is alive and answering (issue 51): a slow machine, a busy pool, a
 * renewal held up. Each case forces its timing with the database's own
 * locks instead of hoping for a busy machine: a row lock on the server's
 * `instances` row holds its renewal up (its lease runs out for real while
 * it serves), and a table lock holds every query of its pool.
 *
 * What must hold: a person's approval, answered 200, always resumes the run,
 * exactly once, whichever server's lease lapsed; a server busy with its
 * queries keeps its lease.
 */
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase } from './postgres-server.ts';
import { servedBy, startRandomIdModel } from './random-id-model.ts';
import { api, callsLogLines, createServerProject, inParallel, readEventStream, runsWithStatus, startServerProcess, waitFor, type ServerProcess, type ServerProject } from './server-harness.ts';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** The lease of multi-instance-policy.yaml (`server.instance_lease`). */
const LEASE_MS = 3000;

async function sharedProject(): Promise<ServerProject & { database: string }> {
  const database = await freshDatabase();
  cleanup.push(() => database.drop());
  const project = createServerProject({ policy: 'multi-instance-policy.yaml' });
  cleanup.push(() => rmSync(project.directory, { recursive: true, force: true }));
  return { ...project, storeFile: database.url, database: database.url };
}

async function start(project: ServerProject): Promise<ServerProcess> {
  const server = await startServerProcess({ project, script: 'append-once.yaml' });
  cleanup.push(() => server.kill9());
  return server;
}

/** A connection of the test's own to the servers' database. */
async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, options: '-c search_path=toolgate' });
  await client.connect();
  cleanup.push(() => client.end().catch(() => undefined));
  return client;
}

/** The instance id of the server process (`<host>-<pid>-<random>`), from the leases table. */
async function instanceOf(client: pg.Client, server: ServerProcess): Promise<string> {
  const rows = (await client.query<{ instance_id: string }>('SELECT instance_id FROM instances WHERE instance_id LIKE $1', [`%-${server.pid}-%`])).rows;
  expect(rows, `the lease of server ${server.pid}`).toHaveLength(1);
  return rows[0]!.instance_id;
}

async function leaseAlive(client: pg.Client, instance: string): Promise<boolean> {
  return (await client.query<{ alive: boolean }>('SELECT expires_at > now() AS alive FROM instances WHERE instance_id = $1', [instance])).rows[0]?.alive === true;
}

/** Waits until a statement of the servers' waits on a lock, on a query that mentions `table`. */
async function waitingOnLock(reader: pg.Client, table: string, count = 1): Promise<void> {
  await waitFor(
    async () => {
      const waiting = (await reader.query<{ count: number }>("SELECT count(*)::int AS count FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [`%${table}%`])).rows[0]!.count;
      return waiting >= count ? true : undefined;
    },
    { timeoutMs: 20_000, describe: () => `${count} statement(s) on ${table} waiting on the test's lock` },
  );
}

/**
 * Holds up the renewals of `instance`'s lease (a row lock its renewal waits
 * for) until the lease has run out; returns how to let them go.
 */
async function lapseLease(url: string, instance: string): Promise<() => Promise<void>> {
  const holder = await connect(url);
  await holder.query('BEGIN');
  await holder.query('SELECT 1 FROM instances WHERE instance_id = $1 FOR UPDATE', [instance]);
  const reader = await connect(url);
  await waitFor(async () => ((await leaseAlive(reader, instance)) ? undefined : true), { timeoutMs: LEASE_MS * 3, describe: () => `the lease of ${instance} to run out` });
  return async () => {
    await holder.query('ROLLBACK');
  };
}

async function createPausedRuns(server: ServerProcess, count: number): Promise<string[]> {
  const runIds = await inParallel(Array.from({ length: count }), 4, async (_, index) => {
    const created = await api(server.url, 'POST', '/runs', { input: `Append your line (run ${index + 1}).` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.run_id as string;
  });
  await waitFor(async () => ((await runsWithStatus(server.url, 'paused_checkpoint')).length >= count ? true : undefined), {
    timeoutMs: 60_000,
    describe: async () => `${count} paused runs (now ${(await runsWithStatus(server.url, 'paused_checkpoint')).length})`,
  });
  return runIds;
}

async function waitCompleted(server: ServerProcess, runIds: readonly string[]): Promise<void> {
  await waitFor(
    async () => {
      const completed = new Set((await runsWithStatus(server.url, 'completed')).map((run) => run.run_id));
      return runIds.every((runId) => completed.has(runId)) ? true : undefined;
    },
    {
      timeoutMs: 60_000,
      describe: async () =>
        `runs ${runIds.join(', ')} completed; completed ${(await runsWithStatus(server.url, 'completed')).length}, paused ${(await runsWithStatus(server.url, 'paused_checkpoint')).length}, running ${(await runsWithStatus(server.url, 'running')).length}, failed ${JSON.stringify(await runsWithStatus(server.url, 'failed'))}`,
    },
  );
}

describe('a server whose lease lapses while it serves', () => {
  it('approvals it answers while its lease has lapsed resume their runs, once: another server resumes what its claim could not', { timeout: 120_000 }, async () => {
    const project = await sharedProject();
    const lapsing = await start(project);
    const other = await start(project);
    const runIds = await createPausedRuns(lapsing, 3);
    const reader = await connect(project.database);
    const instance = await instanceOf(reader, lapsing);
    const release = await lapseLease(project.database, instance);

    // The person's decisions are recorded and answered; the claim that would resume each run needs a live lease.
    for (const runId of runIds) {
      const answer = await api(lapsing.url, 'POST', `/runs/${runId}/approve`, { approved: true });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    }
    // Nobody is left waiting on a run a person approved: the other server resumes them, while this one's lease is still out.
    await waitCompleted(other, runIds);
    expect(await leaseAlive(reader, instance), 'the lapsed lease was still out when the runs completed').toBe(false);
    expect(other.stderr()).toContain('resumed decided runs nobody had resumed');
    const lines = callsLogLines(project);
    expect(lines).toHaveLength(runIds.length);
    expect(new Set(lines).size).toBe(runIds.length);

    // Its renewal let go, the server serves as before.
    await release();
    await waitFor(async () => ((await leaseAlive(reader, instance)) ? true : undefined), { timeoutMs: LEASE_MS * 3, describe: () => 'the lease renewed' });
    const [later] = await createPausedRuns(lapsing, 1);
    expect((await api(lapsing.url, 'POST', `/runs/${later}/approve`, { approved: true })).status).toBe(200);
    await waitCompleted(lapsing, [later!]);
    expect(callsLogLines(project)).toHaveLength(runIds.length + 1);
    for (const server of [lapsing, other]) {
      expect((await runsWithStatus(server.url, 'failed')).length).toBe(0);
    }
  });

  it('approvals answered by a server alone, whose lease lapsed, resume once its renewal goes through', { timeout: 120_000 }, async () => {
    const project = await sharedProject();
    const alone = await start(project);
    const runIds = await createPausedRuns(alone, 2);
    const reader = await connect(project.database);
    const release = await lapseLease(project.database, await instanceOf(reader, alone));
    for (const runId of runIds) expect((await api(alone.url, 'POST', `/runs/${runId}/approve`, { approved: true })).status).toBe(200);
    // Decided, and not resumed: its claim was refused with its lease out.
    expect((await runsWithStatus(alone.url, 'paused_checkpoint')).map((run) => run.run_id).sort()).toEqual([...runIds].sort());
    expect((await api(alone.url, 'GET', '/approvals')).body.approvals).toEqual([]);
    await release();
    await waitCompleted(alone, runIds);
    expect(callsLogLines(project)).toHaveLength(runIds.length);
  });

  it('keeps its lease while every connection of its pool waits on the database', { timeout: 120_000 }, async () => {
    const project = await sharedProject();
    const busy = await start(project);
    await start(project);
    const reader = await connect(project.database);
    const instance = await instanceOf(reader, busy);
    // Every query that reads approvals waits: more of them than the pool has connections (10).
    const holder = await connect(project.database);
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE approvals IN ACCESS EXCLUSIVE MODE');
    const stuck = Promise.all(Array.from({ length: 14 }, () => api(busy.url, 'GET', '/approvals')));
    await waitingOnLock(reader, 'approvals', 10);
    // Longer than the lease: a renewal queued behind the pool would have let it run out.
    const deadline = Date.now() + LEASE_MS * 1.5;
    while (Date.now() < deadline) {
      expect(await leaseAlive(reader, instance), 'the lease of a server whose pool is busy').toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await holder.query('ROLLBACK');
    for (const answer of await stuck) expect(answer.status).toBe(200);
  });

  it('a drive refused by the store because its lease lapsed stops: the model is never told of a failure that did not happen, and the run goes on once, not failed', { timeout: 120_000 }, async () => {
    const database = await freshDatabase();
    cleanup.push(() => database.drop());
    const base = createServerProject({ policy: 'random-ids-shared-policy.yaml' });
    cleanup.push(() => rmSync(base.directory, { recursive: true, force: true }));
    const project: ServerProject = { ...base, storeFile: database.url };
    const model = await startRandomIdModel({ commands: ['od -An -N8 -tx8 /dev/urandom | tee -a calls.log'] });
    cleanup.push(() => model.close());
    const server = await startServerProcess({ project, ...servedBy(model) });
    cleanup.push(() => server.kill9());
    const reader = await connect(database.url);
    const instance = await instanceOf(reader, server);

    // The model's first answer waits while the test takes a lock on the run's events: the drive then stops
    // just before its call begins (at the call's tool_call event), for as long as the test wants.
    model.hold = (request) => !request.hasToolResult;
    const asked = model.nextHeld();
    const created = await api(server.url, 'POST', '/runs', { input: 'Append your line.' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runId = created.body.run_id as string;
    await asked;
    const events = await connect(database.url);
    await events.query('BEGIN');
    await events.query('LOCK TABLE events IN SHARE MODE');
    model.hold = undefined;
    model.answerHeld();
    await waitingOnLock(reader, 'events');
    // Its lease runs out there; let go, the drive reaches its call with no lease: the store refuses it.
    const release = await lapseLease(database.url, instance);
    model.hold = (request) => request.hasToolResult;
    const toldAfterRefusal = model.nextHeld();
    await events.query('COMMIT');
    const stopped = 'stopped driving a run this server can no longer write';
    const what = await Promise.race([
      toldAfterRefusal.then(() => 'the model was asked again'),
      waitFor(async () => (server.stderr().includes(stopped) ? 'stopped' : undefined), { timeoutMs: 30_000, describe: () => `"${stopped}" in ${server.stderr()}` }),
    ]);
    // The renewal goes through. (Had the drive gone on, its next write would land now, with the model's answer to a refusal.)
    await release();
    await waitFor(async () => ((await leaseAlive(reader, instance)) ? true : undefined), { timeoutMs: LEASE_MS * 3, describe: () => 'the lease renewed' });
    model.hold = undefined;
    model.answerHeld();
    expect(what).toBe('stopped');

    // The server takes its own run up again from its journal: the recorded answer is replayed, the call runs once.
    await waitCompleted(server, [runId]);
    for (const request of model.requests) expect(request.text).not.toContain('may no longer');
    expect(callsLogLines(project)).toHaveLength(1);
    const history = await api(server.url, 'GET', `/runs/${runId}`);
    expect(history.body.status).toBe('completed');
    expect(model.requests.filter((request) => !request.hasToolResult), 'the model was asked for its first answer again').toHaveLength(1);
  });

  it('a decision written straight into the database is resumed by the takeover as a refusal: the sweep runs nothing nobody signed', { timeout: 120_000 }, async () => {
    const project = await sharedProject();
    const server = await start(project);
    const [runId] = await createPausedRuns(server, 1);
    const attacker = await connect(project.database);
    // As anyone who can write the database could: every call of the pause "decided", no claim, nobody resuming it.
    const forged = { approved: true, reason: null, scope: 'once', decidedBy: 'mallory', decidedAt: new Date().toISOString() };
    expect((await attacker.query('UPDATE approvals SET decision = $1 WHERE run_id = $2', [JSON.stringify(forged), runId])).rowCount).toBe(1);
    await waitFor(async () => (['completed', 'cancelled', 'failed'].includes((await api(server.url, 'GET', `/runs/${runId}`)).body.status) ? true : undefined), {
      timeoutMs: 30_000,
      describe: async () => `run ${runId} to end: ${JSON.stringify((await api(server.url, 'GET', `/runs/${runId}`)).body)}`,
    });
    expect(server.stderr()).toContain('resumed decided runs nobody had resumed');
    expect(callsLogLines(project), 'the forged approval ran its call').toEqual([]);
    const events = await readEventStream(server.url, (all) => all.some((event) => event.type === 'run_completed' && event.data.run_id === runId), 30_000);
    const refused = events.filter((event) => event.type === 'decision_refused');
    expect(refused.map((event) => event.data.claimed_decided_by)).toEqual(['mallory']);
    expect(events.find((event) => event.type === 'tool_result')?.data.outcome).toBe('denied');
  });
});
