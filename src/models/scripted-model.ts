import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
} from '@ai-sdk/provider';
import { ScriptExhaustedError } from './errors/script-exhausted-error.ts';
import type { Script } from './script-schema.ts';
import { selectStep, type StepSelection } from './select-step.ts';

/** What the model says when its script has no step left (with `onExhausted: 'finish'`). */
export const SCRIPT_FINISHED_TEXT = '(script finished)';

export interface ScriptedModelOptions {
  script: Script;
  /**
   * When no step is left: `finish` (default) answers `(script finished)`
   * with no tool call, so any agent loop ends; `throw` fails the call with
   * `ScriptExhaustedError`, for tests that must notice a script running short.
   */
  onExhausted?: 'finish' | 'throw';
  /** Pause between streamed chunks, in milliseconds (default 0), so a demo looks like typing. */
  chunkDelay?: number;
  /** How many pieces `doStream` splits a step's text into (default 3). */
  chunkCount?: number;
}

/**
 * A real AI SDK language model (specification v4) that replays a script:
 * each turn it reads the conversation it is given, picks the next step (see
 * `selectStep` for the matching rules) and answers with the step's text and
 * tool calls. Deterministic: the same script and conversation give the same
 * content, the same tool call ids (`call_<turn>_<n>`) and the same usage.
 *
 * @example
 * const model = createScriptedModel({ script: await loadScript('script:demo') });
 * const result = await generateText({ model, tools, prompt: 'Tidy the notes', stopWhen: stepCountIs(10) });
 */
export function createScriptedModel(options: ScriptedModelOptions): LanguageModelV4 {
  const { script } = options;
  const onExhausted = options.onExhausted ?? 'finish';
  const chunkCount = Math.max(1, options.chunkCount ?? 3);
  const chunkDelay = Math.max(0, options.chunkDelay ?? 0);

  /** The turn's answer as content parts; shared by both entry points so they never disagree. */
  function answer(callOptions: LanguageModelV4CallOptions): { selection: StepSelection; content: LanguageModelV4Content[]; metadata: SharedV4ProviderMetadata } {
    callOptions.abortSignal?.throwIfAborted();
    const selection = selectStep({ script, prompt: callOptions.prompt });
    const { step, turn, stepIndex } = selection;
    if (step === undefined) {
      if (onExhausted === 'throw') throw new ScriptExhaustedError({ script: script.name, turn, steps: script.steps.length });
      return { selection, content: [{ type: 'text', text: SCRIPT_FINISHED_TEXT }], metadata: { scripted: { script: script.name, turn, step: null, exhausted: true } } };
    }
    const content: LanguageModelV4Content[] = [];
    if (step.text !== undefined) content.push({ type: 'text', text: step.text });
    for (const [index, call] of step.toolCalls.entries()) {
      content.push({ type: 'tool-call', toolCallId: `call_${turn}_${index + 1}`, toolName: call.tool, input: JSON.stringify(call.args) });
    }
    // 1-based, like the line numbers a person reads in the script.
    return { selection, content, metadata: { scripted: { script: script.name, turn, step: stepIndex! + 1, exhausted: false } } };
  }

  return {
    specificationVersion: 'v4',
    provider: 'toolgate.scripted',
    modelId: script.name,
    supportedUrls: {},

    async doGenerate(callOptions): Promise<LanguageModelV4GenerateResult> {
      const { content, metadata } = answer(callOptions);
      return {
        content,
        finishReason: finishReasonOf(content),
        usage: usageOf(callOptions.prompt, content),
        providerMetadata: metadata,
        response: { id: responseId(script.name, content), modelId: script.name },
        warnings: [],
      };
    },

    async doStream(callOptions): Promise<LanguageModelV4StreamResult> {
      const { content, metadata, selection } = answer(callOptions);
      const parts = streamParts({ content, metadata, turn: selection.turn, chunkCount, prompt: callOptions.prompt, responseId: responseId(script.name, content), modelId: script.name });
      return { stream: replay({ parts, chunkDelay, signal: callOptions.abortSignal }) };
    },
  };
}

