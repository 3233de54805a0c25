/**
 * `kill -9` at any moment loses nothing, and no approved call runs twice
 * (issue 9, "Durable state"). Real parts only: `toolgate serve` as a child
 * process on a SQLite file, HTTP on loopback, the real shell tool
 * (bubblewrap when present), and the scripted model or (the kill during
 * approvals) a model on loopback that gives every call a random id, as the
 * real providers do (`random-id-model.ts`).
 *
 * Every run's one call appends one line to ws/calls.log, so the file counts
 * executions. A run's script is the same for all runs (scripts have no
 * templating), so each line must name the execution some other way: in the
 * first test the command prints a fresh random line that the run's
 * `tool_result` reports, so each line belongs to exactly one run; in the
 * second, where a killed call leaves a line no `tool_result` names, the
 * approver edits the command to append the run's own id.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
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
import { servedBy, startRandomIdModel, type RandomIdModel } from './random-id-model.ts';

const RUNS = 1000;
const CONCURRENCY = 32;
const SCRIPT = 'append-once.yaml';
const TEST_TIMEOUT_MS = 400_000;

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** The model a test's servers drive their runs with: the scripted one, or one on loopback that gives random ids. */
type ModelChoice = { kind: 'scripted' } | { kind: 'random ids'; model: RandomIdModel };

async function start(project: ServerProject, choice: ModelChoice = { kind: 'scripted' }): Promise<ServerProcess> {
  const server = await startServerProcess({ project, ...(choice.kind === 'scripted' ? { script: SCRIPT } : servedBy(choice.model)) });
  cleanup.push(() => server.kill9());
  return server;
}

function newProject(): ServerProject {
  const project = createServerProject({ policy: 'crash-policy.yaml' });
  cleanup.push(() => rmSync(project.directory, { recursive: true, force: true }));
  return project;
}

