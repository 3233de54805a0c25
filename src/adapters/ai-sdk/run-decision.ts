import type { ApprovalDecision, ApprovalScope } from '../../core/types.ts';
import { AiSdkDecisionError } from './errors/ai-sdk-decision-error.ts';

/**
 * A person's answer to one pending approval, as a server receives it
 * (seed 004's `POST /runs/:id/approve` body, plus the tool call it answers).
 */
export interface RunDecision {
  toolCallId: string;
  approved: boolean;
  reason?: string;
  /** `session` remembers the decision for equal calls in the session; `always` (approvals only) across sessions. Default `once`. */
  scope?: ApprovalScope;
  /** Approvals only: edited arguments to run instead (re-checked by the gate; once only). */
  args?: unknown;
  /** With scope `always`: the id of the pending approval's `alwaysScopes` choice it covers (the gate finds the choice again from the call). */
  alwaysScope?: string;
  /** Denials only: stop the run instead of letting the model adapt. */
  stop?: boolean;
  /** Denials only: nobody answered in time; recorded as timed out, never as a person's denial. */
  timedOut?: boolean;
  /** Denials only: made by toolgate, not by a person (a stored decision it refused to trust); the reason is told as it is. */
  automatic?: boolean;
  /** Who decided (e.g. the server's authenticated approver), recorded in the audit log. */
  by?: string;
}

/**
 * Checks decisions against the pending tool call ids: each pending call
 * decided exactly once, nothing else. Throws `AiSdkDecisionError` naming the
 * field (an HTTP layer answers 400 with it).
 *
 * @example
 * const byCall = validateDecisions({ decisions: body.decisions, pending: ['call-1'] });
 */
export function validateDecisions(options: { decisions: unknown; pending: readonly string[] }): Map<string, RunDecision> {
  const { decisions, pending } = options;
  if (!Array.isArray(decisions)) throw new AiSdkDecisionError({ field: 'decisions', problem: 'must be a list' });
  const open = new Set(pending);
  const byCall = new Map<string, RunDecision>();
  for (const [index, value] of decisions.entries()) {
    const field = `decisions[${index}]`;
    if (typeof value !== 'object' || value === null) throw new AiSdkDecisionError({ field, problem: 'must be an object' });
    const decision = value as Record<string, unknown>;
    if (typeof decision.toolCallId !== 'string') throw new AiSdkDecisionError({ field: `${field}.toolCallId`, problem: 'is required (a string)' });
    if (!open.has(decision.toolCallId)) throw new AiSdkDecisionError({ field: `${field}.toolCallId`, problem: `${JSON.stringify(decision.toolCallId)} is not waiting for approval` });
    if (byCall.has(decision.toolCallId)) throw new AiSdkDecisionError({ field: `${field}.toolCallId`, problem: `decides ${JSON.stringify(decision.toolCallId)} a second time` });
    if (typeof decision.approved !== 'boolean') throw new AiSdkDecisionError({ field: `${field}.approved`, problem: 'is required (true or false)' });
    if (decision.reason !== undefined && typeof decision.reason !== 'string') throw new AiSdkDecisionError({ field: `${field}.reason`, problem: 'must be a string' });
    const scopes = decision.approved ? ['once', 'session', 'always'] : ['once', 'session'];
    if (decision.scope !== undefined && !scopes.includes(decision.scope as string)) {
      throw new AiSdkDecisionError({ field: `${field}.scope`, problem: `must be one of ${scopes.join(', ')}` });
    }
    if (decision.stop !== undefined && (typeof decision.stop !== 'boolean' || decision.approved)) {
      throw new AiSdkDecisionError({ field: `${field}.stop`, problem: 'is a boolean, for denials only' });
    }
    if (decision.timedOut !== undefined && (decision.timedOut !== true || decision.approved)) {
      throw new AiSdkDecisionError({ field: `${field}.timedOut`, problem: 'is true, for denials nobody gave in time only' });
    }
    if (decision.automatic !== undefined && (decision.automatic !== true || decision.approved)) {
      throw new AiSdkDecisionError({ field: `${field}.automatic`, problem: 'is true, for denials toolgate made itself only' });
    }
    if (decision.by !== undefined && (typeof decision.by !== 'string' || decision.by === '')) throw new AiSdkDecisionError({ field: `${field}.by`, problem: 'names who decided: a non-empty string' });
    if (decision.alwaysScope !== undefined && (typeof decision.alwaysScope !== 'string' || !decision.approved || decision.scope !== 'always')) {
      throw new AiSdkDecisionError({ field: `${field}.alwaysScope`, problem: 'names a choice of what "always" covers: a string, with approved true and scope "always"' });
    }
    if (decision.args !== undefined && !decision.approved) throw new AiSdkDecisionError({ field: `${field}.args`, problem: 'edits the arguments of an approval; a denial has none' });
    byCall.set(decision.toolCallId, decision as unknown as RunDecision);
  }
  const missing = pending.find((toolCallId) => !byCall.has(toolCallId));
  if (missing !== undefined) throw new AiSdkDecisionError({ field: 'decisions', problem: `leave ${JSON.stringify(missing)} undecided; decide every pending approval` });
  return byCall;
}

/**
 * The gate's decision shape for a validated decision.
 *
 * @example
 * approver.ask = async () => toApprovalDecision(decision);
 */
export function toApprovalDecision(decision: RunDecision): ApprovalDecision {
  if (decision.approved) {
    return {
      approved: true,
      scope: decision.scope ?? 'once',
      ...(decision.args === undefined ? {} : { args: decision.args }),
      ...(decision.alwaysScope === undefined ? {} : { alwaysScope: decision.alwaysScope }),
      ...(decision.reason === undefined ? {} : { note: decision.reason }),
      ...(decision.by === undefined ? {} : { by: decision.by }),
    };
  }
  return {
    approved: false,
    scope: decision.scope === 'session' ? 'session' : 'once',
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    ...(decision.stop === undefined ? {} : { stop: decision.stop }),
    ...(decision.timedOut === true ? { timedOut: true } : {}),
    ...(decision.automatic === true ? { automatic: true } : {}),
    ...(decision.by === undefined ? {} : { by: decision.by }),
  };
}
