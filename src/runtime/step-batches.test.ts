import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGate } from '../core/gate.ts';
import { parsePolicy } from '../core/policy/parse-policy.ts';
import { parseScript } from '../models/parse-script.ts';
import { createScriptedModel } from '../models/scripted-model.ts';
import { createScriptedApprover, type ScriptedAnswer } from '../testing/scripted-approver.ts';
import type { BuiltinTool } from '../tools/builtin-tool.ts';
import { runAgent } from './run-agent.ts';

/** A tool that asks with the call's `batch` argument as its groupId. */
function publishTool(ran: string[]): BuiltinTool<{ file: string; batch?: string }> {
  return {
    name: 'publish',
    description: 'Publish a file',
    inputSchema: z.strictObject({ file: z.string(), batch: z.string().optional() }),
    checkApproval: (call) => {
      const args = call.args as { file: string; batch?: string };
      return { tool: 'publish', description: `Publish ${args.file}`, payload: { file: args.file }, ...(args.batch === undefined ? {} : { groupId: args.batch }) };
    },
    execute: async (args) => {
      ran.push(args.file);
      return `published ${args.file}`;
    },
  };
}

async function run(options: { calls: string[]; answers: ScriptedAnswer[]; policy?: string; steps?: string[] }) {
  const ran: string[] = [];
  const tool = publishTool(ran);
  const approver = createScriptedApprover(options.answers);
  const gate = createGate({ policy: parsePolicy({ text: options.policy ?? 'tools: {}\n', source: 'inline' }), tools: [tool], approver });
  const script = parseScript({
    source: 'batch.yaml',
    text: ['steps:', '  - tool_calls:', ...options.calls.map((call) => `      - { tool: publish, args: ${call} }`), ...(options.steps ?? []), '  - text: "Done."'].join('\n'),
  });
  const summary = await runAgent({ model: createScriptedModel({ script }), task: 'publish', gate, tools: [tool], context: { sessionId: 's' }, approver });
  return { ran, approver, summary };
}

describe('one model step\'s calls go through the gate together', () => {
  it('asks once, with askGroup, about the calls that share a groupId, and on its own about the rest', async () => {
    const { ran, approver } = await run({
      calls: ['{ file: a, batch: g1 }', '{ file: solo }', '{ file: b, batch: g1 }'],
      answers: ['approve', 'deny'],
    });
    expect(approver.calls.map((call) => (call.kind === 'group' ? call.requests.map((request) => request.description) : call.request.description))).toEqual([
      ['Publish a', 'Publish b'],
      'Publish solo',
    ]);
    expect(ran).toEqual(['a', 'b']);
  });

  it('a denied batch runs none of its calls', async () => {
    const { ran, approver } = await run({ calls: ['{ file: a, batch: g1 }', '{ file: b, batch: g1 }'], answers: [{ approved: false, scope: 'once', reason: 'no' }] });
    expect(approver.calls).toHaveLength(1);
    expect(ran).toEqual([]);
  });

  it('keeps two groups apart: each is its own batch', async () => {
    const { ran, approver } = await run({
      calls: ['{ file: a, batch: g1 }', '{ file: x, batch: g2 }', '{ file: b, batch: g1 }', '{ file: y, batch: g2 }'],
      answers: ['deny', 'approve'],
    });
    expect(approver.calls.map((call) => call.kind === 'group' && call.requests.map((request) => request.call.args))).toEqual([
      [{ file: 'a', batch: 'g1' }, { file: 'b', batch: 'g1' }],
      [{ file: 'x', batch: 'g2' }, { file: 'y', batch: 'g2' }],
    ]);
    expect(ran).toEqual(['x', 'y']);
  });

  it('a lone call with a groupId is asked on its own', async () => {
    const { ran, approver } = await run({ calls: ['{ file: a, batch: g1 }', '{ file: b }'], answers: ['approve', 'approve'] });
    expect(approver.calls.map((call) => call.kind)).toEqual(['ask', 'ask']);
    expect(ran).toEqual(['a', 'b']);
  });

  it('a blocked member is not in the batch, and never runs whatever the batch decides', async () => {
    const { ran, approver } = await run({
      calls: ['{ file: a, batch: g1 }', '{ file: secret, batch: g1 }', '{ file: b, batch: g1 }'],
      answers: ['approve'],
      policy: 'tools:\n  publish:\n    decision: ask\n    rules:\n      - { args: { file: secret }, decision: block, reason: never }\n',
    });
    expect(approver.calls).toHaveLength(1);
    expect(approver.calls[0]!.kind === 'group' && approver.calls[0]!.requests.map((request) => request.description)).toEqual(['Publish a', 'Publish b']);
    expect(ran).toEqual(['a', 'b']);
  });

  it('a batch approved for the session is not asked again in a later step', async () => {
    const { ran, approver } = await run({
      calls: ['{ file: a, batch: g1 }', '{ file: b, batch: g1 }'],
      steps: ['  - tool_calls:', '      - { tool: publish, args: { file: a, batch: g1 } }', '      - { tool: publish, args: { file: b, batch: g1 } }'],
      answers: [{ approved: true, scope: 'session' }],
    });
    expect(approver.calls).toHaveLength(1);
    expect(approver.unanswered).toBe(0);
    expect(ran).toEqual(['a', 'b', 'a', 'b']);
  });

  it('without askGroup, the approver is asked about each call of the group', async () => {
    const ran: string[] = [];
    const tool = publishTool(ran);
    const asked: string[] = [];
    const approver = { ask: async (request: { description: string }) => (asked.push(request.description), { approved: true, scope: 'once' as const }) };
    const gate = createGate({ policy: parsePolicy({ text: 'tools: {}\n', source: 'inline' }), tools: [tool], approver });
    const script = parseScript({ source: 'b.yaml', text: 'steps:\n  - tool_calls:\n      - { tool: publish, args: { file: a, batch: g } }\n      - { tool: publish, args: { file: b, batch: g } }\n  - text: ok\n' });
    await runAgent({ model: createScriptedModel({ script }), task: 't', gate, tools: [tool], context: { sessionId: 's' }, approver });
    expect(asked).toEqual(['Publish a', 'Publish b']);
    expect(ran).toEqual(['a', 'b']);
  });
});

