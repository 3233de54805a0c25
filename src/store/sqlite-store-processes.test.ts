/**
 * The SQLite store shared by real processes: two of them racing for the
 * same run revision and the same call, several opening a new file at once,
 * and writers killed with SIGKILL in the middle of their writes.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite-store.ts';
import { newRun } from './store-contract-fixtures.ts';

const STORE_MODULE = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'sqlite-store.ts')).href;

/**
 * A child process with its own connection. `race`: per line on stdin
 * (`{round, revision, runIds}`), tries to move each run from `revision` and
 * to begin call `call-<round>` of it, in its own shuffled order, and reports
 * what it won. `writer`: writes runs until killed, reporting each one after
 * its last commit. `batch-writer`: the same from 16 concurrent loops, so that
 * the writes are group-committed, reporting each run once its pause resolved
 * (with the largest batch committed so far). `open`: opens the file, writes
 * one run, and exits.
 */
const CHILD_SOURCE = `
import { createInterface } from 'node:readline';
const { openSqliteStore } = await import(process.env.STORE_MODULE);
const task = JSON.parse(process.env.CHILD_TASK);
let largestBatch = 0;
const store = openSqliteStore({ file: task.file, hooks: { afterCommit: (batch) => { largestBatch = Math.max(largestBatch, batch.writes); } } });
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
const run = (runId) => ({ runId, owner: 'alice', status: 'running', mode: 'daemon', sessionId: 's', chatId: null, model: 'm', input: 'task ' + runId, state: '{"sealed":"' + runId + '"}' });
const event = (runId, type, data = {}) => ({ runId, owner: 'alice', type, data: { run_id: runId, ...data } });
if (task.kind === 'race') {
  send({ ready: true });
  for await (const line of createInterface({ input: process.stdin })) {
    const round = JSON.parse(line);
    const order = [...round.runIds].sort(() => Math.random() - 0.5);
    const wins = [];
    const calls = [];
    for (const runId of order) {
      const moved = await store.updateRun(runId, round.revision, { text: task.name }, { events: [event(runId, 'won', { by: task.name, round: round.round })] });
      if (moved !== undefined) wins.push(runId);
      if (await store.beginCall({ runId, toolCallId: 'call-' + round.round, tool: 'shell', input: task.name })) calls.push(runId);
    }
    send({ round: round.round, wins, calls });
  }
} else if (task.kind === 'writer') {
  for (let index = 0; ; index++) {
    const runId = task.name + '-' + index;
    await store.createRun(run(runId), [event(runId, 'run_started')]);
    await store.updateRun(runId, 1, { status: 'paused_checkpoint' }, {
      events: [event(runId, 'checkpoint_required', { tool_call_id: 'call-1', big: 'x'.repeat(2000) }), event(runId, 'run_paused')],
      approvals: [1, 2].map((n) => ({ runId, toolCallId: 'call-' + n, owner: 'alice', tool: 'shell', groupId: 'g', request: { n } })),
    });
    send({ committed: runId });
  }
} else if (task.kind === 'batch-writer') {
  const loop = async (loopIndex) => {
    for (let index = 0; ; index++) {
      const runId = task.name + '-' + loopIndex + '-' + index;
      await store.createRun(run(runId), [event(runId, 'run_started')]);
      await store.updateRun(runId, 1, { status: 'paused_checkpoint' }, {
        events: [event(runId, 'checkpoint_required', { tool_call_id: 'call-1', big: 'x'.repeat(2000) }), event(runId, 'run_paused')],
        approvals: [1, 2].map((n) => ({ runId, toolCallId: 'call-' + n, owner: 'alice', tool: 'shell', groupId: 'g', request: { n } })),
      });
      send({ committed: runId, largestBatch });
    }
  };
  await Promise.all(Array.from({ length: 16 }, (_, loopIndex) => loop(loopIndex)));
} else if (task.kind === 'open') {
  await store.createRun(run(task.name), [event(task.name, 'run_started')]);
  send({ done: true });
}
await store.close();
`;

