/** The scripted model driven by the AI SDK's own loops: real `generateText` and `streamText`, simple tools. */
import type { LanguageModelV4, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { generateText, stepCountIs, streamText, tool, type ModelMessage, type ToolApprovalResponse } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptExhaustedError } from './errors/script-exhausted-error.ts';
import { loadScript } from './load-script.ts';
import { parseScript } from './parse-script.ts';
import { chunkText, createScriptedModel, SCRIPT_FINISHED_TEXT, type ScriptedModelOptions } from './scripted-model.ts';

/** A scripted model that also records every prompt it was given. */
function recordingModel(scriptText: string, options: Omit<ScriptedModelOptions, 'script'> = {}): { model: LanguageModelV4; prompts: LanguageModelV4Prompt[] } {
  const model = createScriptedModel({ script: parseScript({ text: scriptText, source: 'test.yaml' }), ...options });
  const prompts: LanguageModelV4Prompt[] = [];
  return {
    prompts,
    model: {
      ...model,
      doGenerate: (callOptions) => {
        prompts.push(callOptions.prompt);
        return model.doGenerate(callOptions);
      },
      doStream: (callOptions) => {
        prompts.push(callOptions.prompt);
        return model.doStream(callOptions);
      },
    },
  };
}

const echoed: string[] = [];
const tools = {
  echo: tool({ description: 'Echoes its text', inputSchema: z.object({ text: z.string() }), execute: async ({ text }) => (echoed.push(text), { echoed: text }) }),
  shell: tool({ description: 'Runs a command', inputSchema: z.object({ command: z.string() }), execute: async () => ({ exitCode: 0 }) }),
  fail: tool({
    description: 'Always fails',
    inputSchema: z.object({}),
    execute: async (): Promise<{ ok: boolean }> => {
      throw new Error('disk full');
    },
  }),
};

const branchingScript = [
  'name: branching',
  'steps:',
  '  - text: "I will install left-pad."',
  '    tool_calls: [{ tool: shell, args: { command: npm install left-pad } }]',
  '  - when: { tool: shell, last_result: denied }',
  '    text: "Understood, I will write it myself."',
  '  - when: { last_result: error }',
  '    text: "That failed."',
  '  - when: otherwise',
  '    text: "Installed."',
].join('\n');

