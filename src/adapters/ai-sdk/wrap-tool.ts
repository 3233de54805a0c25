import { asSchema, type Schema, type Tool, type ToolExecutionOptions } from 'ai';
import { redact } from '../../core/redact.ts';
import type { BuiltinTool } from '../../tools/builtin-tool.ts';
import { permitsRun, sameArguments, type CallRecord } from './call-records.ts';
import { runOnce } from './call-ledger.ts';
import { AiSdkCallNotAuthorizedError } from './errors/ai-sdk-call-not-authorized-error.ts';
import type { GatedToolsState } from './gated-tools-state.ts';

/** What a tool's output becomes in the model's prompt (the SDK's `ToolResultOutput`). */
type ModelOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

/** Said to the model when what ran is not what it asked for. */
export const EDITED_ARGUMENTS_NOTE = 'A person edited the arguments before approving; this is the result of the call with the edited arguments.';

/**
 * An AI SDK tool whose `execute` runs only what the gate authorized: a
 * record for exactly this tool call id, tool and arguments, allowing it, and
 * not used before. It runs the authorized arguments (the person's edit, if
 * any), passes the approved presentation to toolgate's built-in tools, and
 * tells the model when the arguments were edited. Anything else is refused
 * with `AiSdkCallNotAuthorizedError`, so neither a direct call nor a forged
 * approval can run a tool.
 *
 * @example
 * const guarded = wrapTool({ name: 'send_email', tool: sendEmail, state });
 */
export function wrapTool(options: { name: string; tool: Tool | BuiltinTool; builtin: boolean; state: GatedToolsState }): Tool {
  const { name, state } = options;
  const source = options.tool as Tool & { name?: unknown; checkApproval?: unknown };
  // The gate decides; the SDK must not also consult the tool's own (deprecated) flag.
  const { needsApproval: _needsApproval, name: _name, checkApproval: _checkApproval, ...rest } = source;
  const maybeExecute = source.execute as ((input: unknown, executionOptions: unknown) => unknown) | undefined;
  if (maybeExecute === undefined) return rest as Tool;
  const originalExecute = maybeExecute;
  const originalToModelOutput = source.toModelOutput as ((output: { toolCallId: string; input: unknown; output: unknown }) => ModelOutput | PromiseLike<ModelOutput>) | undefined;

  function execute(input: unknown, executionOptions: ToolExecutionOptions<unknown>): unknown {
    const toolCallId = typeof executionOptions?.toolCallId === 'string' ? executionOptions.toolCallId : undefined;
    const record = toolCallId === undefined ? undefined : state.records.get(toolCallId);
    if (record === undefined || toolCallId === undefined || !mayRun(record, name, input, state)) {
      const detail = refusalOf({ record, name, input, state }) ?? 'no authorization for this tool call id';
      return Promise.reject(new AiSdkCallNotAuthorizedError({ tool: name, toolCallId, detail }));
    }
    // Installed on the first edit only: until then the SDK's own (hot) default path shapes outputs.
    if (state.records.consume(toolCallId) && wrapped.toModelOutput !== toModelOutput) wrapped.toModelOutput = toModelOutput as Tool['toModelOutput'];
    if (state.ledger === undefined) return run(record, executionOptions);
    // Without a ledger a streaming tool's async iterable reaches the SDK unwrapped; with one, the start is recorded first.
    const call = { runId: state.context.runId ?? state.context.sessionId, toolCallId, tool: name, args: record.authorization.args };
    return runOnce({ ledger: state.ledger, call, execute: () => run(record, executionOptions) });
  }

  /** Runs the authorized arguments (no closure on the hot path without a ledger). */
  function run(record: CallRecord, executionOptions: ToolExecutionOptions<unknown>): unknown {
    const { args, presentation, decision, request } = record.authorization;
    if (options.builtin) {
      // An edited call was approved as the person typed it: the request's payload describes the model's arguments.
      const edited = !sameArguments(record.modelArgs, args);
      const authorization = decision === 'approved' ? (edited ? { decision } : { decision, payload: request?.payload }) : { decision: 'allow' as const };
      return originalExecute.call(source, args, { signal: executionOptions.abortSignal, approvedPresentation: presentation, authorization });
    }
    // Returned as is: a streaming tool's async iterable must reach the SDK unwrapped.
    return originalExecute.call(source, args, executionOptions);
  }

  function toModelOutput(output: { toolCallId: string; input: unknown; output: unknown }): ModelOutput | PromiseLike<ModelOutput> {
    const edit = state.records.editOf(output.toolCallId);
    const inner = originalToModelOutput !== undefined ? originalToModelOutput.call(source, output) : defaultModelOutput(output.output);
    if (edit === undefined) return inner;
    const args = toJsonValue(redact(edit.args, state.gate.policy.redact.keys));
    return Promise.resolve(inner).then((resolved) => withEditNote(resolved, args));
  }

  const wrapped = { ...rest, inputSchema: convertedOnce(rest.inputSchema), execute } as Tool;
  return wrapped;
}

