/**
 * Seed 001's batches with real providers: each wire format streams one turn
 * with three tool calls (arguments split across deltas, as servers send
 * them), two of them asking with the same groupId. The AI SDK's own parsers
 * run; the approver is asked once for the pair and once for the third call.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGate } from '../src/core/gate.ts';
import { parsePolicy } from '../src/core/policy/parse-policy.ts';
import { runAgent } from '../src/runtime/run-agent.ts';
import { createScriptedApprover } from '../src/testing/scripted-approver.ts';
import type { BuiltinTool } from '../src/tools/builtin-tool.ts';
import { WIRE_FORMATS, type WireFormat } from './provider-wire-formats.ts';
import { startWireServer, type WireServer } from './provider-wire-server.ts';

let server: WireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function modelFor(format: WireFormat, baseUrl: string): LanguageModel {
  if (format.provider === 'openai-compatible') return createOpenAICompatible({ name: 'wire', baseURL: baseUrl })('llama3.2');
  if (format.provider === 'openai') return createOpenAI({ baseURL: baseUrl, apiKey: 'sk-test-wire' })('gpt-5');
  return createAnthropic({ baseURL: baseUrl, apiKey: 'sk-ant-test-wire' })('claude-sonnet-4-5');
}

describe.each(WIRE_FORMATS.map((format) => [format.provider, format] as const))('%s: one streamed step with grouped calls', (_name, format) => {
  it('reaches the approver as one batch for the group and one ask for the other call', async () => {
    server = await startWireServer({
      replies: [
        format.turn({
          text: 'Publishing.',
          toolCalls: [
            { id: 'call_1', name: 'publish', args: { file: 'notes.md', batch: 'release' } },
            { id: 'call_2', name: 'publish', args: { file: 'draft.md' } },
            { id: 'call_3', name: 'publish', args: { file: 'changelog.md', batch: 'release' } },
          ],
        }),
        format.turn({ text: 'Done.' }),
      ],
    });
    const ran: string[] = [];
    const publish: BuiltinTool<{ file: string; batch?: string }> = {
      name: 'publish',
      description: 'Publish a file',
      inputSchema: z.strictObject({ file: z.string(), batch: z.string().optional() }),
      checkApproval: (call) => {
        const args = call.args as { file: string; batch?: string };
        return { tool: 'publish', description: `Publish ${args.file}`, payload: { file: args.file }, ...(args.batch === undefined ? {} : { groupId: args.batch }) };
      },
      execute: async (args) => (ran.push(args.file), `published ${args.file}`),
    };
    const approver = createScriptedApprover(['approve', { approved: false, scope: 'once', reason: 'not the draft' }]);
    const gate = createGate({ policy: parsePolicy({ text: 'tools: {}\n', source: 'inline' }), tools: [publish], approver });
    const summary = await runAgent({ model: modelFor(format, server.baseUrl), task: 'publish', gate, tools: [publish], context: { sessionId: 's' }, approver });
    expect(approver.calls.map((call) => (call.kind === 'group' ? call.requests.map((request) => request.description) : call.request.description))).toEqual([
      ['Publish notes.md', 'Publish changelog.md'],
      'Publish draft.md',
    ]);
    expect(ran.sort()).toEqual(['changelog.md', 'notes.md']);
    expect(summary.text).toBe('Done.');
    // The denial reached the model with its reason, under the call's own id.
    expect(server.requests[1]!.text).toContain('call_2');
    expect(server.requests[1]!.text).toContain('not the draft');
  });
});
