import { defaultDescription } from './default-description.ts';
import { setLongTimeout } from './long-timeout.ts';
import { maskSecrets } from './redact.ts';
import { requiresApprovalOptions, type ApprovalCheckContext, type ToolDeclaration } from './tool-declaration.ts';
import type { ApprovalRequest, GateContext, ToolCall } from './types.ts';

/** What a tool's own declaration says about one call. */
export type ToolCheckOutcome =
  | { decision: 'allow'; rule: string; reason: string }
  | { decision: 'ask'; rule: string; reason: string; request: ApprovalRequest }
  | { decision: 'block'; rule: string; reason: string };

/**
 * Runs every approval declaration a tool makes (`checkApproval`,
 * `needsApproval`, the `requiresApproval` marker) — the gate combines them
 * most-restrictively, so a tool that declares two cannot be allowed by the
 * laxer one. Each fails closed: a throw, a rejected promise, a timeout or a
 * malformed return blocks the call, with a reason that says which.
 * Returns an empty list when the tool declares nothing.
 */
export async function runToolChecks(options: {
  tool: ToolDeclaration;
  call: ToolCall;
  context: GateContext;
  timeoutMs: number;
  redactKeys: ReadonlySet<string>;
}): Promise<ToolCheckOutcome[]> {
  const { tool, call, context, redactKeys } = options;
  const outcomes: ToolCheckOutcome[] = [];
  if (tool.checkApproval !== undefined) {
    const rule = 'tool:checkApproval';
    const checkApproval = tool.checkApproval;
    const result = await guarded(rule, options.timeoutMs, context, (checkContext) => checkApproval.call(tool, call, checkContext));
    outcomes.push('failure' in result ? { decision: 'block', rule, reason: result.failure } : fromCheckResult(result.value, call, rule));
  }
  if (tool.needsApproval !== undefined) {
    const rule = 'tool:needsApproval';
    const needsApproval = tool.needsApproval;
    const result = await guarded(rule, options.timeoutMs, context, (checkContext) =>
      typeof needsApproval === 'function' ? needsApproval.call(tool, call.args, checkContext) : needsApproval,
    );
    if ('failure' in result) outcomes.push({ decision: 'block', rule, reason: result.failure });
    else if (typeof result.value !== 'boolean') {
      outcomes.push({ decision: 'block', rule, reason: `needsApproval of ${call.tool} returned ${describe(result.value)} instead of a boolean; blocked to fail closed` });
    } else if (!result.value) outcomes.push({ decision: 'allow', rule, reason: `${call.tool} says no approval is needed` });
    // The tool's own description tells the model what the tool is; the person is shown the call.
    else outcomes.push({ decision: 'ask', rule, reason: `${call.tool} needs approval`, request: defaultRequest({ call, redactKeys }) });
  }
  const marker = requiresApprovalOptions(tool) ?? requiresApprovalOptions(tool.execute);
  if (marker !== undefined) {
    const rule = 'tool:requiresApproval';
    const result = await guarded(rule, options.timeoutMs, context, () => ({
      description: marker.description?.(call.args),
      payload: marker.payload?.(call.args),
    }));
    if ('failure' in result) outcomes.push({ decision: 'block', rule, reason: result.failure });
    else if (result.value.description !== undefined && typeof result.value.description !== 'string') {
      outcomes.push({ decision: 'block', rule, reason: `the description function of ${call.tool} returned ${describe(result.value.description)} instead of a string; blocked to fail closed` });
    } else {
      const { description, payload } = result.value;
      const request = defaultRequest({ call, redactKeys });
      outcomes.push({
        decision: 'ask',
        rule,
        reason: `${call.tool} requires approval`,
        request: { ...request, description: description ?? request.description, payload: payload === undefined ? request.payload : payload },
      });
    }
  }
  return outcomes;
}

