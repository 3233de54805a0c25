/**
 * Benchmarks are not tests: this only checks that `npm run bench -- --quick`
 * completes and reports every suite. No figure is asserted here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
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
    expect(new Set(report.rows.map((row) => row.suite))).toEqual(new Set(['decisions', 'fingerprint', 'audit', 'fs', 'mcp', 'shell', 'ai-sdk']));
    expect(report.machine.node).toBe(process.version);
    expect(readFileSync(path.join(out, 'latest-quick.md'), 'utf8')).toContain('| suite | case |');
  }, 320_000);
});
