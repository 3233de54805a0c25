/**
 * The differential property, over random runs: any subset of the
 * `needsApproval` shapes, any parallel calls to them (amounts either side of
 * the tools' threshold, ids either side of the call-id rule), any scenario
 * (untrusted messages or not, tool context level), any mix of per-tool
 * `allow` / `ask` / no rule, deferred or blocking, `generateText` or
 * `streamText`: the gated run never executes a call that plain
 * `generateText` paused for, and pauses, asks about or denies each of them.
 */
import type { ToolSet } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gateTools } from '../src/adapters/ai-sdk/index.ts';
import { createGate, normalizePolicy, type PresentedRequest } from '../src/index.ts';
import { APPROVAL_SHAPES, matrixToolName, runGated, runUngated, type MatrixCall } from './ai-sdk-approval-matrix.ts';

const runArbitrary = fc
  .record({
    shapes: fc.subarray([...APPROVAL_SHAPES], { minLength: 1, maxLength: 5 }),
    untrusted: fc.boolean(),
    level: fc.constantFrom('high' as const, 'low' as const),
    resolve: fc.constantFrom('deferred' as const, 'blocking' as const),
    stream: fc.boolean(),
    rules: fc.array(fc.constantFrom('none', 'allow', 'ask'), { minLength: 5, maxLength: 5 }),
    calls: fc.array(
      fc.record({
        shape: fc.nat(),
        executes: fc.boolean(),
        amount: fc.constantFrom(0, 50, 100, 101, 500),
        idSuffix: fc.constantFrom('high', 'low'),
      }),
      { minLength: 1, maxLength: 6 },
    ),
  })
  .map((run) => ({
    ...run,
    calls: run.calls.map(
      (call, index): MatrixCall => ({
        toolCallId: `c${index}-${call.idSuffix}`,
        toolName: matrixToolName(run.shapes[call.shape % run.shapes.length]!, call.executes),
        input: { amount: call.amount },
      }),
    ),
  }));

describe('differential property: gated never asks less than the SDK', () => {
  it('holds for random tool sets, calls, scenarios and policies', async () => {
    await fc.assert(
      fc.asyncProperty(runArbitrary, async (run) => {
        const scenario = { untrusted: run.untrusted, level: run.level };
        const ungated = await runUngated({ shapes: run.shapes, scenario, calls: run.calls });
        const asked: PresentedRequest[] = [];
        const gate = (tools: ToolSet) => {
          const rules: Record<string, string> = {};
          Object.keys(tools).forEach((name, index) => {
            const rule = run.rules[index % run.rules.length]!;
            if (rule !== 'none') rules[name] = rule;
          });
          return gateTools({
            tools,
            gate: createGate({ policy: normalizePolicy({ tools: rules }) }),
            context: { sessionId: 'property' },
            resolve: run.resolve,
            ...(run.resolve === 'blocking' ? { approver: { ask: async (request: PresentedRequest) => (asked.push(request), { approved: false, scope: 'once' as const }) } } : {}),
          });
        };
        const gated = await runGated({ shapes: run.shapes, scenario, calls: run.calls, gate, stream: run.stream });
        const askedIds = new Set(asked.map((request) => request.call.callId));
        for (const id of ungated.paused) {
          expect(gated.executed.has(id), `${id} ran unasked`).toBe(false);
          expect(gated.paused.has(id) || gated.denied.has(id) || askedIds.has(id), `${id} was neither paused, asked nor denied`).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });
});
