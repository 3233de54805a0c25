import { requiresApprovalOptions, type ApprovalCheckContext, type ToolDeclaration } from './tool-declaration.ts';
import type { ApprovalRequest, GateContext, ToolCall } from './types.ts';

/** What a tool's own declaration says about one call. */
export type ToolCheckOutcome =
  | { decision: 'allow'; rule: string; reason: string }
  | { decision: 'ask'; rule: string; reason: string; request: ApprovalRequest }
  | { decision: 'block'; rule: string; reason: string };

/**
 * Runs a tool's own approval check (`checkApproval`, `needsApproval` or the
 * `requiresApproval` marker) and fails closed: a throw, a rejected promise, a
 * timeout or a malformed return blocks the call, with a reason that says which.
 * Returns undefined when the tool declares nothing.
 */
export async function runToolCheck(options: {
  tool: ToolDeclaration;
  call: ToolCall;
  context: GateContext;
  timeoutMs: number;
}): Promise<ToolCheckOutcome | undefined> {
  const { tool, call, context } = options;
  const marker = requiresApprovalOptions(tool) ?? requiresApprovalOptions(tool.execute);
  if (tool.checkApproval !== undefined) {
    const rule = 'tool:checkApproval';
    const result = await guarded(rule, options.timeoutMs, context, (checkContext) => tool.checkApproval!(call, checkContext));
    if ('failure' in result) return { decision: 'block', rule, reason: result.failure };
    return fromCheckResult(result.value, call, rule);
  }
  if (tool.needsApproval !== undefined) {
    const rule = 'tool:needsApproval';
    const needsApproval = tool.needsApproval;
    const result = await guarded(rule, options.timeoutMs, context, (checkContext) =>
      typeof needsApproval === 'function' ? needsApproval(call.args, checkContext) : needsApproval,
    );
    if ('failure' in result) return { decision: 'block', rule, reason: result.failure };
    if (typeof result.value !== 'boolean') {
      return { decision: 'block', rule, reason: `needsApproval of ${call.tool} returned ${describe(result.value)} instead of a boolean` };
    }
    if (!result.value) return { decision: 'allow', rule, reason: `${call.tool} says no approval is needed` };
    return { decision: 'ask', rule, reason: `${call.tool} needs approval`, request: defaultRequest(call, tool.description) };
  }
  if (marker !== undefined) {
    const rule = 'tool:requiresApproval';
    const result = await guarded(rule, options.timeoutMs, context, () => ({
      description: marker.description?.(call.args),
      payload: marker.payload?.(call.args),
    }));
    if ('failure' in result) return { decision: 'block', rule, reason: result.failure };
    const { description, payload } = result.value;
    if (description !== undefined && typeof description !== 'string') {
      return { decision: 'block', rule, reason: `the description function of ${call.tool} returned ${describe(description)} instead of a string` };
    }
    const request = defaultRequest(call, tool.description);
    return {
      decision: 'ask',
      rule,
      reason: `${call.tool} requires approval`,
      request: { ...request, description: description ?? request.description, payload: payload === undefined ? request.payload : payload },
    };
  }
  return undefined;
}

/** The request for a tool that gives only a yes/no: all arguments are the fingerprint. */
export function defaultRequest(call: ToolCall, description?: string): ApprovalRequest {
  return {
    tool: call.tool,
    description: description === undefined || description === '' ? `Call ${call.tool}` : description,
    payload: call.args ?? null,
    presentation: () => ({ type: 'structured', content: safeJson(call.args) }),
    required: true,
  };
}

