import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { GatewayStatsSnapshot } from '../../src/mcp/gateway-stats.ts';
import { measure, median, round, spreadOf, type BenchRow, type BenchSuite } from '../harness.ts';

const ROOT = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const NODE = path.join(ROOT, 'node_modules', '.bin', 'node');
const FILESYSTEM_SERVER = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const MCP_ENTRY = path.join(ROOT, 'src', 'cli', 'mcp-entry.ts');
const RELAY = path.join(ROOT, 'bench', 'fixtures', 'stdio-relay.ts');
const BASELINE = 'server-filesystem read_text_file, direct (SDK Client over stdio)';

/**
 * The price of the gateway on a real call: server-filesystem's
 * `read_text_file` called by the SDK's Client over stdio, directly and through
 * `toolgate mcp` (a separate process that spawns the server and allows the tool
 * by a rule), measured in the same run. The gateway
 * adds a process hop and the gate: a byte relay process measures the hop alone
 * (the floor for any stdio gateway on this machine), and the gateway's own
 * share (receiving the call to forwarding it) is measured inside it and
 * reported as a note. The gateway runs twice, with the audit log off and
 * with the durable audit log on this disk; a fifth caller makes the direct
 * call with an audit-sized fdatasync alongside, which is what syncing while
 * the server works costs with no gateway at all. All five take turns in
 * short rounds, and each ratio is the median of per-round ratios against the
 * direct call of the same round, with the spread over rounds.
 */
