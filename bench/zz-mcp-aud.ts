import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const ROOT = process.env.ROOT ?? '/tmp/zz/wt';
const NODE = path.join('/work/main', 'node_modules', '.bin', 'node');
const FS = path.join('/work/main', 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const ENTRY = path.join(ROOT, 'src', 'cli', 'mcp-entry.ts');
const RELAY = path.join('/work/main', 'bench', 'fixtures', 'stdio-relay.ts');
const dir = fs.mkdtempSync('/tmp/zz/mcpa-');
const ws = path.join(dir, 'ws'); fs.mkdirSync(ws);
const file = path.join(ws, 'bench.txt');
fs.writeFileSync(file, 'toolgate gateway benchmark line\n'.repeat(32));
const policyFor = (name: string, audit: boolean) => { const p = path.join(dir, name + '.json'); fs.writeFileSync(p, JSON.stringify({ audit: { enabled: audit, path: name + '-audit.jsonl' }, mcp: { servers: { filesystem: { command: NODE, args: [FS, ws], tools: { read_text_file: 'allow' } } } } })); return p; };
const variants: Record<string, { command: string; args: string[]; env?: Record<string, string> }> = {
  direct: { command: NODE, args: [FS, ws] },
  relay: { command: NODE, args: [RELAY, NODE, FS, ws] },
};
// VARIANTS: {"name": {"audit": true, "env": {...}}}
const spec = JSON.parse(process.env.VARIANTS ?? '{"plain":{"audit":false},"audited":{"audit":true}}') as Record<string, { audit: boolean; env?: Record<string, string> }>;
for (const [name, v] of Object.entries(spec)) variants[name] = { command: NODE, args: [ENTRY, '--policy', policyFor(name, v.audit), '--no-terminal', '--stats-file', path.join(dir, name + '-stats.json')], env: v.env };
const syncedFile = fs.openSync(path.join(dir, 'floor.jsonl'), 'a', 0o600);
const line = Buffer.from(`${JSON.stringify({ v: 1, kind: 'verdict', tool: 'read_text_file', args: { path: file }, reason: 'x'.repeat(400) })}\n`);
const names = Object.keys(variants);
const clients: Client[] = [];
for (const name of names) { const c = new Client({ name: 'b', version: '1' }); await c.connect(new StdioClientTransport({ ...variants[name]!, stderr: 'inherit' })); clients.push(c); }
const call = { name: 'read_text_file', arguments: { path: file } };
const fns: Array<() => Promise<unknown>> = clients.map((c) => () => c.callTool(call));
names.push('dsync');
fns.push(async () => { fs.writeSync(syncedFile, line); const s = new Promise<void>((res, rej) => fs.fdatasync(syncedFile, (e) => (e ? rej(e) : res()))); await clients[0]!.callTool(call); await s; });
const rounds = Number(process.env.ROUNDS ?? 15), iters = Number(process.env.ITERS ?? 400);
for (const f of fns) for (let i = 0; i < 300; i++) await f();
const p99: number[][] = names.map(() => []), p50: number[][] = names.map(() => []);
let seed = 11;
for (let r = 0; r < rounds; r++) {
  const order = names.map((n, i) => ({ i, k: (seed = (seed * 48271) % 2147483647) })).sort((a, b) => a.k - b.k);
  for (const { i } of order) {
    const s = new Float64Array(iters);
    for (let k = 0; k < iters; k++) { const t = performance.now(); await fns[i]!(); s[k] = (performance.now() - t) * 1000; }
    s.sort(); p50[i]!.push(s[Math.floor(iters * 0.5)]!); p99[i]!.push(s[Math.floor(iters * 0.99)]!);
  }
}
const med = (a: number[]) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]!; };
for (let i = 0; i < names.length; i++) {
  const r50 = p50[i]!.map((v, k) => v / p50[0]![k]!), r99 = p99[i]!.map((v, k) => v / p99[0]![k]!);
  console.log(`${names[i]!.padEnd(12)} p50 ${med(p50[i]!).toFixed(0).padStart(5)} ratio ${med(r50).toFixed(3)}  p99 ratio ${med(r99).toFixed(3)}`);
}
for (const c of clients) await c.close();
await new Promise((r) => setTimeout(r, 1500));
for (const name of Object.keys(spec)) { try { const j = JSON.parse(fs.readFileSync(path.join(dir, name + '-stats.json'), 'utf8')); console.log(name, 'beforeForward', JSON.stringify(j.stats.beforeForward), 'held', JSON.stringify(j.stats.heldUntilDurable)); } catch (e) { console.log(String(e)); } }
fs.rmSync(dir, { recursive: true, force: true });
