import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { createGate } from '../../src/core/gate.ts';
import { normalizePolicy } from '../../src/core/policy/normalize-policy.ts';
import type { ToolCall } from '../../src/core/types.ts';
import { createFsTools } from '../../src/tools/fs/create-fs-tools.ts';
import { zonesFromPolicy } from '../../src/tools/fs/zones.ts';
import { measure, round, spreadOf, type BenchRow, type BenchSuite } from '../harness.ts';

/**
 * The filesystem decision: `gate.evaluate` of `read_file` (allow) and
 * `write_file` (ask, presentation not built) on an existing file in a zone,
 * which includes schema validation and resolving the path on the real
 * filesystem. The baseline is a bare `fs.promises.realpath` of the same path
 * in the same run: the syscalls no correct check can skip. The resolution
 * calls `realpathSync.native` (the promise version's thread-pool hop costs
 * more than the syscalls), shown as a second reference row.
 */
export const fsSuite: BenchSuite = {
  name: 'fs',
  async run(context) {
    const project = path.join(context.scratch, 'fs-bench');
    mkdirSync(path.join(project, 'ws', 'src', 'components'), { recursive: true });
    const target = path.join(project, 'ws', 'src', 'components', 'button.tsx');
    writeFileSync(target, 'export const Button = () => null;\n');
    const policy = normalizePolicy({ fs: { zones: [{ name: 'workspace', root: 'ws', mode: 'rw' }, { name: 'docs', root: 'ws/src', mode: 'ro' }] } });
    const zones = zonesFromPolicy({ policy, policyDirectory: project });
    const gate = createGate({ policy, tools: createFsTools({ zones, cwd: project }) });
    const gateContext = { sessionId: 'bench' };
    const relative = 'ws/src/components/button.tsx';
    const read: ToolCall = { tool: 'read_file', args: { path: relative }, callId: 'r' };
    const write: ToolCall = { tool: 'write_file', args: { path: 'ws/notes.md', content: 'hello\n' }, callId: 'w' };
    writeFileSync(path.join(project, 'ws', 'notes.md'), 'before\n');

    // Sanity before timing: the verdicts are the ones being measured.
    const readVerdict = await gate.evaluate(read, gateContext);
    const writeVerdict = await gate.evaluate(write, gateContext);
    if (readVerdict.kind !== 'allow' || writeVerdict.kind !== 'ask') {
      throw new Error(`unexpected verdicts: read ${readVerdict.kind} (${readVerdict.reason}), write ${writeVerdict.kind} (${writeVerdict.reason})`);
    }

    const iterations = context.quick ? 3_000 : 30_000;
    const repetitions = context.quick ? 3 : 5;
    const baseline = await measure({ fn: () => realpath(target), iterations, repetitions });
    const baselineWrite = await measure({ fn: () => realpath(path.join(project, 'ws', 'notes.md')), iterations, repetitions });
    const syncBaseline = await measure({ fn: () => realpathSync.native(target), iterations, repetitions });
    const ours = await measure({ fn: () => gate.evaluate(read, gateContext), iterations, repetitions });
    const oursWrite = await measure({ fn: () => gate.evaluate(write, gateContext), iterations, repetitions });
    const target_us = 30;
    const row = (label: string, stats: typeof ours, against: typeof baseline, baselineLabel: string): BenchRow => ({
      suite: 'fs',
      case: label,
      p50_us: round(stats.p50_us),
      p99_us: round(stats.p99_us),
      ops_per_s: Math.round(stats.ops_per_s),
      ratio: round(stats.p50_us / against.p50_us, 2),
      baseline: baselineLabel,
      ratio_meaning: 'p50 latency, toolgate / realpath (lower is better)',
      target: `fs decision p50 <= ${target_us} us`,
      met: stats.p50_us <= target_us,
      spread: spreadOf({ of: 'p50 µs', values: stats.repetitions!.p50_us }),
    });
    return [
      { suite: 'fs', case: 'fs.promises.realpath (4 levels deep)', p50_us: round(baseline.p50_us), p99_us: round(baseline.p99_us), ops_per_s: Math.round(baseline.ops_per_s), ratio: null, baseline: null },
      {
        suite: 'fs',
        case: 'fs.realpathSync.native (4 levels deep)',
        p50_us: round(syncBaseline.p50_us),
        p99_us: round(syncBaseline.p99_us),
        ops_per_s: Math.round(syncBaseline.ops_per_s),
        ratio: round(syncBaseline.p50_us / baseline.p50_us, 2),
        baseline: 'fs.promises.realpath (4 levels deep)',
        ratio_meaning: 'p50 latency, sync / promise realpath',
        note: 'what the resolution calls',
      },
      row('gate.evaluate read_file, existing file (allow)', ours, baseline, 'fs.promises.realpath (4 levels deep)'),
      { suite: 'fs', case: 'fs.promises.realpath (2 levels deep)', p50_us: round(baselineWrite.p50_us), p99_us: round(baselineWrite.p99_us), ops_per_s: Math.round(baselineWrite.ops_per_s), ratio: null, baseline: null },
      { ...row('gate.evaluate write_file, existing file (ask)', oursWrite, baselineWrite, 'fs.promises.realpath (2 levels deep)'), note: 'presentation (diff) built lazily, not timed' },
    ];
  },
};
