import { stepCountIs, streamText, type LanguageModel, type ToolSet } from 'ai';
import { gateTools } from '../adapters/ai-sdk/gate-tools.ts';
import { runOutcome } from '../adapters/ai-sdk/run-outcome.ts';
import type { StoppedBy } from '../adapters/ai-sdk/gated-tools-state.ts';
import type { Approver } from '../core/approver.ts';
import type { Gate } from '../core/gate.ts';
import type { GateContext } from '../core/types.ts';
import type { BuiltinTool } from '../tools/builtin-tool.ts';
import { createStepBatches } from './step-batches.ts';

/** What happened in a run. Decisions are counted by the gate's observer (`createDecisionTally`). */
export interface AgentRunSummary {
  /** The model's last text. */
  text: string;
  steps: number;
  toolCalls: number;
  stoppedBy: StoppedBy | undefined;
}

/** What the runtime reports as the run goes, for a terminal or a log. */
export interface AgentRunEvents {
  onThinking?(): void;
  onText?(delta: string): void;
  onToolCall?(call: { toolCallId: string; tool: string; args: unknown }): void;
  onToolResult?(result: { toolCallId: string; tool: string; outcome: 'ran' | 'failed' | 'denied'; detail: string }): void;
  /** A model step ended (its text, if any, is complete). */
  onStepEnd?(): void;
}

export interface RunAgentOptions extends AgentRunEvents {
  model: LanguageModel;
  task: string;
  system?: string;
  gate: Gate;
  /** The tools the agent may use: built-in tools, or an AI SDK tool set. */
  tools: ToolSet | readonly BuiltinTool[];
  context: GateContext;
  approver: Approver;
  maxSteps?: number;
  signal?: AbortSignal;
}

export const DEFAULT_SYSTEM_PROMPT =
  'You are a careful agent working in the user\'s project. Use the tools to do the task. ' +
  'Some calls need a person\'s approval; when a call is denied or blocked, read the reason, do not retry the same call, and adapt.';

/**
 * Runs an agent on the AI SDK with every tool call gated, in one continuous
 * conversation (seed 002): a person is asked inline, a denial reaches the
 * model as the tool's result, and the model adapts. The calls of one model
 * step are asked about together: those that ask with the same `groupId` reach
 * `approver.askGroup` as one batch. Streams text and tool events to the
 * callbacks and returns what happened.
 *
 * @example
 * const summary = await runAgent({ model, task: 'Tidy the notes', gate, tools, context: { sessionId }, approver });
 * console.log(`${summary.toolCalls} calls, ${summary.denied} denied`);
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRunSummary> {
  // One step's calls go through the gate together: asks sharing a groupId reach the approver as one batch (seed 001).
  const batches = createStepBatches({ model: options.model, gate: options.gate, tools: () => gated.tools });
  const gated = gateTools({
    tools: options.tools as ToolSet,
    gate: batches.gate,
    context: options.context,
    resolve: 'blocking',
    approver: options.approver,
    stopWhen: stepCountIs(options.maxSteps ?? 30),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const summary: AgentRunSummary = { text: '', steps: 0, toolCalls: 0, stoppedBy: undefined };
  const result = streamText({
    model: batches.model,
    system: options.system ?? DEFAULT_SYSTEM_PROMPT,
    prompt: options.task,
    ...gated,
    ...(options.signal === undefined ? {} : { abortSignal: options.signal }),
    // The AI SDK's default prints every stream error with console.error (a 130-line trace for a
    // server that is down); the error reaches the caller below, which reports it.
    onError: () => {},
  });
  options.onThinking?.();
  let stepText = '';
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'text-delta':
        stepText += part.text;
        options.onText?.(part.text);
        break;
      case 'tool-call':
        summary.toolCalls++;
        options.onToolCall?.({ toolCallId: part.toolCallId, tool: part.toolName, args: part.input });
        break;
      case 'tool-result':
        options.onToolResult?.({ toolCallId: part.toolCallId, tool: part.toolName, outcome: 'ran', detail: brief(part.output) });
        break;
      case 'tool-error':
        options.onToolResult?.({ toolCallId: part.toolCallId, tool: part.toolName, outcome: 'failed', detail: brief(part.error instanceof Error ? part.error.message : part.error) });
        break;
      case 'tool-output-denied':
        options.onToolResult?.({ toolCallId: part.toolCallId, tool: part.toolName, outcome: 'denied', detail: '' });
        break;
      case 'finish-step':
        summary.steps++;
        summary.text = stepText === '' ? summary.text : stepText;
        stepText = '';
        options.onStepEnd?.();
        options.onThinking?.();
        break;
      case 'error':
        throw part.error;
    }
  }
  const content = await result.content;
  summary.stoppedBy = runOutcome({ gated, content }).stoppedBy;
  return summary;
}

/** A value as one short line of JSON (or text), for status lines and logs. */
export function brief(value: unknown, limit = 200): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > limit ? `${text.slice(0, limit - 3)}...` : text;
}
