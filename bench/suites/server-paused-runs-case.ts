/**
 * 10,000 paused runs: how much memory a `toolgate serve` process holding
 * them takes, and how long it takes from starting the process to serving
 * them — `GET /healthz` answering and `GET /approvals` listing every one.
 * Each repetition kills the previous process with `kill -9` and starts a new
 * one on the same store, as a restart after a crash would.
 */
import { api, residentMegabytes, startServerProcess, type ServerProcess } from '../../test/server-harness.ts';
import { median, round, spreadOf, type BenchRow } from '../harness.ts';
import { BENCH_SCRIPT, projectWithPausedRuns } from './server-runs-setup.ts';

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