function finishReasonOf(content: readonly LanguageModelV4Content[]): LanguageModelV4FinishReason {
  return content.some((part) => part.type === 'tool-call') ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' };
}

/** A stable id for the response: the script and a short hash of what it says. */
function responseId(scriptName: string, content: readonly LanguageModelV4Content[]): string {
  let hash = 0x811c9dc5;
  for (const character of `${scriptName}\u0000${JSON.stringify(content)}`) {
    hash ^= character.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `scripted-${hash.toString(16).padStart(8, '0')}`;
}

/** Made-up but deterministic token counts: about four characters a token, as providers roughly count. */
function usageOf(prompt: LanguageModelV4Prompt, content: readonly LanguageModelV4Content[]): LanguageModelV4Usage {
  const input = estimateTokens(promptText(prompt));
  const output = estimateTokens(content.map((part) => (part.type === 'text' ? part.text : part.type === 'tool-call' ? part.toolName + part.input : '')).join(''));
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function promptText(prompt: LanguageModelV4Prompt): string {
  let text = '';
  for (const message of prompt) {
    if (message.role === 'system') {
      text += message.content;
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') text += part.text;
      else if (part.type === 'tool-call') text += part.toolName + (JSON.stringify(part.input) ?? '');
      else if (part.type === 'tool-result') text += part.toolName + (JSON.stringify(part.output) ?? '');
    }
  }
  return text;
}

/** The stream a provider would send for this content: text in a few deltas, each tool call's input, then finish. */
function streamParts(options: {
  content: readonly LanguageModelV4Content[];
  metadata: SharedV4ProviderMetadata;
  turn: number;
  chunkCount: number;
  prompt: LanguageModelV4Prompt;
  responseId: string;
  modelId: string;
}): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: options.responseId, modelId: options.modelId },
  ];
  for (const [index, part] of options.content.entries()) {
    if (part.type === 'text') {
      const id = `text_${options.turn}_${index + 1}`;
      parts.push({ type: 'text-start', id });
      for (const delta of chunkText(part.text, options.chunkCount)) parts.push({ type: 'text-delta', id, delta });
      parts.push({ type: 'text-end', id });
    } else if (part.type === 'tool-call') {
      parts.push({ type: 'tool-input-start', id: part.toolCallId, toolName: part.toolName });
      for (const delta of chunkText(part.input, 2)) parts.push({ type: 'tool-input-delta', id: part.toolCallId, delta });
      parts.push({ type: 'tool-input-end', id: part.toolCallId });
      parts.push(part);
    }
  }
  parts.push({ type: 'finish', finishReason: finishReasonOf(options.content), usage: usageOf(options.prompt, options.content), providerMetadata: options.metadata });
  return parts;
}

/**
 * Splits text into at most `count` pieces at word starts; the pieces always
 * join back to the exact text (whitespace included).
 *
 * @example
 * chunkText('one two three four', 2); // ['one two ', 'three four']
 */
export function chunkText(text: string, count: number): string[] {
  const words = text.split(/(?<=\s)(?=\S)/);
  if (words.length <= 1 || count <= 1) {
    // One long word (or JSON without spaces): cut it by length instead.
    if (count <= 1 || text.length < count) return [text];
    const size = Math.ceil(text.length / count);
    const pieces: string[] = [];
    for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
    return pieces;
  }
  const perChunk = Math.ceil(words.length / count);
  const pieces: string[] = [];
  for (let start = 0; start < words.length; start += perChunk) pieces.push(words.slice(start, start + perChunk).join(''));
  return pieces;
}

/** A stream that hands out the parts one by one, pausing between them, and stops on abort. */
function replay(options: { parts: readonly LanguageModelV4StreamPart[]; chunkDelay: number; signal: AbortSignal | undefined }): ReadableStream<LanguageModelV4StreamPart> {
  let index = 0;
  return new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      try {
        if (index > 0 && options.chunkDelay > 0) await sleep(options.chunkDelay, options.signal);
        options.signal?.throwIfAborted();
      } catch (error) {
        controller.error(error);
        return;
      }
      const part = options.parts[index++];
      if (part !== undefined) controller.enqueue(part);
      if (index >= options.parts.length) controller.close();
    },
  });
}

function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