describe('generateText', () => {
  it('a text-only step answers and stops', async () => {
    const { model } = recordingModel('steps:\n  - text: "Hello there."\n');
    const result = await generateText({ model, prompt: 'hi', stopWhen: stepCountIs(5) });
    expect(result.text).toBe('Hello there.');
    expect(result.finishReason).toBe('stop');
    expect(result.steps).toHaveLength(1);
    expect(result.usage.outputTokens).toBe(Math.ceil('Hello there.'.length / 4));
    expect(result.usage.inputTokens).toBe(1);
    expect(result.providerMetadata).toEqual({ scripted: { script: 'test', turn: 1, step: 1, exhausted: false } });
  });

  it('tool calls run, and their results feed the next step', async () => {
    const { model, prompts } = recordingModel(
      [
        'steps:',
        '  - text: "Let me echo."',
        '    tool_calls: [{ tool: echo, args: { text: ping } }, { tool: echo, args: { text: pong } }]',
        '  - when: { tool: echo, contains: pong }',
        '    text: "Both came back."',
        '  - when: otherwise',
        '    text: "Something is missing."',
      ].join('\n'),
    );
    echoed.length = 0;
    const result = await generateText({ model, tools, prompt: 'echo', stopWhen: stepCountIs(5) });
    expect(echoed).toEqual(['ping', 'pong']);
    expect(result.steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(result.steps[0]!.toolCalls.map((call) => [call.toolCallId, call.toolName, call.input])).toEqual([
      ['call_1_1', 'echo', { text: 'ping' }],
      ['call_1_2', 'echo', { text: 'pong' }],
    ]);
    expect(result.text).toBe('Both came back.');
    expect(prompts[1]!.at(-1)).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'call_1_1', toolName: 'echo', output: { type: 'json', value: { echoed: 'ping' } } },
        { type: 'tool-result', toolCallId: 'call_1_2', toolName: 'echo', output: { type: 'json', value: { echoed: 'pong' } } },
      ],
    });
  });

  it('takes the `denied` branch when toolApproval denies the call, and sees the denial as `execution-denied`', async () => {
    const { model, prompts } = recordingModel(branchingScript);
    const result = await generateText({
      model,
      tools,
      prompt: 'set up',
      stopWhen: stepCountIs(5),
      toolApproval: { shell: () => ({ type: 'denied', reason: 'no new dependencies' }) },
    });
    expect(result.text).toBe('Understood, I will write it myself.');
    // The exact shape of a denial as the model sees it in AI SDK v7.
    expect(prompts[1]!.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call_1_1', toolName: 'shell', output: { type: 'execution-denied', reason: 'no new dependencies' } }],
    });
  });

  it('takes the `denied` branch after a person denies a needsApproval tool and the run resumes', async () => {
    const { model } = recordingModel(branchingScript);
    const guarded = { ...tools, shell: tool({ inputSchema: z.object({ command: z.string() }), needsApproval: true, execute: async () => ({ exitCode: 0 }) }) };
    const first = await generateText({ model, tools: guarded, prompt: 'set up', stopWhen: stepCountIs(5) });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    expect(request, 'the run stops to ask').toBeDefined();
    const response: ToolApprovalResponse = { type: 'tool-approval-response', approvalId: request!.approvalId, approved: false, reason: 'not today' };
    const messages: ModelMessage[] = [{ role: 'user', content: 'set up' }, ...first.response.messages, { role: 'tool', content: [response] }];
    const second = await generateText({ model, tools: guarded, messages, stopWhen: stepCountIs(5) });
    expect(second.text).toBe('Understood, I will write it myself.');
  });

  it('takes the `error` branch when the tool throws, and `otherwise` when it succeeds', async () => {
    const failing = recordingModel(branchingScript.replace('{ tool: shell, args: { command: npm install left-pad } }', '{ tool: fail }'));
    const failed = await generateText({ model: failing.model, tools, prompt: 'go', stopWhen: stepCountIs(5) });
    expect(failed.text).toBe('That failed.');
    expect(failing.prompts[1]!.at(-1)).toMatchObject({ role: 'tool', content: [{ output: { type: 'error-text', value: expect.stringContaining('disk full') } }] });
    const succeeding = recordingModel(branchingScript);
    expect((await generateText({ model: succeeding.model, tools, prompt: 'go', stopWhen: stepCountIs(5) })).text).toBe('Installed.');
  });

  it('when the script runs out it says "(script finished)" and the loop ends', async () => {
    const { model } = recordingModel('steps:\n  - tool_calls: [{ tool: echo, args: { text: a } }]\n');
    const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(50) });
    expect(result.steps).toHaveLength(2);
    expect(result.text).toBe(SCRIPT_FINISHED_TEXT);
    expect(result.finishReason).toBe('stop');
    expect(result.providerMetadata).toEqual({ scripted: { script: 'test', turn: 2, step: null, exhausted: true } });
  });

  it('with onExhausted: throw, running out is a ScriptExhaustedError', async () => {
    const { model } = recordingModel('steps:\n  - tool_calls: [{ tool: echo, args: { text: a } }]\n', { onExhausted: 'throw' });
    const error = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(50), maxRetries: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ScriptExhaustedError);
    expect(error).toMatchObject({ code: 'SCRIPT_EXHAUSTED', script: 'test', turn: 2 });
  });

  it('is deterministic: the same run gives the same ids, content and usage', async () => {
    const run = async () => {
      const { model } = recordingModel(branchingScript);
      const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(5) });
      return result.steps.map((step) => ({ content: step.content, usage: step.usage, id: step.response.id }));
    };
    const [first, second] = [await run(), await run()];
    expect(second).toEqual(first);
    expect(first[0]!.content.find((part) => part.type === 'tool-call')).toMatchObject({ toolCallId: 'call_1_1' });
  });
});