function fromCheckResult(value: unknown, call: ToolCall, rule: string): ToolCheckOutcome {
  if (value === null || value === undefined) return { decision: 'allow', rule, reason: `${call.tool} says no approval is needed` };
  if (typeof value !== 'object') return malformed(value, call, rule);
  const candidate = value as Record<string, unknown>;
  if (candidate.kind === 'block') {
    if (typeof candidate.reason !== 'string' || candidate.reason === '') return malformed(value, call, rule);
    return { decision: 'block', rule, reason: candidate.reason };
  }
  const problems: string[] = [];
  if (candidate.tool !== call.tool) problems.push(`tool is ${describe(candidate.tool)}, not ${JSON.stringify(call.tool)}`);
  if (typeof candidate.description !== 'string') problems.push('description is not a string');
  if (!('payload' in candidate) || candidate.payload === undefined) problems.push('payload is missing');
  if (candidate.required !== undefined && typeof candidate.required !== 'boolean') problems.push('required is not a boolean');
  if (candidate.groupId !== undefined && typeof candidate.groupId !== 'string') problems.push('groupId is not a string');
  const presentation = candidate.presentation;
  if (presentation !== undefined && typeof presentation !== 'function' && !isPresentation(presentation)) problems.push('presentation is malformed');
  if (problems.length > 0) {
    return { decision: 'block', rule, reason: `the approval check of ${call.tool} returned a malformed request (${problems.join('; ')}); blocked to fail closed` };
  }
  const request: ApprovalRequest = {
    tool: call.tool,
    description: candidate.description as string,
    payload: candidate.payload,
    required: (candidate.required as boolean | undefined) ?? true,
  };
  if (presentation !== undefined) request.presentation = presentation as ApprovalRequest['presentation'];
  if (candidate.groupId !== undefined) request.groupId = candidate.groupId as string;
  return { decision: 'ask', rule, reason: `${call.tool} asks: ${request.description}`, request };
}

const PRESENTATION_TYPES = new Set(['text', 'diff', 'file_content', 'command', 'structured']);

export function isPresentation(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.type === 'string' &&
    PRESENTATION_TYPES.has(candidate.type) &&
    typeof candidate.content === 'string' &&
    (candidate.language === undefined || typeof candidate.language === 'string') &&
    (candidate.metadata === undefined || (typeof candidate.metadata === 'object' && candidate.metadata !== null))
  );
}

function malformed(value: unknown, call: ToolCall, rule: string): ToolCheckOutcome {
  return { decision: 'block', rule, reason: `the approval check of ${call.tool} returned ${describe(value)}, which is not a request, a block or null; blocked to fail closed` };
}

type Guarded<Value> = { value: Value } | { failure: string };

/** Runs a check with a deadline; any failure becomes a reason, never an exception. */
async function guarded<Value>(
  rule: string,
  timeoutMs: number,
  context: GateContext,
  check: (context: ApprovalCheckContext) => Value | Promise<Value>,
): Promise<Guarded<Awaited<Value>>> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const result = check({ ...context, signal: controller.signal });
    if (!isThenable(result)) return { value: result as Awaited<Value> };
    const deadline = new Promise<{ failure: string }>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new Error('approval check timed out'));
        resolve({ failure: `the approval check (${rule}) did not answer within ${timeoutMs} ms; blocked to fail closed` });
      }, timeoutMs);
    });
    return await Promise.race([Promise.resolve(result).then((value) => ({ value })), deadline]);
  } catch (error) {
    return { failure: `the approval check (${rule}) failed: ${errorMessage(error)}; blocked to fail closed` };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  try {
    return String(error);
  } catch {
    return 'an unprintable error';
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** Pretty JSON for a person to read; BigInts, cycles and other non-JSON values are spelled out, never `[object Object]`. */
function safeJson(value: unknown): string {
  const ancestors: object[] = [];
  try {
    const text = JSON.stringify(
      value,
      function replace(this: unknown, _key, member: unknown) {
        if (typeof member === 'bigint') return `${member}n`;
        if (typeof member === 'function' || typeof member === 'symbol') return `[${typeof member}]`;
        if (member === undefined) return '[undefined]';
        if (typeof member === 'object' && member !== null) {
          while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
          if (ancestors.includes(member)) return '[cycle]';
          ancestors.push(member);
        }
        return member;
      },
      2,
    );
    return text ?? String(value);
  } catch (error) {
    return `[arguments that cannot be shown: ${errorMessage(error)}]`;
  }
}
