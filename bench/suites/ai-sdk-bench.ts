import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool, zodSchema, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { gateTools } from '../../src/adapters/ai-sdk/gate-tools.ts';
import { createGate } from '../../src/core/gate.ts';
import { normalizePolicy } from '../../src/core/policy/normalize-policy.ts';
import { median, percentile, round, spreadOf, type BenchRow, type BenchSuite } from '../harness.ts';

/** Tool calls per run: one per step, then a final text step. */
const CALLS = 50;

const UNGATED_MADE_ONCE = 'ungated, schema made once (zodSchema)';

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A fresh scripted model: CALLS steps of one `add` call each, then text. */
function loopModel(): MockLanguageModelV4 {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async (_options: LanguageModelV4CallOptions) => {
      step++;
      if (step > CALLS) return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage: USAGE, warnings: [] };
      return {
        content: [{ type: 'tool-call', toolCallId: `call-${step}`, toolName: 'add', input: JSON.stringify({ a: step, b: 1 }) }],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage: USAGE,
        warnings: [],
      };
    },
  });
}

/**
 * An AI SDK tool loop of 50 tool calls (one per step, cheap tool, scripted
 * model) run several ways in the same process, interleaved: ungated; gated
 * by toolgate (the policy allows, so the gate answers `not-applicable` and
 * the wrapped execute checks its record); and the SDK's own `toolApproval`
 * with a trivial function, once answering `not-applicable` and once
 * `approved` with a signing secret (the SDK's full approval path).
 *
 * The tool's schema is zod, as users write it. The SDK converts it to JSON
 * Schema at every step; the gated loop converts it once (`wrap-tool.ts`), which
 * saves more than the gate costs. So that this does not hide the adapter's
 * own cost, a pair of diagnostic rows runs the same loop with the schema made
 * into the SDK's schema object beforehand, ungated and gated, and compares
 * those two.
 */
