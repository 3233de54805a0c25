import { asSchema, type Tool } from 'ai';
import { defaultRequest } from '../../core/run-tool-check.ts';
import type { ToolDeclaration } from '../../core/tool-declaration.ts';
import { sdkApprovalInputOf } from './sdk-approval-input.ts';

/**
 * How the gate sees an AI SDK tool: its name, its description, and its
 * `needsApproval` (the SDK ignores it once `toolApproval` is set, so the
 * gate must honour it, and never ask less than the SDK would):
 *
 * - a function is called exactly as the SDK calls it (ai
 *   `resolveToolApproval`): the tool as `this`, the parsed input, and the
 *   tool call id, the messages and the tool's own context (checked against
 *   its `contextSchema`) the SDK handed the gate for this call; plus an
 *   `abortSignal` that fires when the check times out or the run is cancelled;
 * - anything else that is not a boolean (the SDK asks for any truthy value)
 *   asks;
 * - a function called outside a gated SDK call (no messages to show it), or
 *   for a call a person already answered (a resumed run), is not asked at all:
 *   the call asks, so the person's answer decides, as in the SDK.
 *
 * A throw, a rejection, a non-boolean answer, a context that fails its
 * schema, or an abort blocks the call (the gate's tool checks fail closed).
 *
 * @example
 * gate.register(declarationOf({ name: 'send_email', tool: sendEmail, redactKeys: gate.policy.redact.keys }));
 */
export function declarationOf(options: { name: string; tool: Tool; redactKeys: ReadonlySet<string> }): ToolDeclaration {
  const { name, tool, redactKeys } = options;
  const description = typeof tool.description === 'string' ? tool.description : undefined;
  const needsApproval: unknown = tool.needsApproval;
  const declaration: ToolDeclaration = { name, ...(description === undefined ? {} : { description }) };
  if (needsApproval === undefined || needsApproval === null) return declaration;
  if (typeof needsApproval !== 'function') {
    declaration.needsApproval = typeof needsApproval === 'boolean' ? needsApproval : true;
    return declaration;
  }
  const check = needsApproval as (input: unknown, options: unknown) => unknown;
  declaration.checkApproval = async (call, context) => {
    const input = sdkApprovalInputOf(context);
    if (input === undefined || input.kind === 'resumed') return defaultRequest({ call, redactKeys });
    const signal = input.signal === undefined ? context.signal : AbortSignal.any([context.signal, input.signal]);
    const toolContext = await toolContextOf({ tool, name, toolsContext: input.toolsContext });
    const answer = await untilAborted(
      Promise.resolve(check.call(tool, call.args, { toolCallId: call.callId, messages: input.messages, context: toolContext, abortSignal: signal })),
      signal,
    );
    if (typeof answer !== 'boolean') throw new TypeError(`needsApproval of ${name} returned ${describe(answer)} instead of a boolean`);
    return answer ? defaultRequest({ call, redactKeys }) : null;
  };
  return declaration;
}

/** The tool's entry of the SDK's `toolsContext`, validated as the SDK does (ai `validateToolContext`). */
async function toolContextOf(options: { tool: Tool; name: string; toolsContext: unknown }): Promise<unknown> {
  const { tool, name, toolsContext } = options;
  // Own properties only, as the SDK reads them: `constructor` is not a tool's context.
  const context = typeof toolsContext === 'object' && toolsContext !== null && Object.hasOwn(toolsContext, name) ? (toolsContext as Record<string, unknown>)[name] : undefined;
  const contextSchema = (tool as { contextSchema?: Parameters<typeof asSchema>[0] }).contextSchema;
  if (contextSchema === undefined || contextSchema === null) return context;
  const schema = asSchema(contextSchema);
  if (schema.validate === undefined) return context;
  const result = await schema.validate(context);
  if (!result.success) throw new TypeError(`the tool context of ${name} does not match its contextSchema (${result.error.message})`);
  return result.value;
}

/** The check's answer, or a rejection as soon as the signal fires (a slow check never outlives its deadline). */
function untilAborted<Value>(promise: Promise<Value>, signal: AbortSignal): Promise<Value> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort!));
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the approval check was aborted');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
