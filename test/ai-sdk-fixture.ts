/**
 * A scripted model for the AI SDK adapter tests: a real `MockLanguageModelV4`
 * whose every step is decided by a function of what the model was sent (its
 * prompt and tools), for `generateText` and `streamText` alike, plus readers
 * for what the model saw.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4Content, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import type { Approver, PresentedRequest } from '../src/core/approver.ts';
import type { ApprovalDecision } from '../src/core/types.ts';

/** One model step: tool calls, text, or both. */
export interface ModelStep {
  toolCalls?: { toolCallId: string; toolName: string; input: unknown }[];
  text?: string;
}

/** A tool result as the model received it in its prompt. */
export interface SeenToolResult {
  toolCallId: string;
  toolName: string;
  output: { type: string; value?: unknown; reason?: string };
}

export interface ScriptedModel {
  model: MockLanguageModelV4;
  /** Every call the model received, in order (generate and stream). */
  calls: LanguageModelV4CallOptions[];
}

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/**
 * @example
 * const { model, calls } = scriptedModel((options, step) => (step === 0 ? { toolCalls: [call] } : { text: 'done' }));
 */
export function scriptedModel(respond: (options: LanguageModelV4CallOptions, step: number) => ModelStep): ScriptedModel {
  const calls: LanguageModelV4CallOptions[] = [];
  const next = (options: LanguageModelV4CallOptions) => {
    calls.push(options);
    return respond(options, calls.length - 1);
  };
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      const step = next(options);
      const content: LanguageModelV4Content[] = [];
      if (step.text !== undefined) content.push({ type: 'text', text: step.text });
      for (const call of step.toolCalls ?? []) content.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: JSON.stringify(call.input) });
      return { content, finishReason: { unified: step.toolCalls?.length ? 'tool-calls' : 'stop', raw: undefined }, usage: USAGE, warnings: [] };
    },
    doStream: async (options) => {
      const step = next(options);
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      if (step.text !== undefined) {
        parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: step.text }, { type: 'text-end', id: 't' });
      }
      for (const call of step.toolCalls ?? []) parts.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: JSON.stringify(call.input) });
      parts.push({ type: 'finish', usage: USAGE, finishReason: { unified: step.toolCalls?.length ? 'tool-calls' : 'stop', raw: undefined } });
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
  return { model, calls };
}

/** Every tool result in a prompt, in order. */
export function toolResultsIn(prompt: LanguageModelV4Prompt): SeenToolResult[] {
  const results: SeenToolResult[] = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result') results.push({ toolCallId: part.toolCallId, toolName: part.toolName, output: part.output as SeenToolResult['output'] });
    }
  }
  return results;
}

/** The tool result for one call in a prompt, if the model was given one. */
export function toolResultFor(prompt: LanguageModelV4Prompt, toolCallId: string): SeenToolResult | undefined {
  return toolResultsIn(prompt).find((result) => result.toolCallId === toolCallId);
}

/** An approver that answers with `answer` and records what it was asked. */
export function recordingApprover(answer: ApprovalDecision | ((request: PresentedRequest) => ApprovalDecision)): Approver & { asked: PresentedRequest[] } {
  const asked: PresentedRequest[] = [];
  return {
    asked,
    ask: async (request) => {
      asked.push(request);
      return typeof answer === 'function' ? answer(request) : answer;
    },
  };
}
