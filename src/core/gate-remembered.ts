/**
 * The gate's remembering, before anyone is asked: an answer given earlier
 * in the session (session memory), or kept across sessions ("approve
 * always", the approvals file), for the very payload or a scope that
 * covers the call.
 */
import { coveringScope, EXACT_SCOPE_ID, exactScope, posesAsScope, scopedPayload } from './always-scopes.ts';
import type { ApprovalMemory } from './approval-memory.ts';
import { approved, denied, type PendingAsk } from './gate-outcomes.ts';
import type { Policy } from './policy/policy.ts';
import type { AlwaysScope, Authorization } from './types.ts';

/** "Approve always": decisions kept across sessions (the approvals file). */
export interface AlwaysApprovals {
  /** Where they are kept, for the reason an approval gives (default: "approvals file"). */
  readonly where?: string;
  has(entry: { tool: string; identity?: string; payload: unknown }): boolean;
  /** `scoped`: the payload is a chosen scope (`scopedPayload`), kept whole so it can be read back; any other payload is kept redacted. */
  add(entry: { tool: string; identity?: string; payload: unknown; description: string; scoped?: boolean }): Promise<void>;
  /**
   * The scopes kept for a tool under this identity (`scopedPayload`): what
   * the tool's `withinAlwaysScope` matches later calls against. Only scopes
   * whose kept record is intact (its fingerprint is theirs) are returned.
   */
  scoped?(entry: { tool: string; identity?: string }): AlwaysScope[];
  /**
   * Told the identity a tool has now (when the gate learns the tool): its
   * approvals under another identity never match again, and may be marked so.
   */
  retire?(entry: { tool: string; identity: string }): void;
}

/**
 * The answer already given for an asked call, or undefined when a person
 * (or the mode) must still decide. `step.key` is its session memory key.
 *
 * @example
 * const known = await rememberedOutcome(step, { memory, always, policy });
 * if (known !== undefined) return finish(step, known);
 */
export async function rememberedOutcome(step: PendingAsk, options: { memory: ApprovalMemory; always: AlwaysApprovals | undefined; policy: Pick<Policy, 'onDeny'> }): Promise<Authorization | undefined> {
  const { call, verdict, tool } = step;
  const remembered = options.memory.lookup(step.key);
  if (remembered !== undefined) {
    return remembered.approved
      ? approved(step, 'memory', 'approved earlier for this session', call.args)
      : denied(step, 'memory', `denied earlier for this session${remembered.reason ? `: ${remembered.reason}` : ''}`, options.policy);
  }
  const always = options.always;
  if (always === undefined) return undefined;
  const where = always.where ?? 'approvals file';
  const identity = tool?.identity;
  if (!posesAsScope(verdict.request.payload) && always.has({ tool: call.tool, identity, payload: verdict.request.payload }) === true) {
    return approved(step, 'memory', `approved always (${where})`, call.args);
  }
  const kept = always.scoped?.({ tool: call.tool, identity }) ?? [];
  if (kept.length === 0) return undefined;
  const exact = kept.some((scope) => scope.id === EXACT_SCOPE_ID) ? await exactScope(call, verdict.request.payload).catch(() => undefined) : undefined;
  if (exact !== undefined && always.has({ tool: call.tool, identity, payload: scopedPayload(exact) }) === true) {
    return approved(step, 'memory', `approved always (${where}): ${exact.rule}`, call.args);
  }
  const covering = await coveringScope({ tool, call, kept });
  return covering === undefined ? undefined : approved(step, 'memory', `approved always (${where}): ${covering.rule}`, call.args);
}