export const mcpSuite: BenchSuite = {
  name: 'mcp',
  async run(context) {
    const directory = fs.mkdtempSync(path.join(context.scratch, 'mcp-'));
    try {
      return await runSuite(directory, context.quick);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  },
};

async function runSuite(directory: string, quick: boolean): Promise<BenchRow[]> {
  // 25 rounds: single rounds swing from 0.7x to 2.9x direct on a busy two-core machine, and the median of 15 still moved by a tenth run to run.
  const rounds = quick ? 7 : 25;
  const iterations = quick ? 150 : 400;
  const workspace = path.join(directory, 'ws');
  fs.mkdirSync(workspace);
  const file = path.join(workspace, 'bench.txt');
  fs.writeFileSync(file, `${'toolgate gateway benchmark line\n'.repeat(32)}`);
  const call = { name: 'read_text_file', arguments: { path: file } };

  // All five run at once and take turns, round after round, so every one sees the same load on a shared machine.
  const plain = gatewayCommand({ directory, workspace, audit: false });
  const audit = gatewayCommand({ directory, workspace, audit: true });
  // What syncing while the server works costs with no gateway at all: the direct call, with one
  // audit-sized line appended and fdatasync'ed alongside it, in the same rounds.
  const syncedFile = fs.openSync(path.join(directory, 'fdatasync-floor.jsonl'), 'a', 0o600);
  const line = Buffer.from(`${JSON.stringify({ v: 1, kind: 'verdict', tool: 'read_text_file', args: { path: file }, reason: 'x'.repeat(400) })}\n`);
  const directWhileSyncing = (client: Client) => async () => {
    fs.writeSync(syncedFile, line);
    const synced = new Promise<void>((resolve, reject) => fs.fdatasync(syncedFile, (error) => (error ? reject(error) : resolve())));
    await client.callTool(call);
    await synced;
  };
  const [direct, relay, gateway, audited, syncing] = await withClients(
    [{ command: NODE, args: [FILESYSTEM_SERVER, workspace] }, { command: NODE, args: [RELAY, NODE, FILESYSTEM_SERVER, workspace] }, plain.server, audit.server],
    (clients) => interleave({ calls: [...clients.map((client) => () => client.callTool(call)), directWhileSyncing(clients[0]!)], iterations, rounds }),
  ).finally(() => fs.closeSync(syncedFile));
  const plainStats = await readWhenWritten(plain.statsPath);
  const auditStats = await readWhenWritten(audit.statsPath);

  // The audited call's floor here: the relay's hop, times what a sync alongside the call costs it
  // (the sync itself when it outlasts the call, and on a small machine the CPU and disk it takes from the server).
  const floorRatio = median(pairedRatios(relay!, direct!, 'p50')) * median(pairedRatios(syncing!, direct!, 'p50'));
  const overhead = (stats: GatewayStatsSnapshot) =>
    `in-gateway overhead (call received → forwarded upstream) p50 ${stats.beforeForward.p50_us} µs, p99 ${stats.beforeForward.p99_us} µs over the last ${Math.min(stats.beforeForward.count, 16_384)} calls` +
    (stats.heldUntilDurable.count === 0 ? '' : `; answer held after the server's reply until the record was durable p50 ${stats.heldUntilDurable.p50_us} µs, p99 ${stats.heldUntilDurable.p99_us} µs`);
  const meaning = (figure: string, what: string) => `${figure} latency, ${what} / direct, median over ${rounds} interleaved rounds of ${iterations} calls (lower is better)`;
  const row = (options: { case: string; of: RoundStats; figure: 'p50' | 'p99'; what: string; target?: number; note?: string }): BenchRow => {
    const ratios = pairedRatios(options.of, direct!, options.figure);
    const ratio = median(ratios);
    return {
      suite: 'mcp',
      case: options.case,
      p50_us: round(median(options.of.p50)),
      p99_us: round(median(options.of.p99)),
      ops_per_s: Math.round(median(options.of.rate)),
      ratio: round(ratio, 3),
      baseline: BASELINE,
      ratio_meaning: meaning(options.figure, options.what),
      ...(options.target === undefined
        ? {}
        : {
            target: `${options.what} <= ${options.target}x direct ${options.figure}`,
            met: ratio <= options.target,
            spread: spreadOf({ of: `${options.figure} ratio`, values: ratios }),
          }),
      ...(options.note === undefined ? {} : { note: options.note }),
    };
  };
  return [
    {
      suite: 'mcp',
      case: BASELINE,
      p50_us: round(median(direct!.p50)),
      p99_us: round(median(direct!.p99)),
      ops_per_s: Math.round(median(direct!.rate)),
      ratio: null,
      baseline: null,
    },
    row({ case: 'same call through a byte relay process (the floor of any stdio gateway: one more process hop, no parsing)', of: relay!, figure: 'p50', what: 'relay' }),
    row({ case: 'same call through toolgate mcp (stdio, allowed by rule, audit off)', of: gateway!, figure: 'p50', what: 'gateway', target: 1.3, note: overhead(plainStats) }),
    row({ case: 'same call through toolgate mcp (audit off), p99', of: gateway!, figure: 'p99', what: 'gateway', target: 1.3, note: againstRelay(gateway!, relay!) }),
    row({ case: 'same call through the byte relay, p99 (the floor of the row above: one more process hop, no parsing)', of: relay!, figure: 'p99', what: 'relay' }),
    row({
      case: "same, with the durable audit log (record written before forwarding, fdatasync'ed while the server works, result held until durable)",
      of: audited!,
      figure: 'p50',
      what: 'audited gateway',
      target: 1.5,
      note: `${overhead(auditStats)}; its floor on this machine ≈ ${round(floorRatio, 2)}x direct (the relay's hop times what a sync alongside the call costs it; rows above and below)`,
    }),
    row({
      case: "direct call with one audit-sized line appended and fdatasync'ed alongside it (what syncing while the server works costs on this machine, with no gateway)",
      of: syncing!,
      figure: 'p50',
      what: 'direct call with a sync alongside',
    }),
  ];
}

interface RoundStats {
  p50: number[];
  p99: number[];
  rate: number[];
}

/**
 * Whether the gateway's tail is its own or the machine's: its p99 against the
 * byte relay's p99 in the same rounds. A gateway whose p99 is above the
 * relay's in about half the rounds has a tail the relay shares.
 */
function againstRelay(gateway: RoundStats, relay: RoundStats): string {
  const ratios = pairedRatios(gateway, relay, 'p99');
  const above = ratios.filter((ratio) => ratio > 1).length;
  return `p99 above the byte relay's in ${above} of ${ratios.length} rounds; gateway / relay p99 median ${round(median(ratios), 2)}x`;
}

/** Each round's figure over the direct call's figure in the same round: load on the machine moves both alike. */
function pairedRatios(of: RoundStats, direct: RoundStats, figure: 'p50' | 'p99'): number[] {
  return of[figure].map((value, index) => value / direct[figure][index]!);
}

/** `rounds` rounds of `iterations` of each call, the calls in a shuffled order each round. */
async function interleave(options: { calls: Array<() => Promise<unknown>>; iterations: number; rounds: number }): Promise<RoundStats[]> {
  const { calls, iterations } = options;
  for (const fn of calls) await measure({ fn, iterations: Math.min(iterations, 300), repetitions: 1, warmup: 0 });
  const samples: RoundStats[] = calls.map(() => ({ p50: [], p99: [], rate: [] }));
  let seed = 11;
  for (let round = 0; round < options.rounds; round++) {
    const order = calls.map((fn, index) => ({ fn, index, key: (seed = (seed * 48271) % 2147483647) })).sort((left, right) => left.key - right.key);
    for (const { fn, index } of order) {
      const stats = await measure({ fn, iterations, repetitions: 1, warmup: 0 });
      samples[index]!.p50.push(stats.p50_us);
      samples[index]!.p99.push(stats.p99_us);
      samples[index]!.rate.push(stats.ops_per_s);
    }
  }
  return samples;
}

/** `toolgate mcp` through its CLI entry, on a policy that allows read_text_file. */
function gatewayCommand(options: { directory: string; workspace: string; audit: boolean }): { server: { command: string; args: string[] }; statsPath: string } {
  const name = options.audit ? 'audited' : 'plain';
  const policyPath = path.join(options.directory, `${name}.json`);
  const statsPath = path.join(options.directory, `${name}-stats.json`);
  fs.writeFileSync(
    policyPath,
    JSON.stringify({
      audit: { enabled: options.audit, path: `${name}-audit.jsonl` },
      mcp: { servers: { filesystem: { command: NODE, args: [FILESYSTEM_SERVER, options.workspace], tools: { read_text_file: 'allow' } } } },
    }),
  );
  // The gateway writes its statistics when it stops, which closing the client's stdin causes.
  return { server: { command: NODE, args: [MCP_ENTRY, '--policy', policyPath, '--no-terminal', '--stats-file', statsPath] }, statsPath };
}

async function withClients<Value>(servers: { command: string; args: string[] }[], use: (clients: Client[]) => Promise<Value>): Promise<Value> {
  const clients: Client[] = [];
  try {
    for (const server of servers) {
      const client = new Client({ name: 'toolgate-bench', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ ...server, stderr: 'ignore' }));
      clients.push(client);
    }
    return await use(clients);
  } finally {
    for (const client of clients) await client.close();
  }
}

async function readWhenWritten(file: string): Promise<GatewayStatsSnapshot> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return (JSON.parse(fs.readFileSync(file, 'utf8')) as { stats: GatewayStatsSnapshot }).stats;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
