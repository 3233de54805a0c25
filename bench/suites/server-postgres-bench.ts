/**
 * `toolgate serve` on PostgreSQL (issue 10): approve → run resumed, with 64
 * HTTP clients against one server and against three servers sharing the
 * database, against raw PostgreSQL commits (one small INSERT per
 * transaction, one connection) measured in the same run on the same
 * machine, repetition by repetition. The server is a temporary PostgreSQL
 * the benchmark starts (as the tests do: `test/postgres-server.ts`), with
 * fsync on, reached through its Unix socket by the servers and the raw
 * commits alike. Every server is warmed up before the first repetition.
 * Three servers share two cores here: the comparison says whether sharing
 * the database costs throughput, not what three machines would do.
 *
 * Measured first (quick, 2 cores): raw 1,140 commits/s; one server 177
 * approvals/s (0.16x), three 71/s (0.4x one). The store gives event ids in
 * commit order by holding one advisory lock from an event's insert to its
 * transaction's commit (fsync included), and an approval with its resumed
 * run stores events in ~5 transactions: those commits are serialized across
 * every server, which caps approvals near raw/5 and makes servers contend.
 */
import pg from 'pg';
import { freshDatabase, startTestPostgres } from '../../test/postgres-server.ts';
import { ADMIN_TOKEN, inParallel, runsWithStatus, startServerProcess, type ServerProcess } from '../../test/server-harness.ts';
import { median, percentile, round, spreadOf, type BenchRow, type BenchSuite } from '../harness.ts';
import { loadClient, type LoadClient } from '../http-load-client.ts';
import { APPROVE_CLIENTS, rateOf, settled } from './server-approve-case.ts';
import { BENCH_SCRIPT, projectWithPausedRuns } from './server-runs-setup.ts';

const RAW_BASELINE = 'raw PostgreSQL commits (1 INSERT per transaction, one connection, fsync on)';
const SERVERS = 3;

interface Repetition {
  rawRate: number;
  rawLatencies: Float64Array;
  oneRate: number;
  oneLatencies: Float64Array;
  threeRate: number;
  threeLatencies: Float64Array;
}

export const serverPostgresSuite: BenchSuite = {
  name: 'server-postgres',
  async run(context) {
    const repetitions = context.quick ? 3 : 5;
    const perRepetition = context.quick ? 128 : 384;
    const postgres = await startTestPostgres();
    // On one machine, through PostgreSQL's Unix socket (the raw commits too): over TCP loopback, the kernel
    // does the receiving side's network work inside every send, which a database on its own host would do there.
    const database = await freshDatabase({ admin: postgres.socketUrl });
    const servers: ServerProcess[] = [];
    const clients: LoadClient[] = [];
    const raw = new pg.Client({ connectionString: database.url });
    raw.on('error', () => undefined);
    try {
      const project = await projectWithPausedRuns({ parent: context.scratch, count: 2 * APPROVE_CLIENTS + repetitions * perRepetition * 2, storeUrl: database.url });
      for (let index = 0; index < SERVERS; index++) servers.push(await startServerProcess({ project, script: BENCH_SCRIPT }));
      // 64 clients in all: every one on the first server, or spread over the three.
      const alone = loadClient({ url: servers[0]!.url, token: ADMIN_TOKEN, connections: APPROVE_CLIENTS });
      clients.push(alone);
      const spread = servers.map((server) => loadClient({ url: server.url, token: ADMIN_TOKEN, connections: Math.ceil(APPROVE_CLIENTS / SERVERS) }));
      clients.push(...spread);
      await raw.connect();
      await raw.query('CREATE TABLE commits (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, run_id TEXT NOT NULL, data TEXT NOT NULL)');
      const runIds = (await runsWithStatus(servers[0]!.url, 'paused_checkpoint')).map((run) => run.run_id);
      let next = 0;
      const take = (count: number) => runIds.slice(next, (next += count));
      // Every server warmed up alike: a server's first approvals run cold code.
      await approveAll([alone], take(APPROVE_CLIENTS));
      await approveAll(spread, take(APPROVE_CLIENTS));
      await rawCommits(raw, 200);
      const measured: Repetition[] = [];
      for (let repetition = 0; repetition < repetitions; repetition++) {
        await settled(servers[0]!.url);
        const rawLatencies = await rawCommits(raw, context.quick ? 300 : 1000);
        const one = await approveAll([alone], take(perRepetition));
        await settled(servers[0]!.url);
        const three = await approveAll(spread, take(perRepetition));
        measured.push({ rawRate: rateOf(rawLatencies), rawLatencies, oneRate: one.rate, oneLatencies: one.latencies, threeRate: three.rate, threeLatencies: three.latencies });
      }
      await settled(servers[0]!.url);
      return rowsOf(measured, perRepetition);
    } catch (error) {
      // What the servers said is most often why: everything but their request log lines.
      for (const [index, server] of servers.entries()) {
        const exited = server.child.exitCode ?? server.child.signalCode;
        const said = server.stderr().split('\n').filter((line) => line.trim() !== '' && !line.includes('"level":"info"'));
        process.stderr.write(`server ${index + 1}${exited === null ? '' : ` (exited: ${exited})`} said:\n${said.slice(-40).join('\n') || '(nothing but request logs)'}\n`);
      }
      throw error;
    } finally {
      for (const client of clients) client.close();
      await raw.end().catch(() => undefined);
      for (const server of servers) await server.kill9();
      await database.drop().catch(() => undefined);
      await postgres.stop();
    }
  },
};

