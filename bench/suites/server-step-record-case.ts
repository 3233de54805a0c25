/**
 * What recording a model answer costs (issue 32): every answer of a run is
 * sealed and written to the store's `steps` before any call in it runs. Here
 * 64 drives record answers at once into a SQLite store on the scratch disk
 * (the group commit batches them, as it batches the approvals and events of
 * `toolgate serve`), against raw SQLite commits measured in the same run,
 * repetition by repetition; and the CPU that sealing one answer takes (JSON
 * and AES-256-GCM, no disk).
 */
import path from 'node:path';
import { createSealer } from '../../src/server/seal.ts';
import { openStore } from '../../src/store/open-store.ts';
import { inParallel } from '../../test/server-harness.ts';
import { measure, median, percentile, round, spreadOf, type BenchRow } from '../harness.ts';
import { openRawDatabase, RAW_BASELINE, rateOf, rawCommits } from './server-approve-case.ts';

const DRIVES = 64;

/** An answer as the recorder keeps it: a paragraph of text and a shell call, about 1.2 KiB of JSON. */
const ANSWER = JSON.stringify({
  v: 1,
  answer: {
    content: [
      { type: 'text', text: "I'll run the recorder's tests to check the change before going on. ".repeat(9) },
      { type: 'tool-call', toolCallId: 'tg_3_1', toolName: 'shell', input: JSON.stringify({ command: 'npm test -- --reporter=dot src/server/runs/step-recorder.test.ts' }) },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: { inputTokens: { total: 4120, noCache: 4120, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 31, text: 31, reasoning: 0 } },
    warnings: [],
    response: { id: 'chatcmpl-872', modelId: 'gpt-4o-2024-08-06', timestamp: '2026-12-02T10:00:00.000Z' },
  },
  calls: [{ id: 'tg_3_1', modelId: 'call_Xk2m9q8ZpT4rV7nL1sW3yB6c', tool: 'shell' }],
});

/**
 * @example
 * const rows = await stepRecordCase({ scratch: context.scratch, quick: false });
 */
export async function stepRecordCase(options: { scratch: string; quick: boolean }): Promise<BenchRow[]> {
  const repetitions = options.quick ? 3 : 5;
  const perRepetition = options.quick ? 500 : 2000;
  const sealer = createSealer('a-bench-server-secret-0123456789abcdef');
  const store = await openStore({ location: path.join(options.scratch, `steps-${process.pid}.db`) });
  const raw = openRawDatabase(path.join(options.scratch, `raw-steps-${process.pid}.db`));
  try {
    let run = 0;
    const record = async (count: number) => {
      const latencies = new Float64Array(count);
      const started = performance.now();
      const runId = `run_bench_${run++}`;
      await inParallel(Array.from({ length: count }), DRIVES, async (_, index) => {
        const before = performance.now();
        if (!(await store.recordStep({ runId, seq: index + 1, body: sealer.seal(ANSWER) }))) throw new Error(`step ${index + 1} of ${runId} was recorded twice`);
        latencies[index] = performance.now() - before;
      });
      return { rate: (count / (performance.now() - started)) * 1000, latencies };
    };
    await record(200);
    rawCommits(raw, 200);
    const measured: Array<{ rawRate: number; rate: number; latencies: Float64Array }> = [];
    for (let repetition = 0; repetition < repetitions; repetition++) {
      const rawRate = rateOf(rawCommits(raw, options.quick ? 300 : 1000));
      measured.push({ rawRate, ...(await record(perRepetition)) });
    }
    const sealing = await measure({ fn: () => sealer.seal(ANSWER), iterations: options.quick ? 2000 : 10_000, warmup: 500 });
    const sorted = (values: Float64Array) => Float64Array.from(values).sort();
    const ratios = measured.map((repetition) => repetition.rate / repetition.rawRate);
    const p50 = median(measured.map((repetition) => percentile(sorted(repetition.latencies), 0.5) * 1000));
    const p99 = median(measured.map((repetition) => percentile(sorted(repetition.latencies), 0.99) * 1000));
    const rate = median(measured.map((repetition) => repetition.rate));
    return [
      {
        suite: 'server',
        case: `a model answer recorded before its calls run (sealed, ~1.2 KiB), ${DRIVES} drives at once, SQLite store (group commit)`,
        p50_us: round(p50),
        p99_us: round(p99),
        ops_per_s: Math.round(rate),
        ratio: round(median(ratios), 2),
        baseline: RAW_BASELINE,
        ratio_meaning: 'answers recorded/s / raw commits/s (higher is better)',
        spread: spreadOf({ of: 'rate ratio', values: ratios, digits: 2 }),
        note: `${perRepetition} answers per repetition; each step of a run adds one such write, batched with the run's other writes`,
      },
      {
        suite: 'server',
        case: 'sealing one recorded answer (JSON text, AES-256-GCM), CPU only',
        p50_us: round(sealing.p50_us),
        p99_us: round(sealing.p99_us),
        ops_per_s: Math.round(sealing.ops_per_s),
        ratio: null,
        baseline: null,
      },
    ];
  } finally {
    raw.close();
    await store.close();
  }
}
