/**
 * Benchmarks are not tests: this checks that `npm run bench -- --quick`
 * completes and reports every suite, and that `--check` fails the process on
 * a missed target (with a suite of fixed rows). No real figure is asserted here.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('npm run bench -- --quick', () => {
  it('completes and writes a table with every suite', () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-'));
    const result = spawnSync(path.join(ROOT, 'node_modules/.bin/node'), ['bench/run.ts', '--quick', '--out', out], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(readFileSync(path.join(out, 'latest-quick.json'), 'utf8')) as { machine: { node: string }; rows: { suite: string }[] };
    expect(new Set(report.rows.map((row) => row.suite))).toEqual(new Set(['decisions', 'fingerprint', 'audit', 'fs', 'mcp', 'shell', 'ai-sdk', 'server', 'server-postgres', 'hook', 'replay']));
    expect(report.machine.node).toBe(process.version);
    expect(readFileSync(path.join(out, 'latest-quick.md'), 'utf8')).toContain('| suite | case |');
    // Every row says whether it has a target and whether it met it, and each targeted row has its spread.
    for (const row of report.rows as Record<string, unknown>[]) {
      expect(row).toHaveProperty('target');
      expect(row).toHaveProperty('met');
      expect(row.met === null).toBe(row.target === null);
      if (row.target !== null) expect(row.spread, `${String(row.case)} has no spread`).toMatchObject({ repetitions: expect.any(Number) });
    }
  }, 320_000);
});

describe('npm run bench -- --check', () => {
  /** Runs the bench on one fixed suite: rows with and without targets, `met` as given. */
  function runFixedSuite(rows: { case: string; target?: string; met?: boolean }[], extra: string[] = ['--check']) {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-check-'));
    const suiteFile = path.join(directory, 'fixed-suite.ts');
    const full = rows.map((row) => ({ suite: 'fixed', p50_us: 10, p99_us: 20, ops_per_s: 100, ratio: 1.2, baseline: null, ...row }));
    writeFileSync(suiteFile, `export default { name: 'fixed', async run() { return ${JSON.stringify(full)}; } };\n`);
    const result = spawnSync(path.join(ROOT, 'node_modules/.bin/node'), ['bench/run.ts', '--suite', suiteFile, '--only', 'fixed', '--out', directory, ...extra], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    return { ...result, report: JSON.parse(readFileSync(path.join(directory, 'latest.json'), 'utf8')) as { rows: Record<string, unknown>[] } };
  }

  it('exits non-zero and prints the rows that missed their targets', () => {
    const result = runFixedSuite([
      { case: 'informative row' },
      { case: 'fast enough', target: 'x <= 2', met: true },
      { case: 'too slow', target: 'x <= 1.1', met: false },
    ]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('1 row missed its target');
    expect(result.stderr).toContain('too slow');
    expect(result.stderr).not.toContain('fast enough');
    expect(result.report.rows.map((row) => [row.case, row.target, row.met])).toEqual([
      ['informative row', null, null],
      ['fast enough', 'x <= 2', true],
      ['too slow', 'x <= 1.1', false],
    ]);
  });

  it('exits 0 when every target is met, and a row with a target but no verdict counts as missed', () => {
    const met = runFixedSuite([{ case: 'fast enough', target: 'x <= 2', met: true }, { case: 'informative row' }]);
    expect(met.status, met.stderr).toBe(0);
    expect(met.stderr).toContain('every one of 1 targets met');
    const undecided = runFixedSuite([{ case: 'no verdict', target: 'x <= 2' }]);
    expect(undecided.status).toBe(1);
    expect(undecided.stderr).toContain('no verdict');
  });

  it('runs each suite in a process of its own, and fails the run, writing no table, when a suite throws', () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-child-'));
    const pids = path.join(directory, 'pids.txt');
    const suite = (name: string, body: string) => {
      const file = path.join(directory, `${name}.ts`);
      writeFileSync(file, `import { appendFileSync } from 'node:fs';\nexport default { name: '${name}', async run() { appendFileSync(${JSON.stringify(pids)}, process.pid + '\\n'); ${body} } };\n`);
      return file;
    };
    const rows = `return [{ suite: 'x', case: 'c', p50_us: 1, p99_us: 1, ops_per_s: 1, ratio: null, baseline: null }];`;
    const first = suite('first', rows);
    const second = suite('second', rows);
    const ok = spawnSync(path.join(ROOT, 'node_modules/.bin/node'), ['bench/run.ts', '--suite', first, '--suite', second, '--only', 'first,second', '--out', directory], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(ok.status, ok.stderr).toBe(0);
    const seen = readFileSync(pids, 'utf8').trim().split('\n');
    expect(seen).toHaveLength(2);
    expect(new Set([...seen, String(ok.pid)]).size).toBe(3);

    const broken = suite('broken', `throw new Error('the suite broke on purpose');`);
    const out = path.join(directory, 'broken-out');
    const failed = spawnSync(path.join(ROOT, 'node_modules/.bin/node'), ['bench/run.ts', '--suite', broken, '--only', 'broken', '--out', out], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toContain('the suite broke on purpose');
    expect(failed.stderr).toContain('the broken suite failed');
    expect(existsSync(path.join(out, 'latest.json'))).toBe(false);
  });

  it('reports a miss without failing when --check is not given', () => {
    const result = runFixedSuite([{ case: 'too slow', target: 'x <= 1.1', met: false }], []);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('| too slow | 10 | 20 | 100 | 1.2 |');
  });
});
