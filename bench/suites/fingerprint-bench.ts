import { fingerprint } from '../../src/core/fingerprint.ts';
import { measure, round, type BenchRow, type BenchSuite } from '../harness.ts';

/** Fingerprinting payloads of 1 KB, 100 KB and 1 MB against plain JSON.stringify. */
export const fingerprintSuite: BenchSuite = {
  name: 'fingerprint',
  async run(context) {
    const rows: BenchRow[] = [];
    for (const [label, bytes] of [
      ['1 KB', 1024],
      ['100 KB', 100 * 1024],
      ['1 MB', 1024 * 1024],
    ] as const) {
      const payload = makePayload(bytes);
      const iterations = Math.max(20, Math.round((context.quick ? 2e6 : 2e7) / bytes));
      const baseline = await measure({ fn: () => JSON.stringify(payload), iterations, warmup: 10 });
      const ours = await measure({ fn: () => fingerprint(payload), iterations, warmup: 10 });
      rows.push({ suite: 'fingerprint', case: `JSON.stringify ${label}`, p50_us: round(baseline.p50_us), p99_us: round(baseline.p99_us), ops_per_s: Math.round(baseline.ops_per_s), ratio: null, baseline: null });
      rows.push({
        suite: 'fingerprint',
        case: `fingerprint ${label}`,
        p50_us: round(ours.p50_us),
        p99_us: round(ours.p99_us),
        ops_per_s: Math.round(ours.ops_per_s),
        ratio: round(ours.p50_us / baseline.p50_us, 2),
        baseline: `JSON.stringify ${label}`,
        ratio_meaning: 'p50 latency, fingerprint / JSON.stringify (lower is better)',
      });
    }
    return rows;
  },
};

/** A realistic mix: a file write with content, nested options, a list of paths. */
function makePayload(bytes: number): unknown {
  const files: { path: string; mode: number; tags: string[] }[] = [];
  let size = 0;
  while (size < bytes / 2) {
    const entry = { path: `ws/dir_${files.length}/file_${files.length}.txt`, mode: 0o644, tags: ['a', 'b'] };
    files.push(entry);
    size += 60;
  }
  return { tool: 'write_file', options: { overwrite: true, encoding: 'utf8' }, content: 'x'.repeat(Math.max(0, bytes - size)), files };
}
