/**
 * Approve → run resumed: 64 HTTP clients approve paused runs of a real
 * `toolgate serve` process on a SQLite file (every commit synced). One
 * request's latency lasts until its answer says the run resumed (it is
 * claimed and running); the resumed runs then finish in the background, as
 * they would in service. The baseline, measured in the same run on the same
 * disk and interleaved repetition by repetition: raw SQLite commits
 * (better-sqlite3, WAL, synchronous = FULL, one small INSERT per transaction).
 * Beside it, the floor of any answer over HTTP here: the same clients asking
 * `GET /healthz` (no store, no decision), so a reader sees how much of an
 * approval is the HTTP round trip itself (the clients share the machine).
 * The clients are Node's lean keep-alive `http` client (`http-load-client.ts`).
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { ADMIN_TOKEN, inParallel, runsWithStatus, startServerProcess, waitFor } from '../../test/server-harness.ts';
import { loadClient, type LoadClient } from '../http-load-client.ts';
import { median, percentile, round, spreadOf, type BenchRow } from '../harness.ts';
import { BENCH_SCRIPT, projectWithPausedRuns } from './server-runs-setup.ts';

export const APPROVE_CLIENTS = 64;
export const RAW_BASELINE = 'raw SQLite commits (WAL, synchronous=FULL, 1 INSERT per transaction)';

interface Repetition {
  rawRate: number;
  rawLatencies: Float64Array;
  healthRate: number;
  healthLatencies: Float64Array;
  approveRate: number;
  approveLatencies: Float64Array;
}

/**
 * @example
 * const rows = await approveCase({ scratch: context.scratch, quick: false });
 */
export async function approveCase(options: { scratch: string; quick: boolean }): Promise<BenchRow[]> {
  const repetitions = options.quick ? 3 : 5;
  const perRepetition = options.quick ? 128 : 384;
  const warmup = APPROVE_CLIENTS;
  const project = await projectWithPausedRuns({ parent: options.scratch, count: warmup + repetitions * perRepetition });
  const raw = openRawDatabase(path.join(options.scratch, `raw-${process.pid}.db`));
  const server = await startServerProcess({ project, script: BENCH_SCRIPT });
  const client = loadClient({ url: server.url, token: ADMIN_TOKEN, connections: APPROVE_CLIENTS });
  try {
    const runIds = (await runsWithStatus(server.url, 'paused_checkpoint')).map((run) => run.run_id);
    await approveAll({ client, runIds: runIds.slice(0, warmup) });
    rawCommits(raw, 200);
    const measured: Repetition[] = [];
    for (let repetition = 0; repetition < repetitions; repetition++) {
      await settled(server.url);
      const rawLatencies = rawCommits(raw, options.quick ? 300 : 1000);
      const health = await healthChecks({ client, count: perRepetition });
      const started = warmup + repetition * perRepetition;
      const approved = await approveAll({ client, runIds: runIds.slice(started, started + perRepetition) });
      measured.push({ rawRate: rateOf(rawLatencies), rawLatencies, ...health, ...approved });
    }
    await settled(server.url);
    return rowsOf(measured, perRepetition);
  } finally {
    client.close();
    raw.close();
    await server.kill9();
  }
}

export function openRawDatabase(file: string): Database.Database {
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.exec('CREATE TABLE IF NOT EXISTS commits (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, data TEXT NOT NULL)');
  return database;
}

/** `count` commits, one small INSERT each; their latencies in milliseconds. */
export function rawCommits(database: Database.Database, count: number): Float64Array {
  const insert = database.prepare('INSERT INTO commits (run_id, data) VALUES (?, ?)');
  const latencies = new Float64Array(count);
  for (let index = 0; index < count; index++) {
    const before = performance.now();
    insert.run(`run_${index}`, '{"type":"approval_decided","approved":true}');
    latencies[index] = performance.now() - before;
  }
  return latencies;
}

/** Commits per second of commits made one after another. */
export function rateOf(sequentialLatencies: Float64Array): number {
  let total = 0;
  for (const latency of sequentialLatencies) total += latency;
  return (sequentialLatencies.length / total) * 1000;
}

