/**
 * `npm run bench [-- --quick] [-- --only SUITE,...] [-- --check]`: runs every
 * benchmark suite, prints one table, and writes it as markdown and JSON under
 * bench/results/ (latest.* and a dated copy) with the Node version, CPU and
 * date. Every row carries `target` and `met` (null when it has no target).
 * With `--check` the process exits 1 when a row with a target missed it, and
 * prints those rows; without it, a miss is reported in the table only.
 *
 * Each suite runs in a process of its own (this script again, with
 * `--child SUITE`): what one suite leaves behind — a heap grown by megabyte
 * strings, compiled code, files still being synced — would otherwise slow
 * the next one's figures (in one process, the fs decision measured 29 µs
 * after the fingerprint or the audit suite, and 25 µs alone).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchRow, BenchSuite, Spread } from './harness.ts';

/** Loaded one at a time, so a suite's dependencies (Cedar, SQLite...) load only when it runs. */
const SUITES: { name: string; load: () => Promise<BenchSuite> }[] = [
  { name: 'decisions', load: async () => (await import('./suites/decisions-bench.ts')).decisionsSuite },
  { name: 'fingerprint', load: async () => (await import('./suites/fingerprint-bench.ts')).fingerprintSuite },
  { name: 'audit', load: async () => (await import('./suites/audit-bench.ts')).auditSuite },
  { name: 'fs', load: async () => (await import('./suites/fs-bench.ts')).fsSuite },
  { name: 'mcp', load: async () => (await import('./suites/mcp-bench.ts')).mcpSuite },
  { name: 'shell', load: async () => (await import('./suites/shell-bench.ts')).shellSuite },
  { name: 'ai-sdk', load: async () => (await import('./suites/ai-sdk-bench.ts')).aiSdkSuite },
  { name: 'server', load: async () => (await import('./suites/server-bench.ts')).serverSuite },
  { name: 'server-postgres', load: async () => (await import('./suites/server-postgres-bench.ts')).serverPostgresSuite },
  { name: 'hook', load: async () => (await import('./suites/hook-bench.ts')).hookSuite },
  { name: 'replay', load: async () => (await import('./suites/replay-bench.ts')).replaySuite },
];

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    quick: { type: 'boolean' },
    only: { type: 'string' },
    out: { type: 'string' },
    check: { type: 'boolean' },
    suite: { type: 'string', multiple: true },
    // Internal: run one suite in this process and write its rows to `--rows`.
    child: { type: 'string' },
    rows: { type: 'string' },
  },
});
// `--suite FILE`: one more suite from a module whose default export is a BenchSuite (tests of --check use it).
for (const file of values.suite ?? []) {
  const suite = ((await import(pathToFileURL(path.resolve(file)).href)) as { default: BenchSuite }).default;
  SUITES.push({ name: suite.name, load: async () => suite });
}
const quick = values.quick === true;
const only = values.only?.split(',');
const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const scratch = mkdtempSync(path.join(root, '.bench-scratch-'));
const rows: BenchRow[] = [];
const started = Date.now();
if (values.child !== undefined) {
  try {
    await runChild(values.child, values.rows);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  process.exit(0);
}
try {
  for (const entry of SUITES) {
    if (only !== undefined && !only.includes(entry.name)) continue;
    process.stderr.write(`bench: ${entry.name}...\n`);
    const suiteStarted = Date.now();
    for (const row of runInOwnProcess(entry.name)) rows.push({ ...row, target: row.target ?? null, met: row.target === undefined || row.target === null ? null : row.met === true, spread: row.spread ?? null });
    process.stderr.write(`bench: ${entry.name} done in ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s\n`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/** Runs one suite in a fresh Node process (this script, `--child`), its progress on this stderr; its rows. */
function runInOwnProcess(name: string): BenchRow[] {
  const rowsFile = path.join(scratch, `${name}.rows.json`);
  const args = [...process.execArgv, process.argv[1]!, '--child', name, '--rows', rowsFile, ...(quick ? ['--quick'] : []), ...(values.suite ?? []).flatMap((file) => ['--suite', file])];
  const child = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (child.error !== undefined) throw child.error;
  if (child.status !== 0) throw new Error(`the ${name} suite failed (${child.status === null ? `signal ${child.signal}` : `exit ${child.status}`}); its error is above`);
  return JSON.parse(readFileSync(rowsFile, 'utf8')) as BenchRow[];
}

async function runChild(name: string, rowsFile: string | undefined): Promise<void> {
  const entry = SUITES.find((candidate) => candidate.name === name);
  if (entry === undefined || rowsFile === undefined) throw new Error(`--child needs a known suite and --rows FILE, got ${JSON.stringify(name)}`);
  const suite = await entry.load();
  writeFileSync(rowsFile, JSON.stringify(await suite.run({ quick, scratch })));
}

const machine = {
  date: new Date().toISOString(),
  node: process.version,
  cpu: `${os.cpus()[0]?.model ?? 'unknown'} x ${os.cpus().length}`,
  platform: `${os.platform()} ${os.release()}`,
  quick,
  seconds: Math.round((Date.now() - started) / 100) / 10,
};
const markdown = toMarkdown(rows, machine);
process.stdout.write(`${markdown}\n`);
const out = values.out ?? path.join(root, 'bench', 'results');
mkdirSync(out, { recursive: true });
const stamp = machine.date.slice(0, 10);
for (const name of ['latest', stamp]) {
  writeFileSync(path.join(out, `${name}${quick ? '-quick' : ''}.md`), `${markdown}\n`);
  writeFileSync(path.join(out, `${name}${quick ? '-quick' : ''}.json`), `${JSON.stringify({ machine, rows }, null, 2)}\n`);
}
const missed = rows.filter((row) => row.met === false);
if (values.check === true) {
  if (missed.length > 0) {
    process.stderr.write(`bench --check: ${missed.length} row${missed.length === 1 ? '' : 's'} missed ${missed.length === 1 ? 'its target' : 'their targets'}:\n`);
    for (const row of missed) process.stderr.write(`  ${row.suite} | ${row.case} | target ${row.target} | p50 ${row.p50_us} µs, p99 ${row.p99_us} µs, ratio ${row.ratio ?? '-'}${row.spread ? ` | ${spreadText(row.spread)}` : ''}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`bench --check: every one of ${rows.filter((row) => row.met === true).length} targets met\n`);
  }
}

function spreadText(spread: Spread): string {
  return `${spread.of} ${spread.low}–${spread.high} over ${spread.repetitions}`;
}

function toMarkdown(table: BenchRow[], info: typeof machine): string {
  const format = (value: number | null | undefined) => (value === null || value === undefined ? '' : value >= 1000 ? Math.round(value).toLocaleString('en-US') : String(value));
  const lines = [
    `toolgate benchmarks — ${info.date} — Node ${info.node} — ${info.cpu} — ${info.platform}${info.quick ? ' — quick' : ''}`,
    '',
    '| suite | case | p50 µs | p99 µs | ops/s | ratio | vs (same run) | target | met | spread (min–max of the targeted figure) |',
    '|---|---|---:|---:|---:|---:|---|---|---|---|',
  ];
  for (const row of table) {
    const met = row.met === undefined || row.met === null ? '' : row.met ? 'yes' : 'no';
    const ratio = row.ratio === null ? '' : `${row.ratio}${row.ratio_meaning ? ` (${row.ratio_meaning})` : ''}`;
    lines.push(`| ${row.suite} | ${row.case}${row.note ? ` — ${row.note}` : ''} | ${format(row.p50_us)} | ${format(row.p99_us)} | ${format(row.ops_per_s)} | ${ratio} | ${row.baseline ?? ''} | ${row.target ?? ''} | ${met} | ${row.spread ? spreadText(row.spread) : ''} |`);
  }
  return lines.join('\n');
}