/**
 * The request for a tool that gives only a yes/no: all arguments are the
 * fingerprint, and the person sees them with `redact.keys` masked (kind and
 * size shown; `metadata.masked_secrets` tells an approver it may reveal them
 * from the call's arguments on request, never into a log).
 */
export function defaultRequest(options: { call: ToolCall; description?: string | undefined; redactKeys: ReadonlySet<string> }): ApprovalRequest {
  const { call, description } = options;
  return {
    tool: call.tool,
    description: description === undefined || description === '' ? defaultDescription({ call, redactKeys: options.redactKeys }) : description,
    payload: call.args ?? null,
    presentation: () => {
      const { value, masked } = maskSecrets(call.args, options.redactKeys);
      return masked === 0 ? { type: 'structured', content: safeJson(value) } : { type: 'structured', content: safeJson(value), metadata: { masked_secrets: masked } };
    },
    required: true,
  };
}

function fromCheckResult(value: unknown, call: ToolCall, rule: string): ToolCheckOutcome {
  if (value === null || value === undefined) return { decision: 'allow', rule, reason: `${call.tool} says no approval is needed` };
  if (typeof value !== 'object' || Array.isArray(value)) return malformed(value, call, rule);
  // Each field is read exactly once: a getter must not show one value to the
  // check and another to the person.
  const { kind, reason, tool, description, payload, required, groupId, presentation, rule: named } = value as Record<string, unknown>;
  // The part of the policy the check says it applied (toolgate's shell and fs tools name theirs), else the check itself.
  if (named !== undefined && (typeof named !== 'string' || named === '')) return malformed(value, call, rule);
  const decidedBy = (named as string | undefined) ?? rule;
  if (kind === 'block') {
    if (typeof reason !== 'string' || reason === '') return malformed(value, call, rule);
    return { decision: 'block', rule: decidedBy, reason };
  }
  if (kind === 'allow') {
    if (typeof reason !== 'string' || reason === '') return malformed(value, call, rule);
    return { decision: 'allow', rule: decidedBy, reason };
  }
  const problems: string[] = [];
  if (kind !== undefined) problems.push(`kind is ${describe(kind)}`);
  if (tool !== call.tool) problems.push(`tool is ${describe(tool)}, not ${JSON.stringify(call.tool)}`);
  if (typeof description !== 'string') problems.push('description is not a string');
  if (payload === undefined) problems.push('payload is missing');
  if (required !== undefined && typeof required !== 'boolean') problems.push('required is not a boolean');
  if (groupId !== undefined && typeof groupId !== 'string') problems.push('groupId is not a string');
  if (presentation !== undefined && typeof presentation !== 'function' && !isPresentation(presentation)) problems.push('presentation is malformed');
  if (problems.length > 0) {
    return { decision: 'block', rule, reason: `the approval check of ${call.tool} returned a malformed request (${problems.join('; ')}); blocked to fail closed` };
  }
  const request: ApprovalRequest = { tool: call.tool, description: description as string, payload, required: (required as boolean | undefined) ?? true };
  if (presentation !== undefined) request.presentation = presentation as ApprovalRequest['presentation'];
  if (groupId !== undefined) request.groupId = groupId as string;
  return { decision: 'ask', rule: decidedBy, reason: `${call.tool} asks: ${request.description}`, request };
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
  let cancelTimer: (() => void) | undefined;
  try {
    const result = check({ ...context, signal: controller.signal });
    if (!isThenable(result)) return { value: result as Awaited<Value> };
    const deadline = new Promise<{ failure: string }>((resolve) => {
      cancelTimer = setLongTimeout(() => {
        controller.abort(new Error('approval check timed out'));
        resolve({ failure: `the approval check (${rule}) did not answer within ${timeoutMs} ms; blocked to fail closed` });
      }, timeoutMs);
    });
    return await Promise.race([Promise.resolve(result).then((value) => ({ value })), deadline]);
  } catch (error) {
    return { failure: `the approval check (${rule}) failed: ${errorMessage(error)}; blocked to fail closed` };
  } finally {
    cancelTimer?.();
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