const converted = new WeakMap<object, Schema>();

/**
 * The input schema as the SDK would make it, made once. Given a zod (or
 * other Standard Schema) schema, the SDK wraps it anew at every step (ai
 * `asSchema`), and so turns it into JSON Schema again at every step; the
 * wrapper keeps its JSON Schema once made, so one wrapper per schema, kept
 * as long as the schema, converts it once. The same wrapper validates as the
 * SDK's would. Anything else (the SDK's own schema objects, a lazy schema)
 * is left as it is.
 */
function convertedOnce(schema: Tool['inputSchema']): Tool['inputSchema'] {
  if (typeof schema !== 'object' || schema === null || !('~standard' in schema)) return schema;
  let wrapper = converted.get(schema);
  if (wrapper === undefined) converted.set(schema, (wrapper = asSchema(schema)));
  return wrapper as Tool['inputSchema'];
}

/** The common case, checked without allocating; `refusalOf` says why not. */
function mayRun(record: CallRecord, name: string, input: unknown, state: GatedToolsState): boolean {
  const { decision } = record.authorization;
  return record.tool === name && (decision === 'allow' || decision === 'approved') && state.stoppedBy === undefined && sameArguments(record.modelArgs, input);
}

/** Why a call may not run, or undefined when it may. */
function refusalOf(options: { record: CallRecord | undefined; name: string; input: unknown; state: GatedToolsState }): string | undefined {
  const { record, name, input, state } = options;
  if (record === undefined) return 'no authorization for this tool call id (never decided, or its approval was already used)';
  if (record.tool !== name) return `the authorization is for ${record.tool}, not ${name}`;
  if (!permitsRun(record.authorization)) {
    return record.authorization.decision === 'ask' ? 'its approval is still pending' : `the gate did not allow it (${record.authorization.reason})`;
  }
  if (!sameArguments(record.modelArgs, input)) return 'the arguments differ from the ones the gate judged';
  if (state.stoppedBy !== undefined) return `the run was stopped after ${state.stoppedBy.tool} was denied`;
  return undefined;
}

/** The SDK's default (ai `createToolModelOutput`): text for strings, JSON otherwise. */
function defaultModelOutput(output: unknown): ModelOutput {
  return typeof output === 'string' ? { type: 'text', value: output } : { type: 'json', value: toJsonValue(output) };
}

function withEditNote(inner: ModelOutput, args: unknown): ModelOutput {
  switch (inner.type) {
    case 'text':
      return { ...inner, value: `${EDITED_ARGUMENTS_NOTE}\nArguments that ran: ${JSON.stringify(args)}\n\n${inner.value}` };
    case 'json':
      return { ...inner, value: { note: EDITED_ARGUMENTS_NOTE, arguments: args, result: inner.value } as never };
    case 'content':
      return { ...inner, value: [{ type: 'text', text: `${EDITED_ARGUMENTS_NOTE}\nArguments that ran: ${JSON.stringify(args)}` }, ...inner.value] };
    default:
      return inner;
  }
}

/** A plain JSON value, as the SDK normalises outputs (`toJSON`, no `undefined`). */
function toJsonValue(value: unknown): any {
  if (value === undefined) return null;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return null;
  }
}