describe('streamText', () => {
  it('streams text in a few deltas and tool calls with their input, step by step', async () => {
    const { model } = recordingModel(
      ['steps:', '  - text: "I am going to echo a word for you now."', '    tool_calls: [{ tool: echo, args: { text: streamed } }]', '  - text: "All done here, thanks for waiting."'].join('\n'),
    );
    const result = streamText({ model, tools, prompt: 'go', stopWhen: stepCountIs(5) });
    const parts = [];
    for await (const part of result.fullStream) parts.push(part);
    const deltas = parts.filter((part) => part.type === 'text-delta').map((part) => part.text);
    expect(deltas.length).toBeGreaterThanOrEqual(4);
    expect(deltas.join('')).toBe('I am going to echo a word for you now.All done here, thanks for waiting.');
    expect(parts.filter((part) => part.type === 'tool-input-delta').map((part) => part.delta).join('')).toBe('{"text":"streamed"}');
    expect(parts.filter((part) => part.type === 'tool-call').map((part) => [part.toolCallId, part.input])).toEqual([['call_1_1', { text: 'streamed' }]]);
    expect(parts.filter((part) => part.type === 'tool-result').map((part) => part.output)).toEqual([{ echoed: 'streamed' }]);
    expect(parts.filter((part) => part.type === 'finish-step').map((part) => part.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(await result.text).toBe('All done here, thanks for waiting.');
    expect((await result.totalUsage).outputTokens).toBeGreaterThan(0);
  });

  it('branches on a denial the same way', async () => {
    const { model } = recordingModel(branchingScript);
    const result = streamText({ model, tools, prompt: 'go', stopWhen: stepCountIs(5), toolApproval: { shell: { type: 'denied', reason: 'no' } } });
    expect(await result.text).toBe('Understood, I will write it myself.');
  });

  it('answers doStream exactly like doGenerate (stream-start, metadata, text, finish)', async () => {
    const model = createScriptedModel({ script: parseScript({ text: 'steps: [{ text: "one two three four five six" }]' }) });
    const prompt: LanguageModelV4Prompt = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
    const generated = await model.doGenerate({ prompt });
    const { stream } = await model.doStream({ prompt });
    const parts: LanguageModelV4StreamPart[] = [];
    for await (const part of stream) parts.push(part);
    expect(parts.map((part) => part.type)).toEqual(['stream-start', 'response-metadata', 'text-start', 'text-delta', 'text-delta', 'text-delta', 'text-end', 'finish']);
    expect(parts[1]).toMatchObject({ id: generated.response!.id, modelId: 'script' });
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: generated.finishReason, usage: generated.usage, providerMetadata: generated.providerMetadata });
  });

  it('stops streaming when aborted', async () => {
    const model = createScriptedModel({ script: parseScript({ text: 'steps: [{ text: "one two three four five six" }]' }), chunkDelay: 20 });
    const controller = new AbortController();
    const { stream } = await model.doStream({ prompt: [], abortSignal: controller.signal });
    const reader = stream.getReader();
    await reader.read();
    controller.abort(new Error('cancelled'));
    await expect(reader.read()).rejects.toThrow('cancelled');
    await expect(model.doGenerate({ prompt: [], abortSignal: controller.signal })).rejects.toThrow('cancelled');
  });
});

describe('the demo script', () => {
  it('plays through with a denial and a block, and ends with a summary', async () => {
    const model = createScriptedModel({ script: await loadScript('script:demo') });
    const ok = (result: unknown) => async () => result;
    const demoTools = {
      list_dir: tool({ inputSchema: z.object({ path: z.string() }), execute: ok({ entries: ['notes.txt'] }) }),
      read_file: tool({ inputSchema: z.object({ path: z.string() }), execute: ok({ content: '# Notes\n' }) }),
      write_file: tool({ inputSchema: z.object({ path: z.string(), content: z.string() }), execute: ok({ written: true }) }),
      shell: tool({ inputSchema: z.object({ command: z.string(), cwd: z.string().optional() }), execute: ok({ exitCode: 0 }) }),
    };
    const result = await generateText({
      model,
      tools: demoTools,
      prompt: 'Work on the notes',
      stopWhen: stepCountIs(20),
      toolApproval: {
        shell: ({ command }) => ({ type: 'denied', reason: command.startsWith('rm') ? 'blocked by the policy' : 'no new dependencies' }),
      },
    });
    const calls = result.steps.flatMap((step) => step.toolCalls.map((call) => call.toolName));
    expect(calls).toEqual(['list_dir', 'read_file', 'write_file', 'shell', 'write_file', 'shell', 'list_dir']);
    expect(result.steps[3]!.text).toContain('Understood, no new dependency');
    expect(result.steps[3]!.toolCalls[0]!.input).toMatchObject({ path: 'ws/pad.js', content: expect.not.stringContaining('left-pad') });
    expect(result.steps[5]!.text).toContain('Nothing was removed');
    expect(result.text).toContain('Summary');
    expect(result.finishReason).toBe('stop');
  });
});

describe('chunkText', () => {
  it('splits at word starts into at most n pieces that join back exactly', () => {
    expect(chunkText('one two three four', 2)).toEqual(['one two ', 'three four']);
    expect(chunkText('  leading and\ntrailing  ', 3).join('')).toBe('  leading and\ntrailing  ');
    expect(chunkText('{"a":"bcdef"}', 2)).toEqual(['{"a":"b', 'cdef"}']);
    expect(chunkText('word', 3)).toEqual(['wo', 'rd']);
    expect(chunkText('ab', 3)).toEqual(['ab']);
  });
});
