import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { GatewayStatsSnapshot } from '../../src/mcp/gateway-stats.ts';
import { measure, median, round, type BenchRow, type BenchSuite, type LatencyStats } from '../harness.ts';

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
 * by a rule), measured in the same run, repetitions alternating. The gateway
 * adds a process hop and the gate: a byte relay process measures the hop alone
 * (the floor for any stdio gateway on this machine), and the gateway's own
 * share (receiving the call to forwarding it) is measured inside it and
 * reported as a note. The main gateway row runs with the
 * audit log off; a second row shows the durable audit log (fdatasync per
 * record) on this disk.
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
  const iterations = quick ? 300 : 2000;
  const repetitions = quick ? 3 : 5;
  const workspace = path.join(directory, 'ws');
  fs.mkdirSync(workspace);
  const file = path.join(workspace, 'bench.txt');
  fs.writeFileSync(file, `${'toolgate gateway benchmark line\n'.repeat(32)}`);
  const call = { name: 'read_text_file', arguments: { path: file } };

  // Direct and gateway repetitions alternate, so both see the same load on a shared machine.
  const plain = gatewayCommand({ directory, workspace, audit: false });
  const [direct, relay, gateway] = await withClients(
    [{ command: NODE, args: [FILESYSTEM_SERVER, workspace] }, { command: NODE, args: [RELAY, NODE, FILESYSTEM_SERVER, workspace] }, plain.server],
    (clients) => alternate({ clients, call, iterations, repetitions }),
  );
  const plainStats = await readWhenWritten(plain.statsPath);
  const audit = gatewayCommand({ directory, workspace, audit: true });
  const [audited] = await withClients([audit.server], (clients) => alternate({ clients, call, iterations, repetitions }));
  const auditStats = await readWhenWritten(audit.statsPath);

  const ratio = gateway!.p50_us / direct!.p50_us;
  const overhead = (stats: GatewayStatsSnapshot) =>
    `in-gateway overhead (call received → forwarded upstream) p50 ${stats.beforeForward.p50_us} µs, p99 ${stats.beforeForward.p99_us} µs over the last ${Math.min(stats.beforeForward.count, 16_384)} calls`;
  return [
    { suite: 'mcp', case: BASELINE, p50_us: round(direct!.p50_us), p99_us: round(direct!.p99_us), ops_per_s: Math.round(direct!.ops_per_s), ratio: null, baseline: null },
    {
      suite: 'mcp',
      case: 'same call through a byte relay process (the floor of any stdio gateway: one more process hop, no parsing)',
      p50_us: round(relay!.p50_us),
      p99_us: round(relay!.p99_us),
      ops_per_s: Math.round(relay!.ops_per_s),
      ratio: round(relay!.p50_us / direct!.p50_us, 2),
      baseline: BASELINE,
      ratio_meaning: 'p50 latency, relay / direct (lower is better)',
    },
    {
      suite: 'mcp',
      case: 'same call through toolgate mcp (stdio, allowed by rule, audit off)',
      p50_us: round(gateway!.p50_us),
      p99_us: round(gateway!.p99_us),
      ops_per_s: Math.round(gateway!.ops_per_s),
      ratio: round(ratio, 2),
      baseline: BASELINE,
      ratio_meaning: 'p50 latency, gateway / direct (lower is better)',
      target: 'gateway <= 1.3x direct p50',
      met: ratio <= 1.3,
      note: overhead(plainStats),
    },
    {
      suite: 'mcp',
      case: "same, with the durable audit log (one fdatasync'ed record per allowed call)",
      p50_us: round(audited!.p50_us),
      p99_us: round(audited!.p99_us),
      ops_per_s: Math.round(audited!.ops_per_s),
      ratio: round(audited!.p50_us / direct!.p50_us, 2),
      baseline: BASELINE,
      ratio_meaning: 'p50 latency, gateway / direct (lower is better)',
      note: `${overhead(auditStats)}; measured after the other two`,
    },
  ];
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

/** One repetition of each client in turn; the result per client is the median over repetitions. */
async function alternate(options: {
  clients: Client[];
  call: { name: string; arguments: Record<string, unknown> };
  iterations: number;
  repetitions: number;
}): Promise<LatencyStats[]> {
  const { clients, call, iterations } = options;
  for (const client of clients) await measure({ fn: () => client.callTool(call), iterations: Math.min(iterations, 500), repetitions: 1, warmup: 0 });
  const samples = clients.map(() => ({ p50: [] as number[], p99: [] as number[], rate: [] as number[] }));
  for (let repetition = 0; repetition < options.repetitions; repetition++) {
    for (const [index, client] of clients.entries()) {
      const stats = await measure({ fn: () => client.callTool(call), iterations, repetitions: 1, warmup: 0 });
      samples[index]!.p50.push(stats.p50_us);
      samples[index]!.p99.push(stats.p99_us);
      samples[index]!.rate.push(stats.ops_per_s);
    }
  }
  return samples.map((sample) => ({ p50_us: median(sample.p50), p99_us: median(sample.p99), ops_per_s: median(sample.rate) }));
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