export const aiSdkSuite: BenchSuite = {
  name: 'ai-sdk',
  async run(context) {
    let executed = 0;
    const add = async ({ a, b }: { a: number; b: number }) => {
      executed++;
      return a + b;
    };
    const tools = { add: tool({ description: 'Add two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: add }) } satisfies ToolSet;
    // The same tool with its schema made into the SDK's own schema object once: the SDK no longer converts the zod schema
    // to JSON Schema at every step, in either loop (the gated loop's adapter does this itself for zod schemas).
    const madeOnce = { add: tool({ description: 'Add two numbers', inputSchema: zodSchema(z.object({ a: z.number(), b: z.number() })), execute: add }) } satisfies ToolSet;
    const gate = createGate({ policy: normalizePolicy({ tools: { add: 'allow' } }) });
    const stopWhen = stepCountIs(CALLS + 1);
    const secret = 'bench-secret-0123456789-abcdefghijklmnop';
    // `baseline`: the variant each run is paired with (default: ungated; null: this is a baseline). `targeted`: the row with the target.
    const variants: { name: string; run: () => Promise<unknown>; baseline?: string | null; targeted?: true }[] = [
      { name: 'ungated', run: () => generateText({ model: loopModel(), prompt: 'add', tools, stopWhen }), baseline: null },
      {
        name: 'gated (toolgate, policy allows)',
        targeted: true,
        run: () => generateText({ model: loopModel(), prompt: 'add', ...gateTools({ tools, gate, context: { sessionId: 'bench' }, resolve: 'blocking', stopWhen }) }),
      },
      {
        name: 'gate.authorize alone as toolApproval (diagnostic: the core gate, no adapter)',
        run: () =>
          generateText({
            model: loopModel(),
            prompt: 'add',
            tools,
            stopWhen,
            toolApproval: async ({ toolCall }) => {
              await gate.authorize({ tool: toolCall.toolName, args: toolCall.input, callId: toolCall.toolCallId }, { sessionId: 'bench' });
              return undefined;
            },
          }),
      },
      { name: UNGATED_MADE_ONCE, run: () => generateText({ model: loopModel(), prompt: 'add', tools: madeOnce, stopWhen }), baseline: null },
      {
        name: 'gated, schema made once (diagnostic: what the adapter itself costs, against ungated with the same schema)',
        run: () => generateText({ model: loopModel(), prompt: 'add', ...gateTools({ tools: madeOnce, gate, context: { sessionId: 'bench' }, resolve: 'blocking', stopWhen }) }),
        baseline: UNGATED_MADE_ONCE,
      },
      { name: "sdk toolApproval, trivial function ('not-applicable')", run: () => generateText({ model: loopModel(), prompt: 'add', tools, stopWhen, toolApproval: () => 'not-applicable' }) },
      {
        name: "sdk toolApproval, trivial function ('approved', signed)",
        run: () => generateText({ model: loopModel(), prompt: 'add', tools, stopWhen, toolApproval: () => 'approved', experimental_toolApprovalSecret: secret }),
      },
    ];

    // Sanity: every variant really runs all the calls before anything is timed.
    for (const variant of variants) {
      executed = 0;
      await variant.run();
      if (executed !== CALLS) throw new Error(`${variant.name} ran ${executed} of ${CALLS} tool calls`);
    }

    const warmup = context.quick ? 15 : 40;
    const samples = context.quick ? 120 : 500;
    const times = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
    let seed = 7;
    for (let index = 0; index < warmup + samples; index++) {
      // Interleaved, in a shuffled order each round, so drift and the garbage one run
      // leaves for the next hit every variant alike.
      const order = variants.map((variant) => ({ variant, key: (seed = (seed * 48271) % 2147483647) })).sort((left, right) => left.key - right.key);
      for (const { variant } of order) {
        const started = performance.now();
        await variant.run();
        if (index >= warmup) times.get(variant.name)!.push((performance.now() - started) * 1000);
      }
    }

    const stats = (name: string) => {
      const sorted = Float64Array.from(times.get(name)!).sort();
      return { p50: median([...sorted]), p99: percentile(sorted, 0.99) };
    };
    // The ratio pairs each run with the ungated run of the same round, then takes the
    // median: other load on the machine moves both alike and cancels out.
    const pairedRatio = (name: string, baseline: string) => {
      const own = times.get(name)!;
      const base = times.get(baseline)!;
      return median(own.map((time, index) => time / base[index]!));
    };
    // The spread: the same paired median over consecutive blocks of rounds (each an independent repetition).
    const blockRatios = (name: string) => {
      const own = times.get(name)!;
      const base = times.get('ungated')!;
      const blocks = 5;
      const size = Math.floor(own.length / blocks);
      return Array.from({ length: blocks }, (_, block) => median(own.slice(block * size, (block + 1) * size).map((time, index) => time / base[block * size + index]!)));
    };
    const rows: BenchRow[] = [];
    for (const variant of variants) {
      const own = stats(variant.name);
      const baseline = variant.baseline === undefined ? 'ungated' : variant.baseline;
      const ratio = baseline === null ? null : pairedRatio(variant.name, baseline);
      const row: BenchRow = {
        suite: 'ai-sdk',
        case: `${variant.name}, ${CALLS} tool calls in ${CALLS + 1} steps`,
        p50_us: round(own.p50),
        p99_us: round(own.p99),
        ops_per_s: round(1_000_000 / own.p50, 1),
        ratio: round(ratio),
        baseline,
        ...(baseline === null ? {} : { ratio_meaning: `run time, variant / ${baseline.split(',')[0]}, median over interleaved rounds (lower is better)` }),
        note: `ops/s = runs per second; ${samples} rounds`,
      };
      if (variant.targeted === true) {
        row.target = 'gated loop <= 1.05x ungated';
        row.met = ratio !== null && ratio <= 1.05;
        row.spread = spreadOf({ of: 'ratio of blocks of rounds', values: blockRatios(variant.name) });
      }
      rows.push(row);
    }
    return rows;
  },
};
