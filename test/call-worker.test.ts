/**
 * Sub-agents: `call_worker` asks by default, and the worker runs through the
 * parent's gate — its controller (mode, approver) and its memory.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { createGate } from '../src/core/gate.ts';
import { normalizePolicy } from '../src/core/policy/normalize-policy.ts';
import { runAgent } from '../src/runtime/run-agent.ts';
import { createWorkerTool } from '../src/runtime/worker-tool.ts';
import { createFsTools } from '../src/tools/fs/create-fs-tools.ts';
import { zonesFromPolicy } from '../src/tools/fs/zones.ts';
import { recordingApprover, scriptedModel, toolResultsIn } from './ai-sdk-fixture.ts';

function userText(prompt: LanguageModelV4Prompt): string {
  const user = prompt.find((message) => message.role === 'user');
  return user === undefined ? '' : user.content.map((part) => ('text' in part ? part.text : '')).join('');
}

describe('call_worker', () => {
  it('asks before starting a worker, and the worker reuses the parent session approval', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-worker-'));
    mkdirSync(path.join(root, 'ws'));
    writeFileSync(path.join(root, 'ws', 'a.txt'), 'a\n');
    const policy = normalizePolicy({ fs: { zones: [{ name: 'ws', root: './ws', mode: 'rw', approval: { read: 'allow', write: 'ask', delete: 'ask' } }] } });
    const zones = zonesFromPolicy({ policy, policyDirectory: root });
    const fsTools = createFsTools({ zones, cwd: root });
    const approver = recordingApprover((request) => ({ approved: true, scope: request.tool === 'write_file' ? 'session' : 'once' }));
    const gate = createGate({ policy, approver });
    const context = { sessionId: 'parent-session' };
    const write = { path: 'ws/a.txt', content: 'b\n' };
    const { model } = scriptedModel((options) => {
      const worker = userText(options.prompt).startsWith('WORKER:');
      const results = toolResultsIn(options.prompt);
      if (worker) return results.length === 0 ? { toolCalls: [{ toolCallId: 'w1', toolName: 'write_file', input: write }] } : { text: 'worker wrote it' };
      if (results.length === 0) return { toolCalls: [{ toolCallId: 'p1', toolName: 'write_file', input: write }] };
      if (results.length === 1) return { toolCalls: [{ toolCallId: 'p2', toolName: 'call_worker', input: { task: 'WORKER: write the file again' } }] };
      return { text: `parent done: ${JSON.stringify(results.at(-1)?.output)}` };
    });
    const worker = createWorkerTool({
      askFirst: true,
      runChild: async (task) => (await runAgent({ model, task, gate, tools: fsTools, context: { ...context, caller: 'call_worker' }, approver })).text,
    });
    const summary = await runAgent({ model, task: 'write, then delegate', gate, tools: [...fsTools, worker], context, approver });
    // Asked twice: the parent's write (approved for the session) and starting the worker.
    expect(approver.asked.map((request) => request.tool)).toEqual(['write_file', 'call_worker']);
    expect(approver.asked[1]!.presentation?.content).toBe('WORKER: write the file again');
    expect(summary.text).toContain('worker wrote it');
    expect(readFileSync(path.join(root, 'ws', 'a.txt'), 'utf8')).toBe('b\n');
  });

  it('a denied worker never runs, and the model hears why', async () => {
    const policy = normalizePolicy({});
    let started = 0;
    const worker = createWorkerTool({ askFirst: true, runChild: async () => (started++, 'ran') });
    const approver = recordingApprover({ approved: false, scope: 'once', reason: 'do it yourself' });
    const gate = createGate({ policy, approver });
    const { model, calls } = scriptedModel((options) =>
      toolResultsIn(options.prompt).length === 0 ? { toolCalls: [{ toolCallId: 'p1', toolName: 'call_worker', input: { task: 'anything' } }] } : { text: 'ok' },
    );
    await runAgent({ model, task: 'delegate', gate, tools: [worker], context: { sessionId: 's' }, approver });
    expect(started).toBe(0);
    expect(JSON.stringify(calls.at(-1)!.prompt)).toContain('do it yourself');
  });
});
