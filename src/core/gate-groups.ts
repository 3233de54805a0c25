/**
 * Several calls authorized at once (`gate.authorizeAll`): each is judged
 * alone, and asks that share a `groupId` go to the person together when
 * the approver can take a group; one of them that cannot be shown denies
 * the group, and a group's approval never carries edited arguments.
 */
import type { Approver, PresentedRequest } from './approver.ts';
import type { Answer } from './ask-with-timeout.ts';
import type { PendingAsk } from './gate-outcomes.ts';
import { askPerson } from './gate-present.ts';
import type { Policy } from './policy/policy.ts';
import type { Authorization, ToolCall } from './types.ts';

/** The gate's phases a group of calls goes through. */
export interface GroupPhases {
  /** Verdict, audit, memory and mode: an outcome, or a call left for a person. */
  start(call: ToolCall): Promise<Authorization | PendingAsk>;
  /** Asks about one call alone (or leaves it pending without an approver). */
  askOne(step: PendingAsk, approver: Approver | undefined, signal: AbortSignal | undefined): Promise<Authorization>;
  present(step: PendingAsk): Promise<PresentedRequest | Authorization>;
  settle(step: PendingAsk, answer: Answer): Promise<Authorization>;
  policy: Policy;
}

/**
 * The outcomes of `calls`, in their order.
 *
 * @example
 * const outcomes = await authorizeGroups({ calls, approver, signal, phases });
 */
export async function authorizeGroups(options: { calls: readonly ToolCall[]; approver: Approver | undefined; signal: AbortSignal | undefined; phases: GroupPhases }): Promise<Authorization[]> {
  const { calls, approver, signal, phases } = options;
  const results: Authorization[] = new Array(calls.length);
  const groups = new Map<string, { indices: number[]; steps: PendingAsk[] }>();
  for (const [index, call] of calls.entries()) {
    const step = await phases.start(call);
    if ('decision' in step) {
      results[index] = step;
      continue;
    }
    const groupId = step.verdict.request.groupId;
    if (groupId === undefined || approver?.askGroup === undefined) {
      results[index] = await phases.askOne(step, approver, signal);
      continue;
    }
    const group = groups.get(groupId) ?? { indices: [], steps: [] };
    group.indices.push(index);
    group.steps.push(step);
    groups.set(groupId, group);
  }
  for (const group of groups.values()) {
    const settled = group.steps.length === 1 ? [await phases.askOne(group.steps[0]!, approver, signal)] : await askGroup(group.steps, approver!, signal, phases);
    for (const [position, outcome] of settled.entries()) results[group.indices[position]!] = outcome;
  }
  return results;
}

async function askGroup(steps: readonly PendingAsk[], approver: Approver, signal: AbortSignal | undefined, phases: GroupPhases): Promise<Authorization[]> {
  const presented: PresentedRequest[] = [];
  let failed: Authorization | undefined;
  for (const step of steps) {
    const item = await phases.present(step);
    if ('decision' in item) failed = item;
    else presented.push(item);
  }
  const decision: Answer =
    failed !== undefined
      ? { kind: 'failed', reason: `${failed.reason} (one request of the group could not be shown, so the group is denied)` }
      : await askPerson({ request: steps[0]!.verdict.request, ask: (askSignal) => approver.askGroup!(presented, { signal: askSignal }), signal, policy: phases.policy });
  // An edit applies to one call; a group decision never carries edited arguments.
  const groupDecision: Answer = decision.kind === 'decided' && decision.decision.approved ? { kind: 'decided', decision: { ...decision.decision, args: undefined } } : decision;
  const outcomes: Authorization[] = [];
  for (const step of steps) outcomes.push(await phases.settle(step, groupDecision));
  return outcomes;
}