type Child = ChildProcessByStdio<Writable, Readable, Readable> & { messages: AsyncIterator<Record<string, unknown>>; stderr_text: () => string };

function startChild(task: Record<string, unknown>): Child {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD_SOURCE], {
    env: { ...process.env, STORE_MODULE, CHILD_TASK: JSON.stringify(task) },
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as Child;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  child.messages = {
    async next() {
      const line = await lines.next();
      if (line.done === true) throw new Error(`child ${JSON.stringify(task)} ended without answering: ${stderr}`);
      return { done: false, value: JSON.parse(line.value) as Record<string, unknown> };
    },
  };
  child.stderr_text = () => stderr;
  return child;
}

async function nextMessage(child: Child): Promise<Record<string, unknown>> {
  return (await child.messages.next()).value;
}

function exited(child: Child): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('the SQLite store shared by processes', () => {
  let directory: string;
  let file: string;
  const children: Child[] = [];
  beforeEach(() => {
    directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-processes-'));
    file = path.join(directory, 'toolgate.db');
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited(child);
    }
    rmSync(directory, { recursive: true, force: true });
  });

  it('lets exactly one of two processes move each run from a revision and begin each call, round after round', async () => {
    const runIds = Array.from({ length: 150 }, (_, index) => `run-${index}`);
    const setup = openSqliteStore({ file });
    for (const runId of runIds) await setup.createRun(newRun(runId), []);
    await setup.close();

    const racers = ['left', 'right'].map((name) => startChild({ kind: 'race', file, name }));
    children.push(...racers);
    for (const racer of racers) expect(await nextMessage(racer)).toEqual({ ready: true });
    const totals = { left: 0, right: 0 };
    const rounds = 8;
    for (let round = 1; round <= rounds; round++) {
      for (const racer of racers) racer.stdin.write(`${JSON.stringify({ round, revision: round, runIds })}\n`);
      const reports = await Promise.all(racers.map((racer) => nextMessage(racer)));
      const wins = reports.flatMap((report) => report.wins as string[]);
      const calls = reports.flatMap((report) => report.calls as string[]);
      expect(wins.sort()).toEqual([...runIds].sort());
      expect(calls.sort()).toEqual([...runIds].sort());
      totals.left += (reports[0]?.wins as string[]).length;
      totals.right += (reports[1]?.wins as string[]).length;
    }
    for (const racer of racers) racer.stdin.end();
    for (const racer of racers) expect(await exited(racer), racer.stderr_text()).toEqual({ code: 0, signal: null });
    // Both really raced: each won some of the 1,200 contested moves.
    expect(totals.left).toBeGreaterThan(0);
    expect(totals.right).toBeGreaterThan(0);

    const store = openSqliteStore({ file });
    for (const runId of runIds) {
      const run = await store.getRun(runId);
      expect(run?.revision).toBe(rounds + 1);
      const won = await store.readEvents({ afterId: 0, runId, limit: 100 });
      expect(won.map((event) => event.data.round)).toEqual(Array.from({ length: rounds }, (_, index) => index + 1));
      expect(won.at(-1)?.data.by).toBe(run?.text);
      const calls = await store.listCalls(runId);
      expect(calls.map((call) => call.toolCallId).sort()).toEqual(Array.from({ length: rounds }, (_, index) => `call-${index + 1}`).sort());
    }
    await store.close();
  }, 120_000);

  it('lets several processes open a new file at once: the schema is made once and every write lands', async () => {
    const openers = Array.from({ length: 6 }, (_, index) => startChild({ kind: 'open', file, name: `opener-${index}` }));
    children.push(...openers);
    for (const opener of openers) {
      expect(await nextMessage(opener), opener.stderr_text()).toEqual({ done: true });
      expect(await exited(opener)).toEqual({ code: 0, signal: null });
    }
    const store = openSqliteStore({ file });
    expect((await store.listRuns({ limit: 10 })).runs.map((run) => run.runId).sort()).toEqual(openers.map((_, index) => `opener-${index}`));
    expect(await store.lastEventId()).toBe(6);
    await store.close();
  }, 60_000);

  it('keeps a consistent database when writers are killed with SIGKILL in the middle of their writes', async () => {
    const committed: string[] = [];
    const collect = async (child: Child, count: number) => {
      for (let index = 0; index < count; index++) {
        const message = await nextMessage(child);
        committed.push(message.committed as string);
      }
    };
    // A random pause before each kill, so that it lands anywhere in the loop, not always just after a report.
    const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 4));
    for (let round = 0; round < 6; round++) {
      const writers = [startChild({ kind: 'writer', file, name: `w${round}a` }), startChild({ kind: 'writer', file, name: `w${round}b` })];
      children.push(...writers);
      await Promise.all(writers.map((writer) => collect(writer, 30 + round * 10)));
      await pause();
      // Kill one in the middle of its loop; the other must carry on past whatever lock the dead one held.
      writers[0]?.kill('SIGKILL');
      expect(await exited(writers[0] as Child)).toEqual({ code: null, signal: 'SIGKILL' });
      await collect(writers[1] as Child, 30);
      await pause();
      writers[1]?.kill('SIGKILL');
      expect((await exited(writers[1] as Child)).signal).toBe('SIGKILL');
      await expectConsistent(file, committed);
    }
  }, 120_000);

  it('never loses a group-committed write whose promise resolved, nor keeps half of one, when its process is killed with SIGKILL', async () => {
    const committed: string[] = [];
    let largestBatch = 0;
    const collect = async (child: Child, count: number) => {
      for (let index = 0; index < count; index++) {
        const message = await nextMessage(child);
        committed.push(message.committed as string);
        largestBatch = Math.max(largestBatch, message.largestBatch as number);
      }
    };
    const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 4));
    for (let round = 0; round < 5; round++) {
      // Two processes of 16 concurrent writers each: batches in each, and the two contend for the write lock.
      const writers = [startChild({ kind: 'batch-writer', file, name: `b${round}a` }), startChild({ kind: 'batch-writer', file, name: `b${round}b` })];
      children.push(...writers);
      await Promise.all(writers.map((writer) => collect(writer, 60 + round * 20)));
      await pause();
      writers[0]?.kill('SIGKILL');
      expect(await exited(writers[0] as Child)).toEqual({ code: null, signal: 'SIGKILL' });
      await collect(writers[1] as Child, 60);
      await pause();
      writers[1]?.kill('SIGKILL');
      expect((await exited(writers[1] as Child)).signal).toBe('SIGKILL');
      await expectConsistent(file, committed);
    }
    // The writes really were batched: some commit held several of them.
    expect(largestBatch).toBeGreaterThan(1);
  }, 120_000);
});

