/**
 * Three `toolgate serve` processes on one PostgreSQL database (issue 10):
 * runs started on one are approved on another, one server is killed with
 * `kill -9` while approvals are in flight, and its runs are taken over by the
 * others once its lease runs out. Every run finishes, no call runs twice
 * (a call the dead server was executing is reported interrupted, never run
 * again), and an SSE client that reconnects to another server with
 * `Last-Event-ID` misses no event and sees none twice.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase } from './postgres-server.ts';
import {
  api,
  callsLogLines,
  createServerProject,
  inParallel,
  readEventStream,
  runsWithStatus,
  startServerProcess,
  waitFor,
  type ServerProcess,
  type ServerProject,
  type StreamedEvent,
} from './server-harness.ts';

const RUNS = 300;
const SERVERS = 3;

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});


describe('several toolgate serve processes on one PostgreSQL database', () => {
  it(`finish ${RUNS} runs approved across servers, one of them killed with kill -9 mid-way: no call twice, no event missed`, { timeout: 400_000 }, async () => {
    const database = await freshDatabase();
    cleanup.push(() => database.drop());
    const base = createServerProject({ policy: 'multi-instance-policy.yaml' });
    cleanup.push(() => rmSync(base.directory, { recursive: true, force: true }));
    const project: ServerProject = { ...base, storeFile: database.url };
    const servers: ServerProcess[] = [];
    for (let index = 0; index < SERVERS; index++) {
      const server = await startServerProcess({ project, script: 'append-once.yaml' });
      cleanup.push(() => server.kill9());
      servers.push(server);
    }

    // Runs start on every server in turn, and all of them are seen paused from any server.
    const runIds = await inParallel(Array.from({ length: RUNS }), 12, async (_, index) => {
      const created = await api(servers[index % SERVERS]!.url, 'POST', '/runs', { input: `Append your line (run ${index + 1}).` });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.run_id as string;
    });
    await waitFor(async () => ((await runsWithStatus(servers[1]!.url, 'paused_checkpoint')).length === RUNS ? true : undefined), {
      timeoutMs: 180_000,
      describe: async () => `${RUNS} paused runs (now ${(await runsWithStatus(servers[1]!.url, 'paused_checkpoint')).length})`,
    });
    expect(callsLogLines(project)).toEqual([]);

    // A stream on the first server, read until a third of the runs' events are in.
    const early = await readEventStream(servers[0]!.url, (events) => events.filter((event) => event.type === 'run_paused').length >= RUNS / 3, 60_000);

    // Each run is approved on a server other than the one that started it; the third server dies a third of the way in.
    const victim = servers[2]!;
    let answered = 0;
    let killed: Promise<void> | undefined;
    await inParallel(runIds, 12, async (runId, index) => {
      const living = killed === undefined ? servers : servers.slice(0, 2);
      const target = living[(index + 1) % living.length]!;
      let answer: Awaited<ReturnType<typeof api>>;
      try {
        answer = await api(target.url, 'POST', `/runs/${runId}/approve`, { approved: true });
      } catch (error) {
        // A request in flight to the victim when it died: its run is approved below, elsewhere.
        if (target === victim && killed !== undefined) return;
        throw error;
      }
      if (target === victim && killed !== undefined) return;
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      if (++answered === Math.floor(RUNS / 3)) killed = victim.kill9();
    });
    await killed;
    // What the victim never answered is still pending: approved on the others.
    for (const approval of (await api(servers[0]!.url, 'GET', '/approvals')).body.approvals as Array<{ run_id: string }>) {
      await api(servers[(approval.run_id.length % 2)]!.url, 'POST', `/runs/${approval.run_id}/approve`, { approved: true });
    }

    // The victim's runs are taken over once its lease (3 s) runs out: every run ends.
    await waitFor(
      async () => {
        const ended = (await runsWithStatus(servers[0]!.url, 'completed')).length;
        return ended === RUNS ? true : undefined;
      },
      {
        timeoutMs: 180_000,
        describe: async () =>
          `every run completed (completed ${(await runsWithStatus(servers[0]!.url, 'completed')).length}, running ${(await runsWithStatus(servers[0]!.url, 'running')).length}, paused ${(await runsWithStatus(servers[0]!.url, 'paused_checkpoint')).length}, failed ${(await runsWithStatus(servers[0]!.url, 'failed')).length}); victim stderr: ${victim.stderr().slice(-2000)}`,
      },
    );

    // The stream, continued on the second server from the last id the first one gave.
    const lastSeen = early.at(-1)!.id;
    const completedIn = (events: StreamedEvent[]) => new Set(events.filter((event) => event.type === 'run_completed').map((event) => event.data.run_id)).size;
    const rest = await readEventStream(servers[1]!.url, (events) => completedIn([...early, ...events]) === RUNS, 60_000, lastSeen);
    const whole = await readEventStream(servers[0]!.url, (events) => completedIn(events) === RUNS, 60_000);
    const stitched = [...early, ...rest];
    expect(stitched.map((event) => event.id)).toEqual(whole.slice(0, stitched.length).map((event) => event.id));
    expect(new Set(stitched.map((event) => event.id)).size).toBe(stitched.length);

    // No call ran twice: every line in the log is a different execution, each reported by at most one run,
    // and a run whose call the dead server was executing says interrupted rather than running it again.
    const lines = callsLogLines(project);
    expect(new Set(lines).size).toBe(lines.length);
    const results = whole.filter((event) => event.type === 'tool_result');
    const byRun = new Map<string, StreamedEvent[]>();
    for (const result of results) byRun.set(result.data.run_id, [...(byRun.get(result.data.run_id) ?? []), result]);
    let interrupted = 0;
    for (const runId of runIds) {
      const own = byRun.get(runId) ?? [];
      expect(own, `run ${runId}'s tool results; its events: ${JSON.stringify(whole.filter((event) => event.data.run_id === runId).map((event) => [event.type, event.data.reason ?? event.data.outcome ?? '']))}`).toHaveLength(1);
      if (own[0]!.data.outcome === 'interrupted') {
        interrupted++;
        continue;
      }
      expect(own[0]!.data.outcome).toBe('ran');
      expect(lines).toContain(String(own[0]!.data.output.stdout).trim());
    }
    expect(lines.length).toBeGreaterThanOrEqual(RUNS - interrupted);
    expect(lines.length).toBeLessThanOrEqual(RUNS);
    const recovered = whole.filter((event) => event.type === 'run_recovered');
    for (const event of recovered) expect(event.data.reason).toBe('instance_lost');
    // The killed server had runs under way (approvals go to it 12 at a time): the takeover was exercised (9-11 runs here).
    expect(recovered.length, 'runs taken over from the killed server').toBeGreaterThan(0);
  });
});
