import type { ContentPart, ToolSet } from 'ai';
import { stateOf, type GatedTools, type StoppedBy } from './gated-tools-state.ts';
import { pendingApprovals, type PendingApproval } from './pending-approvals.ts';

/** How a gated run ended. */
export interface RunOutcome {
  /**
   * `finished`: the loop ended on its own or on a step limit;
   * `awaiting-approval`: a deferred run paused (see `pending`, then `createRunState`);
   * `stopped`: a denial stopped the run (`on_deny: stop`, or a decision's `stop`).
   */
  status: 'finished' | 'awaiting-approval' | 'stopped';
  stoppedBy?: StoppedBy;
  pending: PendingApproval[];
}

/**
 * What a gated run's result means for toolgate: finished, paused on
 * approvals, or stopped by a denial (and which).
 *
 * @example
 * const result = await generateText({ model, prompt, ...gated });
 * const outcome = runOutcome({ gated, content: result.content });
 * if (outcome.status === 'stopped') console.log(`stopped: ${outcome.stoppedBy.reason}`);
 */
export function runOutcome(options: { gated: GatedTools<any>; content: ReadonlyArray<ContentPart<ToolSet>> }): RunOutcome {
  const state = stateOf(options.gated);
  const pending = pendingApprovals(options);
  if (state.stoppedBy !== undefined) return { status: 'stopped', stoppedBy: { ...state.stoppedBy }, pending };
  return { status: pending.length > 0 ? 'awaiting-approval' : 'finished', pending };
}