describe('batches never decide a call nobody was shown', () => {
  async function runWith(toolCalls: { toolCallId: string; toolName: string; input: unknown }[], answers: ScriptedAnswer[]) {
    const { scriptedModel } = await import('../../test/ai-sdk-fixture.ts');
    const ran: string[] = [];
    const tool = publishTool(ran);
    const approver = createScriptedApprover(answers);
    const gate = createGate({ policy: parsePolicy({ text: 'tools: {}\n', source: 'inline' }), tools: [tool], approver });
    const { model } = scriptedModel((_options, step) => (step === 0 ? { toolCalls } : { text: 'done' }));
    await runAgent({ model, task: 'publish', gate, tools: [tool], context: { sessionId: 's' }, approver });
    return { ran, approver };
  }

  it('two calls with the same id are asked about one by one, never as a batch', async () => {
    const { approver } = await runWith(
      [
        { toolCallId: 'same', toolName: 'publish', input: { file: 'notes.md', batch: 'g' } },
        { toolCallId: 'same', toolName: 'publish', input: { file: 'secret.md', batch: 'g' } },
      ],
      ['deny', 'deny'],
    );
    expect(approver.calls.every((call) => call.kind === 'ask')).toBe(true);
  });

  it('a call with input the schema rejects is not in the batch (the SDK never asks about it)', async () => {
    const { ran, approver } = await runWith(
      [
        { toolCallId: 'c1', toolName: 'publish', input: { file: 'a', batch: 'g' } },
        { toolCallId: 'c2', toolName: 'publish', input: { file: 42, batch: 'g' } },
        { toolCallId: 'c3', toolName: 'publish', input: { file: 'b', batch: 'g' } },
      ],
      ['approve'],
    );
    expect(approver.calls).toHaveLength(1);
    expect(approver.calls[0]!.kind === 'group' && approver.calls[0]!.requests.map((request) => request.call.callId)).toEqual(['c1', 'c3']);
    expect(ran).toEqual(['a', 'b']);
  });

  it('a call to a tool the model was not given is not in the batch', async () => {
    const { ran, approver } = await runWith(
      [
        { toolCallId: 'c1', toolName: 'publish', input: { file: 'a', batch: 'g' } },
        { toolCallId: 'c2', toolName: 'format_disk', input: { batch: 'g' } },
        { toolCallId: 'c3', toolName: 'publish', input: { file: 'b', batch: 'g' } },
      ],
      ['approve'],
    );
    expect(approver.calls).toHaveLength(1);
    expect(approver.calls[0]!.kind === 'group' && approver.calls[0]!.requests.map((request) => request.call.tool)).toEqual(['publish', 'publish']);
    expect(ran).toEqual(['a', 'b']);
  });
});