/** Every reported run whole and paused; every run in the file either fully created or fully paused, nothing in between. */
async function expectConsistent(file: string, committed: readonly string[]): Promise<void> {
  const raw = new Database(file);
  expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(raw.pragma('foreign_key_check')).toEqual([]);
  raw.close();

  const store = openSqliteStore({ file });
  try {
    for (const runId of committed) expect((await store.getRun(runId))?.status, runId).toBe('paused_checkpoint');
    const { runs } = await store.listRuns({ limit: 10_000 });
    expect(runs.length).toBeGreaterThanOrEqual(committed.length);
    for (const run of runs) {
      const events = (await store.readEvents({ afterId: 0, runId: run.runId, limit: 10 })).map((event) => event.type);
      const approvals = (await store.listApprovals({ runId: run.runId })).map((approval) => approval.toolCallId);
      const shape = { status: run.status, revision: run.revision, events, approvals };
      if (run.revision === 1) expect(shape).toEqual({ status: 'running', revision: 1, events: ['run_started'], approvals: [] });
      else expect(shape).toEqual({ status: 'paused_checkpoint', revision: 2, events: ['run_started', 'checkpoint_required', 'run_paused'], approvals: ['call-1', 'call-2'] });
    }
  } finally {
    await store.close();
  }
}
