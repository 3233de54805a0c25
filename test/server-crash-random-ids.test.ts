/**
 * Stopping `toolgate serve` mid-run with a model that behaves like the real
 * providers (issue 32): every tool call gets a fresh random id (or a
 * hostile one), and the model answers from the conversation it is sent, not
 * from a count of requests. Real parts: `toolgate serve` as child processes
 * on a SQLite file or one PostgreSQL database, the real shell tool in the
 * sandbox, and the AI SDK's providers talking to a model server on loopback
 * in the OpenAI chat, OpenAI Responses and Anthropic wire formats (JSON, as
 * `generateText` asks for it).
 *
 * Each execution of a call appends one line to ws/calls.log. Before answers
 * were recorded, recovery asked the model again, the model gave the same
 * call a new id, the ledger had never seen it, and the line was appended
 * twice.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessages, openAIChat, openAIResponses } from './provider-wire-formats.ts';
import { servedBy, startRandomIdModel, type RandomIdModel } from './random-id-model.ts';
import { freshDatabase } from './postgres-server.ts';
import { api, callsLogLines, createServerProject, readEventStream, startServerProcess, waitFor, type ServerProcess, type ServerProject, type StreamedEvent } from './server-harness.ts';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function newProject(policy = 'random-ids-policy.yaml'): ServerProject {
  const project = createServerProject({ policy });
  cleanup.push(() => rmSync(project.directory, { recursive: true, force: true }));
  return project;
}

async function serve(project: ServerProject, model: RandomIdModel): Promise<ServerProcess> {
  const server = await startServerProcess({ project, ...servedBy(model) });
  cleanup.push(() => server.kill9());
  return server;
}

async function finished(server: ServerProcess, runId: string): Promise<{ status: string; text: string | null }> {
  return waitFor(
    async () => {
      const run = await api(server.url, 'GET', `/runs/${runId}`);
      return ['completed', 'failed', 'cancelled'].includes(run.body.status) ? run.body : undefined;
    },
    { timeoutMs: 30_000, describe: async () => `run ${runId} to end: ${JSON.stringify((await api(server.url, 'GET', `/runs/${runId}`)).body)}` },
  );
}

/** The run's events, read from the server's stream until the run ended. */
async function eventsOf(server: ServerProcess, runId: string): Promise<StreamedEvent[]> {
  const events = await readEventStream(server.url, (all) => all.some((event) => event.data.run_id === runId && ['run_completed', 'run_failed', 'run_cancelled'].includes(event.type)), 10_000);
  return events.filter((event) => event.data.run_id === runId);
}

/** Each call's outcome, by toolgate's id (calls of one answer run side by side, so they end in any order). */
function resultsOf(events: StreamedEvent[]): Array<[string, string]> {
  return events
    .filter((event) => event.type === 'tool_result')
    .map((event): [string, string] => [event.data.tool_call_id as string, event.data.outcome as string])
    .sort(([a], [b]) => a.localeCompare(b));
}

async function pausedOn(server: ServerProcess, runId: string): Promise<void> {
  await waitFor(async () => ((await api(server.url, 'GET', `/runs/${runId}`)).body.status === 'paused_checkpoint' ? true : undefined), {
    timeoutMs: 20_000,
    describe: async () => `run ${runId} to pause: ${JSON.stringify((await api(server.url, 'GET', `/runs/${runId}`)).body)}; ${server.stderr()}`,
  });
}

/** How the first server goes away: `kill -9`, or a clean stop (SIGTERM, as Ctrl-C or systemd stops it). */
const STOPS = [
  ['kill -9', (server: ServerProcess) => server.kill9()],
  ['SIGTERM', (server: ServerProcess) => server.stop()],
] as const;

