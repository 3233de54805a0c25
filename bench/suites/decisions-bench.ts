import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { createGate } from '../../src/core/gate.ts';
import { normalizePolicy } from '../../src/core/policy/normalize-policy.ts';
import type { ToolCall } from '../../src/core/types.ts';
import { measure, measureThroughput, measureThroughputRepetitions, median, round, spreadOf, type BenchRow, type BenchSuite } from '../harness.ts';

const TOOLS = 1000;
const DECISIONS = ['allow', 'ask', 'block'] as const;

/**
 * Decisions on a generated policy of 1,000 tools (1,200 rules: every tool has
 * a decision, every fifth also an argument condition) against Cedar on an
 * equivalent policy set, in Cedar's fastest arrangement: one small preparsed
 * policy set per tool, then `statefulIsAuthorized`.
 */
export const decisionsSuite: BenchSuite = {
  name: 'decisions',
  async run(context) {
    const tools: Record<string, unknown> = {};
    for (let index = 0; index < TOOLS; index++) {
      const decision = DECISIONS[index % 3]!;
      tools[`tool_${index}`] =
        index % 5 === 0 ? { decision: decision === 'allow' ? 'ask' : decision, rules: [{ args: { path: 'ws/.*' }, decision: 'allow' }] } : decision;
    }
    const policy = normalizePolicy({ tools, mode: 'auto_deny' });
    const gate = createGate({ policy, openWorld: true });
    const context_ = { sessionId: 'bench' };

    for (let index = 0; index < TOOLS; index++) {
      const staticPolicies: Record<string, string> = {};
      const resource = `resource == Tool::"tool_${index}"`;
      const decision = DECISIONS[index % 3]!;
      const base = index % 5 === 0 && decision === 'allow' ? 'ask' : decision;
      const guard = index % 5 === 0 ? ' unless { context.args has path && context.args.path like "ws/*" }' : '';
      if (base === 'block') staticPolicies.block = `forbid(principal, action == Action::"call", ${resource})${guard};`;
      else staticPolicies[base] = `permit(principal, action == Action::"call", ${resource})${guard};`;
      if (index % 5 === 0) staticPolicies.allow_when = `permit(principal, action == Action::"call", ${resource}) when { context.args has path && context.args.path like "ws/*" };`;
      const answer = cedar.preparsePolicySet(`tool_${index}`, { staticPolicies });
      if (answer.type !== 'success') throw new Error(`cedar rejected the policy for tool_${index}: ${JSON.stringify(answer)}`);
    }

    const plainCalls: ToolCall[] = [];
    const conditionCalls: ToolCall[] = [];
    for (let index = 0; index < 1000; index++) {
      const plain = (index * 7919) % TOOLS;
      plainCalls.push({ tool: `tool_${plain % 5 === 0 ? plain + 1 : plain}`, args: { path: `ws/file_${index}` }, callId: `c${index}` });
      const conditioned = ((index * 7919) % (TOOLS / 5)) * 5;
      conditionCalls.push({ tool: `tool_${conditioned}`, args: { path: index % 2 === 0 ? `ws/file_${index}` : `etc/file_${index}` }, callId: `c${index}` });
    }

    // Sanity: both engines agree on every request before anything is timed.
    for (const call of [...plainCalls, ...conditionCalls]) {
      const ours = (await gate.evaluate(call, context_)).kind;
      const theirs = cedarDecision(call);
      if (ours !== theirs) throw new Error(`toolgate says ${ours} and cedar says ${theirs} for ${JSON.stringify(call)}`);
    }

    const iterations = context.quick ? 20_000 : 200_000;
    const repetitions = context.quick ? 3 : 5;
    const rows: BenchRow[] = [];
    for (const [label, calls] of [
      ['plain (tool name)', plainCalls],
      ['argument condition', conditionCalls],
    ] as const) {
      const cedarRate = await measureThroughput({ fn: (index) => cedarDecision(calls[index % calls.length]!), iterations: iterations / 10, repetitions });
      const cedarLatency = await measure({ fn: (index) => cedarDecision(calls[index % calls.length]!), iterations: iterations / 20, repetitions });
      const oursRates = await measureThroughputRepetitions({ fn: (index) => gate.evaluate(calls[index % calls.length]!, context_), iterations, repetitions });
      const oursRate = median(oursRates);
      const oursLatency = await measure({ fn: (index) => gate.evaluate(calls[index % calls.length]!, context_), iterations: iterations / 4, repetitions });
      rows.push({
        suite: 'decisions',
        case: `cedar statefulIsAuthorized, ${label}`,
        p50_us: round(cedarLatency.p50_us),
        p99_us: round(cedarLatency.p99_us),
        ops_per_s: Math.round(cedarRate),
        ratio: null,
        baseline: null,
        note: 'one preparsed policy set per tool',
      });
      const ratio = oursRate / cedarRate;
      rows.push({
        suite: 'decisions',
        case: `toolgate evaluate, ${label}`,
        p50_us: round(oursLatency.p50_us),
        p99_us: round(oursLatency.p99_us),
        ops_per_s: Math.round(oursRate),
        ratio: round(ratio, 2),
        baseline: `cedar, ${label}`,
        ratio_meaning: 'throughput, toolgate / cedar (higher is better)',
        ...(label.startsWith('plain')
          ? { target: 'p50 <= 1 us and >= 10x cedar throughput', met: oursLatency.p50_us <= 1 && ratio >= 10, spread: spreadOf({ of: 'p50 µs', values: oursLatency.repetitions!.p50_us }) }
          : { target: '>= 10x cedar throughput', met: ratio >= 10, spread: spreadOf({ of: 'throughput ratio', values: oursRates.map((rate) => rate / cedarRate), digits: 2 }) }),
      });
    }
    return rows;
  },
};

function cedarDecision(call: ToolCall): 'allow' | 'ask' | 'block' {
  const answer = cedar.statefulIsAuthorized({
    principal: { type: 'Agent', id: 'bench' },
    action: { type: 'Action', id: 'call' },
    resource: { type: 'Tool', id: call.tool },
    context: { args: call.args as Record<string, string> },
    preparsedPolicySetId: call.tool,
    entities: [],
  });
  if (answer.type !== 'success') throw new Error(JSON.stringify(answer));
  if (answer.response.decision === 'deny') return 'block';
  return answer.response.diagnostics.reason.some((id) => id === 'allow' || id === 'allow_when') ? 'allow' : 'ask';
}