/** Starts `count` runs over HTTP and waits until every one waits for approval. */
async function createPausedRuns(server: ServerProcess, count: number): Promise<string[]> {
  const runIds = await inParallel(Array.from({ length: count }), CONCURRENCY, async (_, index) => {
    const created = await api(server.url, 'POST', '/runs', { input: `Append your line (run ${index + 1} of ${count}).` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.status).toBe('running');
    return created.body.run_id as string;
  });
  expect(new Set(runIds).size).toBe(count);
  await waitFor(
    async () => {
      const paused = await runsWithStatus(server.url, 'paused_checkpoint');
      return paused.length === count ? paused : undefined;
    },
    { timeoutMs: 120_000, describe: async () => `${count} paused runs (paused now: ${(await runsWithStatus(server.url, 'paused_checkpoint')).length}, failed: ${(await runsWithStatus(server.url, 'failed')).length})` },
  );
  return runIds;
}

/** Waits until no run is running or paused, and returns every run by id. */
async function waitUntilAllEnded(server: ServerProcess, count: number): Promise<Map<string, { status: string; text: string | null }>> {
  await waitFor(
    async () => {
      const active = (await runsWithStatus(server.url, 'running')).length + (await runsWithStatus(server.url, 'paused_checkpoint')).length;
      return active === 0 ? true : undefined;
    },
    {
      timeoutMs: 180_000,
      describe: async () => `every run to end (running: ${(await runsWithStatus(server.url, 'running')).length}, paused: ${(await runsWithStatus(server.url, 'paused_checkpoint')).length})`,
    },
  );
  const all = await api(server.url, 'GET', '/runs?limit=10000');
  expect(all.status).toBe(200);
  expect(all.body.runs).toHaveLength(count);
  return new Map((all.body.runs as Array<{ run_id: string; status: string; text: string | null }>).map((run) => [run.run_id, run]));
}

/** Every event of every run, read over `GET /events` from the first, until each run has its `run_completed`. */
async function eventsByRun(server: ServerProcess, runIds: readonly string[]): Promise<Map<string, StreamedEvent[]>> {
  const wanted = new Set(runIds);
  const completed = new Set<string>();
  let read = 0;
  const events = await readEventStream(
    server.url,
    (all) => {
      for (; read < all.length; read++) if (all[read]!.type === 'run_completed') completed.add(String(all[read]!.data.run_id));
      return [...wanted].every((runId) => completed.has(runId));
    },
    60_000,
  );
  const byRun = new Map<string, StreamedEvent[]>(runIds.map((runId) => [runId, []]));
  for (const event of events) {
    expect(typeof event.data.run_id, `event ${event.id} (${event.type}) has no run_id`).toBe('string');
    byRun.get(event.data.run_id)?.push(event);
  }
  return byRun;
}


function typesOf(events: readonly StreamedEvent[]): string[] {
  return events.map((event) => event.type);
}

/** The types in `expected` appear in `events` in this order (others may come between). */
function expectInOrder(runId: string, events: readonly StreamedEvent[], expected: readonly string[]): void {
  let at = 0;
  for (const event of events) if (event.type === expected[at]) at++;
  expect(at, `run ${runId}'s events ${typesOf(events).join(', ')} lack ${expected.slice(at).join(', ')} in order`).toBe(expected.length);
}

describe('toolgate serve killed with kill -9', () => {
  it(
    `keeps ${RUNS} paused runs across a kill -9; approved after the restart, every call runs exactly once`,
    async () => {
      const project = newProject();
      const first = await start(project);
      const runIds = await createPausedRuns(first, RUNS);
      expect(callsLogLines(project), 'a call ran before anyone approved it').toEqual([]);

      await first.kill9();
      const second = await start(project);
      const recovered = await waitFor(async () => /"msg":"listening".*"recovering":(\d+)/.exec(second.stderr())?.[1], { timeoutMs: 10_000, describe: () => `the listening log line in ${second.stderr()}` });
      expect(recovered).toBe('0');
      // Everything is still paused, and the inbox lists every call.
      expect((await runsWithStatus(second.url, 'paused_checkpoint')).map((run) => run.run_id).sort()).toEqual([...runIds].sort());
      const inbox = await api(second.url, 'GET', '/approvals');
      expect(inbox.status).toBe(200);
      expect((inbox.body.approvals as Array<{ run_id: string }>).map((approval) => approval.run_id).sort()).toEqual([...runIds].sort());

      const answers = await inParallel(runIds, CONCURRENCY, (runId) => api(second.url, 'POST', `/runs/${runId}/approve`, { approved: true }));
      for (const answer of answers) {
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(answer.body).toMatchObject({ status: 'approved', message: 'Tool execution approved and resumed', run_status: 'running' });
      }

      const runs = await waitUntilAllEnded(second, RUNS);
      const byRun = await eventsByRun(second, runIds);
      const lines = callsLogLines(project);
      // As many executions as runs, each a different line...
      expect(lines).toHaveLength(RUNS);
      const lineCounts = new Map<string, number>();
      for (const line of lines) lineCounts.set(line.trim(), (lineCounts.get(line.trim()) ?? 0) + 1);
      expect(lineCounts.size).toBe(RUNS);
      // ...and each the one its run reports: every run's call executed exactly once.
      const claimed = new Set<string>();
      for (const runId of runIds) {
        const run = runs.get(runId)!;
        expect(run.status, `run ${runId}`).toBe('completed');
        expect(run.text).toBe('Appended one line to ws/calls.log.');
        const events = byRun.get(runId)!;
        expectInOrder(runId, events, ['run_started', 'checkpoint_required', 'run_paused', 'approval_decided', 'run_resumed', 'tool_result', 'run_completed']);
        const results = events.filter((event) => event.type === 'tool_result');
        expect(results, `run ${runId}'s tool results`).toHaveLength(1);
        expect(results[0]!.data).toMatchObject({ tool_call_id: 'tg_1_1', tool_name: 'shell', outcome: 'ran' });
        const printed = String(results[0]!.data.output.stdout).trim();
        expect(lineCounts.get(printed), `run ${runId} printed ${JSON.stringify(printed)}`).toBe(1);
        expect(claimed.has(printed), `two runs report the line ${printed}`).toBe(false);
        claimed.add(printed);
        expect(typesOf(events)).not.toContain('run_recovered');
      }
    },
    TEST_TIMEOUT_MS,
  );

  it.each(['scripted', 'random ids'] as const)(
    `killed while approvals of ${RUNS} runs are in flight (%s model): every call runs at most once, and each that may not have completed is reported interrupted`,
    async (kind) => {
      const project = newProject();
      let choice: ModelChoice = { kind: 'scripted' };
      if (kind === 'random ids') {
        // The scripted model's command and answers, under a fresh random id per call.
        const model = await startRandomIdModel({
          commands: ['od -An -N16 -tx8 /dev/urandom | tee -a calls.log'],
          answers: { done: 'Appended one line to ws/calls.log.', interrupted: 'My shell call was interrupted before the server stopped; I did not run it again.' },
        });
        cleanup.push(() => model.close());
        choice = { kind, model };
      }
      const first = await start(project, choice);
      const runIds = await createPausedRuns(first, RUNS);
      // The approver edits each command to append the run's own id. Half append and then take a
      // moment; half take a moment and then append: a kill leaves calls of both kinds executing.
      const commandOf = (runId: string, index: number) =>
        index % 2 === 0 ? `echo ${runId} | tee -a calls.log; sleep 0.3` : `sleep 0.3; echo ${runId} | tee -a calls.log`;
      const indexOf = new Map(runIds.map((runId, index) => [runId, index]));
      const approve = (server: ServerProcess, runId: string) =>
        api(server.url, 'POST', `/runs/${runId}/approve`, { approved: true, edited_args: { command: commandOf(runId, indexOf.get(runId)!) } });

      let answered = 0;
      let killed: Promise<void> | undefined;
      let dead = false;
      const inFlightAtKill: string[] = [];
      const inFlight = new Set<string>();
      // The kill lands while a call is surely executing: right after an even run's line appears in
      // calls.log, that call sleeps 0.3 s more. Approvals go on meanwhile, so some are in flight too.
      const killWhileExecuting = async () => {
        let seen = callsLogLines(project).length;
        await waitFor(
          async () => {
            const lines = callsLogLines(project);
            const fresh = lines.slice(seen).some((line) => (indexOf.get(line) ?? 1) % 2 === 0);
            seen = lines.length;
            return fresh && inFlight.size > 0 ? true : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 5, describe: () => 'a call that has begun and not yet ended, with approvals in flight' },
        );
        inFlightAtKill.push(...inFlight);
        dead = true;
        await first.kill9();
      };
      await inParallel(runIds, CONCURRENCY, async (runId) => {
        if (dead) return;
        inFlight.add(runId);
        try {
          const answer = await approve(first, runId);
          expect(answer.status, JSON.stringify(answer.body)).toBe(200);
          answered++;
        } catch (error) {
          // Only the kill may break a request.
          if (!dead) throw error;
        } finally {
          inFlight.delete(runId);
        }
        if (answered >= RUNS / 2 && killed === undefined) killed = killWhileExecuting();
      });
      await killed;
      expect(inFlightAtKill.length, 'no approval was in flight when the server was killed').toBeGreaterThan(0);

      const second = await start(project, choice);
      // Runs that were resuming when the kill landed are driven on by the new process.
      const recovered = await waitFor(async () => /"msg":"listening".*"recovering":(\d+)/.exec(second.stderr())?.[1], { timeoutMs: 10_000, describe: () => `the listening log line in ${second.stderr()}` });
      expect(Number(recovered)).toBeGreaterThan(0);
      // Whatever is still paused is approved now (through the same edit).
      const stillPaused = await runsWithStatus(second.url, 'paused_checkpoint');
      expect(stillPaused.length).toBeGreaterThan(0);
      const answers = await inParallel(stillPaused, CONCURRENCY, async (run) => ({ runId: run.run_id, answer: await approve(second, run.run_id) }));
      for (const { runId, answer } of answers) {
        expect(answer.status, `approving run ${runId} after the restart: ${JSON.stringify(answer.body)}`).toBe(200);
        expect(answer.body).toMatchObject({ status: 'approved', run_status: 'running' });
      }

      const runs = await waitUntilAllEnded(second, RUNS);
      expect(await runsWithStatus(second.url, 'running')).toEqual([]);
      const byRun = await eventsByRun(second, runIds);
      const executions = new Map<string, number>();
      for (const line of callsLogLines(project)) executions.set(line.trim(), (executions.get(line.trim()) ?? 0) + 1);
      expect([...executions.keys()].filter((key) => !indexOf.has(key)), 'lines that name no run').toEqual([]);

      let interrupted = 0;
      for (const runId of runIds) {
        const run = runs.get(runId)!;
        const events = byRun.get(runId)!;
        const results = events.filter((event) => event.type === 'tool_result' && event.data.tool_call_id === 'tg_1_1');
        const times = executions.get(runId) ?? 0;
        // At most once, whatever happened.
        expect(times, `run ${runId}'s call executed ${times} times`).toBeLessThanOrEqual(1);
        expect(run.status, `run ${runId}: ${JSON.stringify(run)}`).toBe('completed');
        expectInOrder(runId, events, ['run_started', 'checkpoint_required', 'run_paused', 'approval_decided', 'run_resumed', 'run_completed']);
        expect(results.length, `run ${runId}'s tool results: ${JSON.stringify(results)}`).toBeLessThanOrEqual(1);
        const outcome = results[0]?.data.outcome;
        if (outcome === 'interrupted') {
          interrupted++;
          expect(String(results[0]!.data.error)).toContain('interrupted');
          expect(run.text, `run ${runId}`).toContain('interrupted');
          const view = await api(second.url, 'GET', `/runs/${runId}`);
          expect(view.body.text).toContain('interrupted');
          continue;
        }
        // Not reported interrupted: then it completed, exactly once.
        expect(times, `run ${runId} is not reported interrupted but its call ${times === 0 ? 'never ran' : 'ran'}; events: ${typesOf(events).join(', ')}`).toBe(1);
        expect(run.text).toBe('Appended one line to ws/calls.log.');
        if (outcome !== undefined) expect(outcome).toBe('ran');
      }
      // The kill landed on an executing call (each takes 0.3 s), so at least that one is reported interrupted.
      expect(interrupted).toBeGreaterThan(0);
      const ran = [...executions.values()].length;
      console.info(`kill -9 with ${inFlightAtKill.length} approvals in flight: ${recovered} runs recovered, ${stillPaused.length} approved after the restart, ${interrupted} calls reported interrupted, ${ran} executed (each once)`);
    },
    TEST_TIMEOUT_MS,
  );
});