describe.each([openAIChat, openAIResponses, anthropicMessages])('toolgate serve stopped mid-run, with a model that gives random ids ($provider wire format)', (format) => {
  it.each(STOPS)('stopped (%s) while the model thinks after the call ran: after the restart the call does not run again, and the model is not asked for the answer it gave', async (_name, stopServer) => {
    const model = await startRandomIdModel({ format, commands: ['echo ran >> calls.log; echo appended'] });
    cleanup.push(() => model.close());
    const project = newProject();
    const first = await serve(project, model);
    model.holdAfterResult = true;
    const held = model.nextHeld();
    const created = await api(first.url, 'POST', '/runs', { input: 'Append a line to calls.log.' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const runId = created.body.run_id as string;
    await held;
    expect(callsLogLines(project)).toEqual(['ran']);
    await stopServer(first);

    model.holdAfterResult = false;
    const second = await serve(project, model);
    expect(await finished(second, runId)).toMatchObject({ status: 'completed', text: 'Appended the line.' });
    expect(callsLogLines(project), 'the call ran again after the restart').toEqual(['ran']);
    // Asked once for the call (recorded, then replayed), and twice for what came after it: before the stop, and after.
    expect(model.requests.map((request) => request.hasToolResult)).toEqual([false, true, true]);
    expect(model.ids).toHaveLength(1);

    const events = await eventsOf(second, runId);
    // toolgate's own id; the model's random one is an attribute.
    expect(resultsOf(events)).toEqual([['tg_1_1', 'ran']]);
    const calls = events.filter((event) => event.type === 'tool_call');
    expect(calls.map((event) => event.data)).toEqual([expect.objectContaining({ tool_call_id: 'tg_1_1', model_call_id: model.ids[0] })]);
    // The replayed step is not told twice: one tool_call, one tool_result, one answer.
    expect(events.filter((event) => event.type === 'text').map((event) => event.data.text)).toEqual(['Appended the line.']);
    expect(events.filter((event) => event.type === 'run_recovered').map((event) => event.data.reason)).toEqual(['server_restarted']);
  });

  it('killed while the call runs: the call is reported interrupted ("it may have completed") and never run again', async () => {
    const model = await startRandomIdModel({ format, commands: ['echo started >> calls.log; sleep 30; echo finished >> calls.log'] });
    cleanup.push(() => model.close());
    const project = newProject();
    const first = await serve(project, model);
    const created = await api(first.url, 'POST', '/runs', { input: 'Append a line to calls.log.' });
    const runId = created.body.run_id as string;
    await waitFor(async () => (callsLogLines(project).length > 0 ? true : undefined), { timeoutMs: 20_000, describe: () => `the call to start: ${first.stderr()}` });
    await first.kill9();

    const second = await serve(project, model);
    expect(await finished(second, runId)).toMatchObject({ status: 'completed', text: 'The call was interrupted.' });
    // Started once, never finished (the sandbox's child died with the server), and not started again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(callsLogLines(project)).toEqual(['started']);
    expect(model.ids).toHaveLength(1);
    const events = await eventsOf(second, runId);
    expect(resultsOf(events)).toEqual([['tg_1_1', 'interrupted']]);
    expect(events.find((event) => event.type === 'tool_result')!.data.error).toMatch(/interrupted: it may have completed/);
  });

  it.each([
    ['empty', () => ''],
    ['very long', () => 'x'.repeat(100_000)],
    ['with control characters', () => 'id\u0000\u001b[31m\n\u2028'],
    ['the same for every call', () => 'call_same'],
  ])('a model id that is %s never breaks the run or the store', async (_name, hostileId) => {
    // Two calls per answer, so that "the same for every call" is reused within an answer and across runs.
    const model = await startRandomIdModel({ format, commands: ['echo ran >> calls.log', 'echo ran >> calls.log'], hostileId });
    cleanup.push(() => model.close());
    const project = newProject();
    const server = await serve(project, model);
    for (let round = 0; round < 2; round++) {
      const created = await api(server.url, 'POST', '/runs', { input: `Append a line (${round}).` });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const runId = created.body.run_id as string;
      expect(await finished(server, runId)).toMatchObject({ status: 'completed', text: 'Appended the line.' });
      const events = await eventsOf(server, runId);
      expect(resultsOf(events)).toEqual([
        ['tg_1_1', 'ran'],
        ['tg_1_2', 'ran'],
      ]);
      // The model's id, kept as plain text: cut, no control or separator characters.
      for (const call of events.filter((event) => event.type === 'tool_call')) {
        expect(call.data.model_call_id).toMatch(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]{0,201}$/u);
      }
    }
    expect(callsLogLines(project)).toEqual(['ran', 'ran', 'ran', 'ran']);
  });
});

describe('toolgate serve killed with kill -9 around a person\'s approval, with a model that gives random ids', () => {
  it('killed after a person approved the call, while the model thinks: the approved call ran once, and the pause is not asked again', async () => {
    const model = await startRandomIdModel({ commands: ['touch approved; echo ran >> calls.log; echo appended'] });
    cleanup.push(() => model.close());
    const project = newProject();
    const first = await serve(project, model);
    const created = await api(first.url, 'POST', '/runs', { input: 'Append a line to calls.log.' });
    const runId = created.body.run_id as string;
    await pausedOn(first, runId);
    model.holdAfterResult = true;
    const held = model.nextHeld();
    expect((await api(first.url, 'POST', `/runs/${runId}/approve`, { approved: true })).status).toBe(200);
    await held;
    expect(callsLogLines(project)).toEqual(['ran']);
    await first.kill9();

    model.holdAfterResult = false;
    const second = await serve(project, model);
    expect(await finished(second, runId)).toMatchObject({ status: 'completed', text: 'Appended the line.' });
    expect(callsLogLines(project), 'the approved call ran again after the restart').toEqual(['ran']);
    expect(model.ids).toHaveLength(1);
    const events = await eventsOf(second, runId);
    expect(events.filter((event) => event.type === 'checkpoint_required')).toHaveLength(1);
    expect(resultsOf(events)).toEqual([['tg_1_1', 'ran']]);
  });

  it('killed between recording an answer and running all of it: the call that ran is interrupted, the one that never started goes to the person after the restart and runs once', async () => {
    // One answer, two calls: the first runs at once (and is killed), the second asks.
    const model = await startRandomIdModel({ commands: ['echo started >> calls.log; sleep 30; echo finished >> calls.log', 'touch approved; echo second >> calls.log'] });
    cleanup.push(() => model.close());
    const project = newProject();
    const first = await serve(project, model);
    const created = await api(first.url, 'POST', '/runs', { input: 'Append two lines.' });
    const runId = created.body.run_id as string;
    await waitFor(async () => (callsLogLines(project).length > 0 ? true : undefined), { timeoutMs: 20_000, describe: () => `the first call to start: ${first.stderr()}` });
    await first.kill9();

    const second = await serve(project, model);
    await pausedOn(second, runId);
    const pending = (await api(second.url, 'GET', `/runs/${runId}`)).body.pending_approvals as Array<{ tool_call_id: string }>;
    expect(pending.map((approval) => approval.tool_call_id)).toEqual(['tg_1_2']);
    expect((await api(second.url, 'POST', `/runs/${runId}/approve`, { approved: true })).status).toBe(200);
    expect(await finished(second, runId)).toMatchObject({ status: 'completed', text: 'The call was interrupted.' });
    expect(callsLogLines(project)).toEqual(['started', 'second']);
    expect(model.ids).toHaveLength(2);
    const events = await eventsOf(second, runId);
    expect(resultsOf(events)).toEqual([
      ['tg_1_1', 'interrupted'],
      ['tg_1_2', 'ran'],
    ]);
  });
});

describe('toolgate serve killed with kill -9 after the gate refused a call of an answer', () => {
  it('the refused call stays refused after the restart, even under a policy that would now allow it: the recorded answers after it replied to that refusal', async () => {
    const model = await startRandomIdModel({ commands: ['rm -f keep.txt', 'echo started >> calls.log; sleep 30'] });
    cleanup.push(() => model.close());
    const project = newProject();
    writeFileSync(path.join(project.workspace, 'keep.txt'), 'kept\n');
    const first = await serve(project, model);
    const created = await api(first.url, 'POST', '/runs', { input: 'Clean up, then append a line.' });
    const runId = created.body.run_id as string;
    await waitFor(async () => (callsLogLines(project).length > 0 ? true : undefined), { timeoutMs: 20_000, describe: () => `the second call to start: ${first.stderr()}` });
    await first.kill9();
    // The policy changes while the server is down: rm is no longer blocked.
    const policy = readFileSync(project.policyFile, 'utf8');
    writeFileSync(project.policyFile, policy.replace(/^ {4}- \{ match: rm,.*$/m, ''));
    expect(readFileSync(project.policyFile, 'utf8')).not.toContain('match: rm');

    const second = await serve(project, model);
    expect(await finished(second, runId)).toMatchObject({ status: 'completed' });
    expect(existsSync(path.join(project.workspace, 'keep.txt')), 'the refused rm ran after the restart').toBe(true);
    const events = await eventsOf(second, runId);
    expect(resultsOf(events)).toEqual([
      ['tg_1_1', 'blocked'],
      ['tg_1_2', 'interrupted'],
    ]);
  });
});

describe('several toolgate serve processes on one PostgreSQL database, with a model that gives random ids', () => {
  it.each(STOPS)('the server driving a run is stopped (%s) while the model thinks after the call ran: another takes the run over, and the call does not run again', { timeout: 120_000 }, async (name, stopServer) => {
    const database = await freshDatabase();
    cleanup.push(() => database.drop());
    const model = await startRandomIdModel({ commands: ['echo ran >> calls.log; echo appended'] });
    cleanup.push(() => model.close());
    const project: ServerProject = { ...newProject('random-ids-shared-policy.yaml'), storeFile: database.url };
    const servers = [await serve(project, model), await serve(project, model), await serve(project, model)];
    model.holdAfterResult = true;
    const held = model.nextHeld();
    const created = await api(servers[0]!.url, 'POST', '/runs', { input: 'Append a line to calls.log.' });
    const runId = created.body.run_id as string;
    await held;
    expect(callsLogLines(project)).toEqual(['ran']);
    model.holdAfterResult = false;
    await stopServer(servers[0]!);

    // Taken over once the lease (2 s) ends, or at once after a clean stop.
    expect(await finished(servers[1]!, runId)).toMatchObject({ status: 'completed', text: 'Appended the line.' });
    expect(callsLogLines(project), `the call ran again after the takeover (${name})`).toEqual(['ran']);
    expect(model.requests.map((request) => request.hasToolResult)).toEqual([false, true, true]);
    const events = await eventsOf(servers[1]!, runId);
    expect(resultsOf(events)).toEqual([['tg_1_1', 'ran']]);
    expect(events.filter((event) => event.type === 'run_recovered').map((event) => event.data.reason)).toEqual(['instance_lost']);
  });
});
