/**
 * Differential tests of the AI SDK adapter: the same tool set (every shape of
 * `needsApproval`, with and without `execute`, called in parallel) runs
 * through plain `generateText` and through `gateTools`, and the gated run
 * must never execute a call the ungated SDK would have paused for — under an
 * empty policy, under `tools.X: allow` for every tool, deferred and blocking,
 * with `generateText` and `streamText`.
 */
import type { ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { gateTools } from '../src/adapters/ai-sdk/index.ts';
import { createGate, normalizePolicy, type PresentedRequest } from '../src/index.ts';
import { APPROVAL_SHAPES, FAILING_SHAPES, runGated, runUngated, SCENARIOS, type RunRecord, type Scenario } from './ai-sdk-approval-matrix.ts';

const DENY = { approved: false, scope: 'once', reason: 'no' } as const;

type PolicyName = 'empty' | 'allow-all';

function policyFor(name: PolicyName, tools: ToolSet) {
  if (name === 'empty') return normalizePolicy({});
  return normalizePolicy({ tools: Object.fromEntries(Object.keys(tools).map((tool) => [tool, 'allow'])) });
}

function deferred(policy: PolicyName) {
  return (tools: ToolSet) => gateTools({ tools, gate: createGate({ policy: policyFor(policy, tools) }), context: { sessionId: 'differential' }, resolve: 'deferred' });
}

function blocking(policy: PolicyName, asked: PresentedRequest[]) {
  return (tools: ToolSet) =>
    gateTools({
      tools,
      gate: createGate({ policy: policyFor(policy, tools) }),
      context: { sessionId: 'differential' },
      resolve: 'blocking',
      approver: { ask: async (request) => (asked.push(request), DENY) },
    });
}

const label = (scenario: Scenario) => `${scenario.untrusted ? 'untrusted' : 'trusted'} messages, ${scenario.level} context`;
const sorted = (ids: Iterable<string>) => [...ids].sort();

/** Every call the ungated SDK paused for: the gated run did not execute it, and paused or denied it. */
function expectNeverAsksLess(ungated: RunRecord, gated: RunRecord): void {
  const ranUnasked = sorted(ungated.paused).filter((id) => gated.executed.has(id));
  expect(ranUnasked).toEqual([]);
  const notStopped = sorted(ungated.paused).filter((id) => !gated.paused.has(id) && !gated.denied.has(id));
  expect(notStopped).toEqual([]);
}

describe('the gated run never executes a call the ungated SDK would pause for', () => {
  for (const scenario of SCENARIOS) {
    describe(label(scenario), () => {
      for (const policy of ['empty', 'allow-all'] as const) {
        for (const stream of [false, true]) {
          it(`deferred, ${policy} policy, ${stream ? 'streamText' : 'generateText'}`, async () => {
            const ungated = await runUngated({ scenario });
            const gated = await runGated({ scenario, gate: deferred(policy), stream });
            // The matrix is not vacuous: the SDK paused for some calls and ran others in this scenario.
            expect(ungated.paused.size).toBeGreaterThan(0);
            expect(ungated.executed.size).toBeGreaterThan(0);
            expectNeverAsksLess(ungated, gated);
          });
        }
        it(`blocking with a person who denies, ${policy} policy`, async () => {
          const asked: PresentedRequest[] = [];
          const ungated = await runUngated({ scenario });
          const gated = await runGated({ scenario, gate: blocking(policy, asked) });
          expectNeverAsksLess(ungated, gated);
          // Each call the SDK paused for was put to the person (or blocked outright), never answered by the tool alone.
          const askedIds = new Set(asked.map((request) => request.call.callId));
          const unasked = sorted(ungated.paused).filter((id) => !askedIds.has(id) && !gated.denied.has(id));
          expect(unasked).toEqual([]);
        });
      }
    });
  }
});

describe('with every tool allowed by the policy, a needsApproval that answers a boolean decides exactly as in the SDK', () => {
  const wellBehaved = APPROVAL_SHAPES.filter((shape) => shape.gated === 'same');
  for (const scenario of SCENARIOS) {
    it(label(scenario), async () => {
      const ungated = await runUngated({ shapes: wellBehaved, scenario });
      const gated = await runGated({ shapes: wellBehaved, scenario, gate: deferred('allow-all') });
      expect(sorted(gated.paused)).toEqual(sorted(ungated.paused));
      expect(sorted(gated.executed)).toEqual(sorted(ungated.executed));
      expect(sorted(gated.denied)).toEqual([]);
    });
  }
});

describe('a needsApproval answering something other than a boolean is denied, never allowed', () => {
  const misbehaving = APPROVAL_SHAPES.filter((shape) => shape.gated === 'denied');
  for (const scenario of SCENARIOS) {
    it(label(scenario), async () => {
      const gated = await runGated({ shapes: misbehaving, scenario, gate: deferred('allow-all') });
      expect(sorted(gated.executed)).toEqual([]);
      // Both calls of each of the tools with an execute, and of the client-side ones.
      expect(gated.denied.size).toBe(misbehaving.length * 2 * 2);
      expect(gated.paused.size).toBe(0);
    });
  }
});

describe('a needsApproval that is a falsy value other than false asks (the SDK would run the call)', () => {
  const falsy = APPROVAL_SHAPES.filter((shape) => shape.gated === 'asks');
  it('every call pauses, none runs', async () => {
    const gated = await runGated({ shapes: falsy, scenario: SCENARIOS[0]!, gate: deferred('allow-all') });
    expect(sorted(gated.executed)).toEqual([]);
    expect(gated.paused.size).toBe(falsy.length * 2 * 2);
  });
});

describe('a needsApproval that throws or rejects: the SDK alone rejects the run, the gate denies every call', () => {
  for (const shape of FAILING_SHAPES) {
    it(shape.name, async () => {
      const scenario = SCENARIOS[3]!;
      await expect(runUngated({ shapes: [shape], scenario })).rejects.toThrow();
      for (const policy of ['empty', 'allow-all'] as const) {
        const deferredRun = await runGated({ shapes: [shape], scenario, gate: deferred(policy) });
        expect(sorted(deferredRun.executed)).toEqual([]);
        expect(deferredRun.paused.size).toBe(0);
        expect(deferredRun.denied.size).toBe(4);
        const asked: PresentedRequest[] = [];
        const blockingRun = await runGated({ shapes: [shape], scenario, gate: blocking(policy, asked) });
        expect(sorted(blockingRun.executed)).toEqual([]);
        expect(blockingRun.denied.size).toBe(4);
        // Blocked before anyone is asked: a failing check is not a question for a person.
        expect(asked).toEqual([]);
      }
    });
  }
});
