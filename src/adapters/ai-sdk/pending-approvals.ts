import type { ContentPart, ToolSet } from 'ai';
import { redact } from '../../core/redact.ts';
import type { AlwaysScope, Presentation } from '../../core/types.ts';
import { stateOf, type GatedTools } from './gated-tools-state.ts';

/** A call waiting for a person's decision in a paused (deferred) run. */
export interface PendingApproval {
  /** The SDK's approval id: the `tool-approval-response` answers it. */
  approvalId: string;
  toolCallId: string;
  tool: string;
  /** The model's arguments, redacted with the policy's keys. */
  args: unknown;
  /** toolgate's request: what the person is asked. */
  description: string;
  /** What "approve for session" remembers, redacted. */
  payload: unknown;
  /** False for a soft ask (strict mode approves it). */
  required: boolean;
  groupId?: string;
  /** Why the gate asks: the rule that matched. */
  reason: string;
  /** What the person is shown (a diff, a command...), when it could be built. */
  presentation?: Presentation;
  /** The rule that asked (`fs.zones[0].approval.write (zone ws: ask)`) and where it is written (`toolgate.yaml:4`). */
  askedBy?: { rule: string; at?: string };
  /** What "approve always" may cover beyond the payload: the choices a decision's `alwaysScope` names. */
  alwaysScopes?: ReadonlyArray<Omit<AlwaysScope, 'match'>>;
}

/**
 * The approvals a deferred run paused on: its `tool-approval-request` parts
 * that no response answers, with the gate's request for each (description,
 * payload, presentation). Empty when the run did not pause.
 *
 * @example
 * const result = await generateText({ model, prompt, ...gated });
 * for (const pending of pendingApprovals({ gated, content: result.content })) inbox.add(pending);
 * // streamText: pendingApprovals({ gated, content: await result.content })
 */
export function pendingApprovals(options: { gated: GatedTools<any>; content: ReadonlyArray<ContentPart<ToolSet>> }): PendingApproval[] {
  const state = stateOf(options.gated);
  const keys = state.gate.policy.redact.keys;
  const answered = new Set<string>();
  for (const part of options.content) if (part.type === 'tool-approval-response') answered.add(part.approvalId);
  const pending: PendingApproval[] = [];
  for (const part of options.content) {
    if (part.type !== 'tool-approval-request' || part.isAutomatic === true || answered.has(part.approvalId)) continue;
    const { toolCallId, toolName, input } = part.toolCall;
    const record = state.records.get(toolCallId);
    const request = record?.authorization.decision === 'ask' && record.tool === toolName ? record.authorization.request : undefined;
    const item: PendingApproval = {
      approvalId: part.approvalId,
      toolCallId,
      tool: toolName,
      args: redact(input, keys),
      description: request?.description ?? part.reason ?? `Call ${toolName}`,
      payload: redact(request?.payload ?? input ?? null, keys),
      required: request?.required ?? true,
      reason: record?.authorization.reason ?? part.reason ?? 'approval required',
    };
    if (request?.groupId !== undefined) item.groupId = request.groupId;
    if (record?.presentation !== undefined) item.presentation = record.presentation;
    if (record?.alwaysScopes !== undefined) item.alwaysScopes = record.alwaysScopes;
    const rule = record?.authorization.rule ?? null;
    if (rule !== null) {
      const at = state.gate.policy.ruleAt?.(rule);
      item.askedBy = at === undefined ? { rule } : { rule, at };
    }
    pending.push(item);
  }
  return pending;
}
