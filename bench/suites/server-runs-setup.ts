/**
 * Paused runs for the server benchmarks, made by the server's own code: a
 * server started in this process on the benchmark's store starts `count`
 * runs of the scripted model (through the run service, as `POST /runs`
 * does, minus the HTTP), waits until every one has paused on its approval,
 * and stops. A `toolgate serve` process started on the store afterwards
 * finds them as any restart would.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startToolgateServer, type RunningToolgateServer } from '../../src/server/start-server.ts';
import { silentLogger } from '../../src/server/log.ts';
import { ADMIN_TOKEN, createServerProject, inParallel, SERVER_FIXTURES, type ServerProject } from '../../test/server-harness.ts';

/** The scripted agent of the benchmarks: one write_file call that asks, and runs cheaply once approved. */
export const BENCH_SCRIPT = 'write-same.yaml';

/**
 * A project under `parent` whose store (its SQLite file, or the PostgreSQL
 * database at `storeUrl`) holds `count` paused runs.
 *
 * @example
 * const project = await projectWithPausedRuns({ parent: context.scratch, count: 1000 });
 */
export async function projectWithPausedRuns(options: { parent: string; count: number; storeUrl?: string }): Promise<ServerProject> {
  const created = createServerProject({ policy: 'crash-policy.yaml', parent: options.parent });
  // A PostgreSQL store when given; the project's SQLite file otherwise.
  const project = options.storeUrl === undefined ? created : { ...created, storeFile: options.storeUrl };
  // The script writes this very content: every approved call finds the file as the person saw it.
  writeFileSync(path.join(project.workspace, 'bench.txt'), 'benchmark\n');
  const server = await startBenchServer(project);
  try {
    await inParallel(Array.from({ length: options.count }), 64, (_, index) => server.service.startRun({ name: 'admin', role: 'admin' }, { input: `Benchmark run ${index + 1}` }));
    const deadline = Date.now() + Math.max(60_000, options.count * 50);
    for (;;) {
      const counts = await server.store.countRuns();
      if (counts.paused_checkpoint === options.count) break;
      if (counts.failed > 0 || counts.completed > 0 || counts.cancelled > 0 || Date.now() > deadline) {
        throw new Error(`setting up ${options.count} paused runs: ${JSON.stringify(counts)} (expected every run paused_checkpoint)`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await server.close();
  }
  return project;
}

/**
 * A project under `parent` whose SQLite store holds runs left under way, as
 * a crash leaves them: `count` runs are started and the server stops at once,
 * before their drives reach a pause (a stop aborts the drives; the runs stay
 * `running`). Returns the project and how many were left running.
 *
 * @example
 * const { project, running } = await projectWithRunsInFlight({ parent: context.scratch, count: 1000 });
 */
export async function projectWithRunsInFlight(options: { parent: string; count: number }): Promise<{ project: ServerProject; running: number }> {
  const project = createServerProject({ policy: 'crash-policy.yaml', parent: options.parent });
  writeFileSync(path.join(project.workspace, 'bench.txt'), 'benchmark\n');
  const server = await startBenchServer(project);
  let running = 0;
  try {
    await inParallel(Array.from({ length: options.count }), 64, (_, index) => server.service.startRun({ name: 'admin', role: 'admin' }, { input: `Benchmark run ${index + 1}` }));
  } finally {
    running = (await server.store.countRuns()).running;
    await server.close();
  }
  return { project, running };
}

/** A server in this process on the project's store, driving runs with the benchmarks' scripted model. */
async function startBenchServer(project: ServerProject): Promise<RunningToolgateServer> {
  return startToolgateServer({
    policyFile: project.policyFile,
    storeFile: project.storeFile,
    port: 0,
    model: `script:${path.join(SERVER_FIXTURES, BENCH_SCRIPT)}`,
    adminToken: ADMIN_TOKEN,
    logger: silentLogger(),
  });
}