async function rawCommits(client: pg.Client, count: number): Promise<Float64Array> {
  const latencies = new Float64Array(count);
  for (let index = 0; index < count; index++) {
    const before = performance.now();
    await client.query('INSERT INTO commits (run_id, data) VALUES ($1, $2)', [`run_${index}`, '{"type":"approval_decided","approved":true}']);
    latencies[index] = performance.now() - before;
  }
  return latencies;
}

/** Approves every run, `APPROVE_CLIENTS` at a time, the clients taken in turn; fails unless each answer says the run resumed. */
async function approveAll(clients: readonly LoadClient[], runIds: readonly string[]): Promise<{ rate: number; latencies: Float64Array }> {
  const latencies = new Float64Array(runIds.length);
  const started = performance.now();
  await inParallel(runIds, APPROVE_CLIENTS, async (runId, index) => {
    const before = performance.now();
    const answer = await clients[index % clients.length]!.request('POST', `/runs/${runId}/approve`, { approved: true });
    latencies[index] = performance.now() - before;
    if (answer.status !== 200 || (answer.body.run_status !== 'running' && answer.body.run_status !== 'completed')) {
      throw new Error(`approving ${runId} did not resume it: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  });
  return { rate: (runIds.length / (performance.now() - started)) * 1000, latencies };
}

function rowsOf(measured: Repetition[], perRepetition: number): BenchRow[] {
  const sorted = (values: Float64Array) => Float64Array.from(values).sort();
  const p = (values: Float64Array, q: number) => percentile(sorted(values), q) * 1000;
  const rawRate = median(measured.map((repetition) => repetition.rawRate));
  const oneRatios = measured.map((repetition) => repetition.oneRate / repetition.rawRate);
  const threeVsOne = measured.map((repetition) => repetition.threeRate / repetition.oneRate);
  const name = `POST /runs/:id/approve → run resumed, ${APPROVE_CLIENTS} concurrent HTTP clients, PostgreSQL store`;
  return [
    {
      suite: 'server-postgres',
      case: RAW_BASELINE,
      p50_us: round(median(measured.map((repetition) => p(repetition.rawLatencies, 0.5)))),
      p99_us: round(median(measured.map((repetition) => p(repetition.rawLatencies, 0.99)))),
      ops_per_s: Math.round(rawRate),
      ratio: null,
      baseline: null,
      note: 'through the Unix socket, the same machine',
    },
    {
      suite: 'server-postgres',
      case: `${name}, one server`,
      p50_us: round(median(measured.map((repetition) => p(repetition.oneLatencies, 0.5)))),
      p99_us: round(median(measured.map((repetition) => p(repetition.oneLatencies, 0.99)))),
      ops_per_s: Math.round(median(measured.map((repetition) => repetition.oneRate))),
      ratio: round(median(oneRatios), 2),
      baseline: RAW_BASELINE,
      ratio_meaning: 'approvals/s / raw commits/s (higher is better)',
      target: 'approve throughput >= 50% of raw PostgreSQL commits',
      met: median(oneRatios) >= 0.5,
      spread: spreadOf({ of: 'rate ratio', values: oneRatios, digits: 2 }),
      note: `${perRepetition} approvals per repetition`,
    },
    {
      suite: 'server-postgres',
      case: `${name}, three servers sharing the database (approvals round-robin)`,
      p50_us: round(median(measured.map((repetition) => p(repetition.threeLatencies, 0.5)))),
      p99_us: round(median(measured.map((repetition) => p(repetition.threeLatencies, 0.99)))),
      ops_per_s: Math.round(median(measured.map((repetition) => repetition.threeRate))),
      ratio: round(median(threeVsOne), 2),
      baseline: `${name}, one server`,
      ratio_meaning: 'approvals/s, three servers / one server (higher is better)',
      target: 'three servers at least as fast as one',
      met: median(threeVsOne) >= 1,
      spread: spreadOf({ of: 'three/one', values: threeVsOne, digits: 2 }),
      note: 'three servers on the same two cores',
    },
  ];
}