/** Approves every run, `APPROVE_CLIENTS` requests at a time; fails unless each answer says the run resumed. */
async function approveAll(options: { client: LoadClient; runIds: readonly string[] }): Promise<{ approveRate: number; approveLatencies: Float64Array }> {
  const latencies = new Float64Array(options.runIds.length);
  const started = performance.now();
  await inParallel(options.runIds, APPROVE_CLIENTS, async (runId, index) => {
    const before = performance.now();
    const answer = await options.client.request('POST', `/runs/${runId}/approve`, { approved: true });
    latencies[index] = performance.now() - before;
    if (answer.status !== 200 || (answer.body.run_status !== 'running' && answer.body.run_status !== 'completed')) {
      throw new Error(`approving ${runId} did not resume it: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  });
  return { approveRate: (options.runIds.length / (performance.now() - started)) * 1000, approveLatencies: latencies };
}

/** `count` GET /healthz, `APPROVE_CLIENTS` at a time: answers per second, and each answer's latency in milliseconds. */
async function healthChecks(options: { client: LoadClient; count: number }): Promise<{ healthRate: number; healthLatencies: Float64Array }> {
  const latencies = new Float64Array(options.count);
  const started = performance.now();
  await inParallel(Array.from({ length: options.count }), APPROVE_CLIENTS, async (_, index) => {
    const before = performance.now();
    const answer = await options.client.request('GET', '/healthz');
    latencies[index] = performance.now() - before;
    if (answer.status !== 200) throw new Error(`GET /healthz answered ${answer.status}`);
  });
  return { healthRate: (options.count / (performance.now() - started)) * 1000, healthLatencies: latencies };
}

/** Waits until no resumed run is still running, so one repetition's runs do not weigh on the next. */
export async function settled(url: string): Promise<void> {
  await waitFor(async () => ((await runsWithStatus(url, 'running')).length === 0 ? true : undefined), {
    timeoutMs: 120_000,
    intervalMs: 50,
    describe: async () => `the resumed runs to finish (${(await runsWithStatus(url, 'running')).length} still running)`,
  });
  const failed = await runsWithStatus(url, 'failed');
  if (failed.length > 0) throw new Error(`${failed.length} resumed runs failed, e.g. ${JSON.stringify(failed[0])}`);
}

function rowsOf(measured: Repetition[], perRepetition: number): BenchRow[] {
  const sorted = (values: Float64Array) => Float64Array.from(values).sort();
  const rawP50 = measured.map((repetition) => percentile(sorted(repetition.rawLatencies), 0.5) * 1000);
  const rawP99 = measured.map((repetition) => percentile(sorted(repetition.rawLatencies), 0.99) * 1000);
  const approveP50 = measured.map((repetition) => percentile(sorted(repetition.approveLatencies), 0.5) * 1000);
  const approveP99 = measured.map((repetition) => percentile(sorted(repetition.approveLatencies), 0.99) * 1000);
  const ratios = measured.map((repetition) => repetition.approveRate / repetition.rawRate);
  const rawRate = median(measured.map((repetition) => repetition.rawRate));
  const approveRate = median(measured.map((repetition) => repetition.approveRate));
  const ratio = median(ratios);
  const p99 = median(approveP99);
  const healthRate = median(measured.map((repetition) => repetition.healthRate));
  const name = `POST /runs/:id/approve → run resumed, ${APPROVE_CLIENTS} concurrent HTTP clients, durable store`;
  return [
    { suite: 'server', case: RAW_BASELINE, p50_us: round(median(rawP50)), p99_us: round(median(rawP99)), ops_per_s: Math.round(rawRate), ratio: null, baseline: null, note: 'one connection, the same disk' },
    {
      suite: 'server',
      case: `GET /healthz, the same ${APPROVE_CLIENTS} HTTP clients (the floor of any answer over HTTP on this machine)`,
      p50_us: round(median(measured.map((repetition) => percentile(sorted(repetition.healthLatencies), 0.5) * 1000))),
      p99_us: round(median(measured.map((repetition) => percentile(sorted(repetition.healthLatencies), 0.99) * 1000))),
      ops_per_s: Math.round(healthRate),
      ratio: round(healthRate / rawRate, 2),
      baseline: RAW_BASELINE,
      ratio_meaning: 'answers/s / raw commits/s',
      note: `no store, no decision: what the approvals below could reach at most (with ${APPROVE_CLIENTS} clients always waiting, a latency is at least ${APPROVE_CLIENTS} / throughput on average)`,
    },
    {
      suite: 'server',
      case: `${name}: throughput`,
      p50_us: round(median(approveP50)),
      p99_us: round(p99),
      ops_per_s: Math.round(approveRate),
      ratio: round(ratio, 2),
      baseline: RAW_BASELINE,
      ratio_meaning: 'approvals/s / raw commits/s (higher is better)',
      target: 'approve throughput >= 50% of raw SQLite commits',
      met: ratio >= 0.5,
      spread: spreadOf({ of: 'rate ratio', values: ratios, digits: 2 }),
      note: `${perRepetition} approvals per repetition`,
    },
    {
      suite: 'server',
      case: `${name}: p99 latency`,
      p50_us: round(median(approveP50)),
      p99_us: round(p99),
      ops_per_s: Math.round(approveRate),
      ratio: round(p99 / median(rawP99), 2),
      baseline: RAW_BASELINE,
      ratio_meaning: 'p99 latency, approve / raw commit (lower is better)',
      target: 'p99 <= 25 ms',
      met: p99 <= 25_000,
      spread: spreadOf({ of: 'p99 us', values: approveP99, digits: 0 }),
    },
  ];
}
