/**
 * 10,000 paused runs: how much memory a `toolgate serve` process holding
 * them takes, and how long it takes from starting the process to serving
 * them — `GET /healthz` answering and `GET /approvals` listing every one.
 * Each repetition kills the previous process with `kill -9` and starts a new
 * one on the same store, as a restart after a crash would.
 */
import { api, residentMegabytes, startServerProcess, type ServerProcess } from '../../test/server-harness.ts';
import { median, round, spreadOf, type BenchRow } from '../harness.ts';
import { BENCH_SCRIPT, projectWithPausedRuns, projectWithRunsInFlight } from './server-runs-setup.ts';

const RSS_TARGET_MB = 250;
const RESTART_TARGET_MS = 2000;

/**
 * @example
 * const rows = await pausedRunsCase({ scratch: context.scratch, quick: false });
 */
export async function pausedRunsCase(options: { scratch: string; quick: boolean }): Promise<BenchRow[]> {
  const count = options.quick ? 1000 : 10_000;
  const repetitions = options.quick ? 2 : 3;
  const project = await projectWithPausedRuns({ parent: options.scratch, count });
  const restartsMs: number[] = [];
  const residentMb: number[] = [];
  const peakMb: number[] = [];
  let server: ServerProcess | undefined;
  try {
    for (let repetition = 0; repetition < repetitions; repetition++) {
      await server?.kill9();
      const started = performance.now();
      server = await startServerProcess({ project, script: BENCH_SCRIPT });
      await untilServing(server.url, count);
      restartsMs.push(performance.now() - started);
      residentMb.push(residentMegabytes(server.pid));
      peakMb.push(residentMegabytes(server.pid, 'VmHWM'));
    }
  } finally {
    await server?.kill9();
  }
  const rss = median(residentMb);
  const restart = median(restartsMs);
  const runs = count.toLocaleString('en-US');
  return [
    {
      suite: 'server',
      case: `${runs} paused runs: server RSS after listing them`,
      p50_us: null,
      p99_us: null,
      ops_per_s: null,
      ratio: null,
      baseline: null,
      target: `RSS <= ${RSS_TARGET_MB} MB`,
      met: Math.max(...residentMb) <= RSS_TARGET_MB,
      spread: spreadOf({ of: 'RSS MB', values: residentMb, digits: 1 }),
      note: `${round(rss, 1)} MB resident (median), ${round(Math.max(...peakMb), 1)} MB peak`,
    },
    {
      suite: 'server',
      case: `${runs} paused runs: restart (kill -9) to serving: /healthz answers and /approvals lists them`,
      p50_us: round(restart * 1000, 0),
      p99_us: null,
      ops_per_s: null,
      ratio: null,
      baseline: null,
      target: `restart <= ${RESTART_TARGET_MS / 1000} s`,
      met: Math.max(...restartsMs) <= RESTART_TARGET_MS,
      spread: spreadOf({ of: 'restart ms', values: restartsMs, digits: 0 }),
      note: `${round(restart, 0)} ms median, from starting the process`,
    },
  ];
}

/**
 * Runs left under way by a stop (`running`, 1,000 of them, or 100 with
 * --quick): from starting the process to `/healthz` answering (the server
 * listens before it recovers them: issue 51), and to the end of their
 * recovery (`/healthz` no longer says `recovering`).
 *
 * @example
 * const rows = await runsInFlightCase({ scratch: context.scratch, quick: true });
 */
export async function runsInFlightCase(options: { scratch: string; quick: boolean }): Promise<BenchRow[]> {
  const repetitions = options.quick ? 2 : 3;
  const servingMs: number[] = [];
  const recoveredMs: number[] = [];
  let left = 0;
  for (let repetition = 0; repetition < repetitions; repetition++) {
    // Recovery changes the store: each repetition restarts on a store of its own, left as a crash leaves it.
    const { project, running } = await projectWithRunsInFlight({ parent: options.scratch, count: options.quick ? 100 : 1000 });
    left = running;
    const started = performance.now();
    const server = await startServerProcess({ project, script: BENCH_SCRIPT });
    try {
      await untilHealthy(server.url, () => true);
      servingMs.push(performance.now() - started);
      await untilHealthy(server.url, (body) => body.recovering !== true);
      recoveredMs.push(performance.now() - started);
    } finally {
      await server.kill9();
    }
  }
  const row = (what: string, values: number[], target: number | null): BenchRow => ({
    suite: 'server',
    case: `restart with ~${left.toLocaleString('en-US')} runs left running: ${what}`,
    p50_us: round(median(values) * 1000, 0),
    p99_us: null,
    ops_per_s: null,
    ratio: null,
    baseline: null,
    target: target === null ? null : `<= ${target / 1000} s`,
    met: target === null ? null : Math.max(...values) <= target,
    spread: spreadOf({ of: 'ms', values, digits: 0 }),
    note: `${round(median(values), 0)} ms median, from starting the process`,
  });
  return [row('to serving (/healthz answers, recovering)', servingMs, RESTART_TARGET_MS), row('to every run recovered', recoveredMs, null)];
}

async function untilHealthy(url: string, done: (body: { recovering?: boolean }) => boolean): Promise<void> {
  for (;;) {
    const response = await fetch(`${url}/healthz`).catch(() => undefined);
    if (response?.status === 200 && done((await response.json()) as { recovering?: boolean })) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Polls `/healthz` until it answers, then checks `/approvals` lists every paused run. */
async function untilServing(url: string, count: number): Promise<void> {
  for (;;) {
    const response = await fetch(`${url}/healthz`).catch(() => undefined);
    if (response?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const inbox = await api(url, 'GET', '/approvals');
  if (inbox.status !== 200 || inbox.body.approvals.length !== count) {
    throw new Error(`GET /approvals after the restart: ${inbox.status}, ${inbox.body.approvals?.length ?? JSON.stringify(inbox.body)} approvals (expected ${count})`);
  }
}
