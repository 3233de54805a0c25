/**
 * The step recorder against a real SQLite store: an answer is in the store
 * before the AI SDK sees it, with toolgate's ids on its calls; a recorded
 * answer is given back without asking the model; and a step it cannot
 * record or open stops the drive with a message that says why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APICallError, generateText, jsonSchema, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedModel } from '../../../test/ai-sdk-fixture.ts';
import { openStore } from '../../store/open-store.ts';
import type { ToolgateStore } from '../../store/store.ts';
import { createSealer } from '../seal.ts';
import { createStepRecorder } from './step-recorder.ts';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function freshStore(): Promise<ToolgateStore> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-steps-'));
  const store = await openStore({ location: path.join(directory, 'store.db') });
  cleanup.push(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return store;
}

const sealer = createSealer('a-server-secret-for-the-step-recorder-tests');
const runId = 'run_steps';

describe('createStepRecorder', () => {
  it('records each answer, sealed, before the AI SDK sees it, with toolgate ids on the calls and the model ids kept', async () => {
    const store = await freshStore();
    const seenInStore: number[] = [];
    const { model, calls } = scriptedModel((_options, step) => (step === 0 ? { text: 'two calls', toolCalls: [{ toolCallId: 'rnd_A', toolName: 'note', input: {} }, { toolCallId: 'rnd_A', toolName: 'note', input: {} }] } : { text: 'done' }));
    const recorder = createStepRecorder({ model, store, sealer, runId, fromSeq: 4, recorded: [] });
    const result = await generateText({
      model: recorder.model,
      prompt: 'go',
      tools: {
        note: tool({
          inputSchema: jsonSchema<Record<string, never>>({ type: 'object' }),
          execute: async () => {
            // The answer that made this call is in the store already.
            seenInStore.push((await store.listSteps(runId, 1)).length);
            return 'noted';
          },
        }),
      },
      stopWhen: () => calls.length >= 2,
    });
    expect(result.steps[0]!.toolCalls.map((call) => call.toolCallId)).toEqual(['tg_4_1', 'tg_4_2']);
    expect(recorder.modelIdOf('tg_4_1')).toBe('rnd_A');
    expect(recorder.modelIdOf('tg_4_2')).toBe('rnd_A');
    expect(seenInStore).toEqual([1, 1]);
    const steps = await store.listSteps(runId, 1);
    expect(steps.map((step) => step.seq)).toEqual([4, 5]);
    // Sealed: nothing of the answer reads in the store.
    expect(steps[0]!.body).not.toContain('two calls');
    expect(recorder.next()).toBe(6);
  });

  it('gives back a recorded answer without asking the model, with the same ids, and asks from the first unrecorded step on', async () => {
    const store = await freshStore();
    const first = scriptedModel(() => ({ toolCalls: [{ toolCallId: `rnd_${Math.random()}`, toolName: 'note', input: { n: 1 } }] }));
    const recorder = createStepRecorder({ model: first.model, store, sealer, runId, fromSeq: 1, recorded: [] });
    await generateText({ model: recorder.model, prompt: 'go' });
    const recorded = await store.listSteps(runId, 1);

    const again = scriptedModel(() => ({ text: 'after the replay' }));
    const replaying = createStepRecorder({ model: again.model, store, sealer, runId, fromSeq: 1, recorded });
    const replayed = await generateText({ model: replaying.model, prompt: 'go' });
    expect(again.calls).toHaveLength(0);
    expect(replayed.toolCalls.map((call) => [call.toolCallId, call.input])).toEqual([['tg_1_1', { n: 1 }]]);
    expect(replaying.modelIdOf('tg_1_1')).toMatch(/^rnd_0\.\d+$/);
    expect(replaying.modelIdOf('tg_1_1')).toBe(recorder.modelIdOf('tg_1_1'));
    const next = await generateText({ model: replaying.model, prompt: 'go on' });
    expect(next.text).toBe('after the replay');
    expect(again.calls).toHaveLength(1);
    expect((await store.listSteps(runId, 1)).map((step) => step.seq)).toEqual([1, 2]);
  });

  it('stops when another drive recorded the step first, and when a recorded step does not open, saying which step of which run', async () => {
    const store = await freshStore();
    expect(await store.recordStep({ runId, seq: 1, body: sealer.seal('{"v":1,"answer":{},"calls":[]}') })).toBe(true);
    const late = createStepRecorder({ model: scriptedModel(() => ({ text: 'late' })).model, store, sealer, runId, fromSeq: 1, recorded: [] });
    await expect(generateText({ model: late.model, prompt: 'go' })).rejects.toThrow(`step 1 of run ${runId} was recorded by another drive of the run; this one stops`);

    const otherSecret = createSealer('another-server-secret-entirely-0123456789');
    const foreign = createStepRecorder({ model: scriptedModel(() => ({ text: 'asked' })).model, store, sealer: otherSecret, runId, fromSeq: 1, recorded: await store.listSteps(runId, 1) });
    await expect(generateText({ model: foreign.model, prompt: 'go' })).rejects.toThrow(`step 1 of run ${runId} could not be opened (sealed under another server secret, or damaged)`);
  });

  it('keeps the step number when the SDK retries a failed model call, so a recovery finds the answer at the step it replays', async () => {
    const store = await freshStore();
    let attempts = 0;
    const { model } = scriptedModel(() => {
      attempts++;
      if (attempts === 1) throw new APICallError({ message: 'Overloaded', url: 'http://127.0.0.1/v1/messages', requestBodyValues: {}, statusCode: 529, isRetryable: true });
      return { toolCalls: [{ toolCallId: 'rnd_1', toolName: 'note', input: {} }] };
    });
    const recorder = createStepRecorder({ model, store, sealer, runId, fromSeq: 1, recorded: [] });
    const result = await generateText({ model: recorder.model, prompt: 'go', maxRetries: 2 });
    expect(attempts).toBe(2);
    expect(result.toolCalls.map((call) => call.toolCallId)).toEqual(['tg_1_1']);
    expect((await store.listSteps(runId, 1)).map((step) => step.seq)).toEqual([1]);
    expect(recorder.next()).toBe(2);
  });

  it('refuses to ask the model at a step with no recorded answer when later steps have one (a record with a gap)', async () => {
    const store = await freshStore();
    expect(await store.recordStep({ runId, seq: 2, body: sealer.seal('{"v":1,"answer":{},"calls":[]}') })).toBe(true);
    const asked = scriptedModel(() => ({ text: 'asked' }));
    const recorder = createStepRecorder({ model: asked.model, store, sealer, runId, fromSeq: 1, recorded: await store.listSteps(runId, 1) });
    await expect(generateText({ model: recorder.model, prompt: 'go' })).rejects.toThrow(`step 1 of run ${runId} has no recorded answer but later steps do`);
    expect(asked.calls).toHaveLength(0);
  });

  it('gives back binary data, Buffers and provider objects that look like its own encoding exactly as the model gave them', async () => {
    const store = await freshStore();
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    const providerMetadata = { vendor: { $bytes: 'not-bytes', $ref: '#/x', nested: [{ $$already: 1 }] } };
    const answer = {
      content: [
        { type: 'file' as const, mediaType: 'image/png', data: { type: 'data' as const, data: bytes } },
        { type: 'text' as const, text: 'done' },
      ],
      finishReason: { unified: 'stop' as const, raw: 'stop' },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [],
      providerMetadata,
      response: { id: 'r1', modelId: 'm', timestamp: new Date('invalid') },
    };
    const model = new MockLanguageModelV4({ doGenerate: async () => answer });
    await generateText({ model: createStepRecorder({ model, store, sealer, runId, fromSeq: 1, recorded: [] }).model, prompt: 'go' });
    const replaying = createStepRecorder({ model: new MockLanguageModelV4({ doGenerate: async () => Promise.reject(new Error('the model was asked')) }), store, sealer, runId, fromSeq: 1, recorded: await store.listSteps(runId, 1) });
    const replayed = await generateText({ model: replaying.model, prompt: 'go' });
    expect(replayed.text).toBe('done');
    expect(Array.from(replayed.files[0]!.uint8Array)).toEqual([0, 1, 2, 250, 255]);
    expect(replayed.providerMetadata).toEqual(providerMetadata);
  });

  it('keeps a hostile model id as plain text: cut, with control and separator characters escaped', async () => {
    const store = await freshStore();
    const hostile = `\u001b[2J\u0000${'x'.repeat(300)}\u2028\ud800`;
    const recorder = createStepRecorder({ model: scriptedModel(() => ({ toolCalls: [{ toolCallId: hostile, toolName: 'note', input: {} }] })).model, store, sealer, runId, fromSeq: 1, recorded: [] });
    await generateText({ model: recorder.model, prompt: 'go' });
    const kept = recorder.modelIdOf('tg_1_1')!;
    expect(kept.startsWith('\\u{1b}[2J\\u{0}xxx')).toBe(true);
    expect(kept).not.toMatch(/[\p{Cc}\p{Zl}\p{Cs}]/u);
    expect(kept.length).toBeLessThan(230);
  });
});
