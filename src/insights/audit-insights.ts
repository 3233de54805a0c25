/**
 * Where people's attention goes, read from the audit log: every ask a
 * person (or a timeout) decided, per rule and per approver, over a period —
 * how often, how often approved, how fast — and what deserves a look: a rule
 * asked often and approved almost always within a couple of seconds
 * (rubber-stamping, which research on agent oversight finds makes the one
 * harmful ask slip through), a person asked more often in an hour than the
 * budget, and the same call denied again and again (an agent looping).
 * Streaming: one pass, tallies per rule, approver, hour and day.
 */
import type { AuditEntry } from '../core/audit-entry.ts';
import type { AuditLogItem } from '../audit/read-audit-log.ts';
import { callSummary } from '../audit/call-summary.ts';

/** What makes a rule "rubber-stamped": asked this often, approved at least this share, decided this fast (median). */
export const RUBBER_STAMP = { minAsks: 10, minApprovalRate: 0.95, maxMedianMs: 2000 } as const;
/** The same call refused this many times in one session (by a person, their remembered answer, or the policy): the agent is trying again, not taking no for an answer. */
export const LOOP_DENIALS = 3;

export interface RuleInsight {
  rule: string | null;
  ruleAt?: string;
  /** The tool it asked about most (a rule may ask about several). */
  tool: string;
  asks: number;
  approved: number;
  denied: number;
  timedOut: number;
  approvalRate: number;
  medianMs: number;
  p90Ms: number;
  rubberStamped: boolean;
}

export interface ApproverInsight {
  approver: string;
  decided: number;
  approved: number;
  medianMs: number;
  /** The most asks this person decided in one clock hour. */
  busiestHour: number;
  /** The clock hours in which they decided more than the budget (when one is set). */
  hoursOverBudget: number;
}

export interface DayInsight {
  day: string;
  asks: number;
  approved: number;
  /** Per rule, that day. */
  rules: Record<string, { asks: number; approved: number }>;
}

export interface AuditInsights {
  from: string | null;
  to: string | null;
  /** Calls judged in the period (every verdict record). */
  calls: number;
  /** Asks decided by a person or a timeout. */
  asks: number;
  /** Asks with no decision recorded (still waiting, or left to a host's own prompt whose answer was never read). */
  unanswered: number;
  rules: RuleInsight[];
  approvers: ApproverInsight[];
  days: DayInsight[];
  /** The same call denied again and again in one session. */
  loops: Array<{ session: string; tool: string; call: string; denials: number }>;
  /** Why people denied, most common first. */
  denialReasons: Array<{ reason: string; count: number }>;
  budgetPerHour: number | null;
  malformed: number;
}

interface RuleTally {
  rule: string | null;
  ruleAt?: string;
  tools: Map<string, number>;
  approved: number;
  denied: number;
  timedOut: number;
  times: number[];
}

/** Tallies kept for this many distinct denied calls at most: a month's log of one team holds far fewer. */
const MAX_DENIED_CALLS = 50_000;
const MAX_OPEN_ASKS = 100_000;
/** Calls told apart by session and id up to this many (some 60 bytes each); past it, a call judged twice may count twice. */
const MAX_CALLS_TRACKED = 1_000_000;

/**
 * @example
 * const insights = await auditInsights({ items: readAuditLog({ path }), since: Date.now() - 7 * 86_400_000, budgetPerHour: 30 });
 */
export async function auditInsights(options: { items: AsyncIterable<AuditLogItem> | Iterable<AuditLogItem>; since?: number | undefined; until?: number | undefined; budgetPerHour?: number | undefined }): Promise<AuditInsights> {
  const rules = new Map<string, RuleTally>();
  const approvers = new Map<string, { decided: number; approved: number; times: number[]; hours: Map<number, number> }>();
  const days = new Map<string, DayInsight>();
  const denials = new Map<string, { session: string; tool: string; call: string; denials: number }>();
  const reasons = new Map<string, number>();
  // Asks not yet decided, by session and call id (a decision record settles one).
  const open = new Map<string, number>();
  const judged = new Set<string>();
  let calls = 0;
  let asks = 0;
  let malformed = 0;
  let from: string | null = null;
  let to: string | null = null;
  for await (const item of options.items) {
    if ('error' in item) {
      malformed++;
      continue;
    }
    if (!('entry' in item)) continue;
    const entry = item.entry;
    const time = Date.parse(entry.time);
    if ((options.since !== undefined && time < options.since) || (options.until !== undefined && time > options.until)) continue;
    from ??= entry.time;
    to = entry.time;
    const key = `${entry.session}\u0000${entry.call_id}`;
    // Every refusal of a call counts towards a loop: a person's, the memory of one (the same call again), the policy's block.
    if (entry.decision === 'denied' || entry.decision === 'block') {
      const call = callSummary(entry.args).slice(0, 200);
      const denialKey = `${entry.session}\u0000${entry.tool}\u0000${call}`;
      const denied = denials.get(denialKey) ?? (denials.size < MAX_DENIED_CALLS ? { session: entry.session, tool: entry.tool, call, denials: 0 } : undefined);
      if (denied !== undefined) {
        denied.denials++;
        denials.set(denialKey, denied);
      }
    }
    if (entry.kind === 'verdict') {
      // A call waiting on the server is judged again when its decision comes (a verdict record each time): counted once.
      if (!judged.has(key)) {
        calls++;
        if (judged.size < MAX_CALLS_TRACKED) judged.add(key);
      }
      if (entry.decision === 'ask') {
        // The first time it asked: a server records the call again when its decision comes.
        if (!open.has(key)) {
          if (open.size >= MAX_OPEN_ASKS) open.delete(open.keys().next().value!);
          open.set(key, time);
        }
      }
      continue;
    }
    // A decision record: a person's or a timeout's answer to an ask (memory and modes answer without anyone looking).
    if (entry.source !== 'person' && entry.source !== 'timeout') continue;
    // Time to decide: from the ask to the answer (the decision's own latency where the ask was not read, as in a log cut at --since).
    const askedAt = open.get(key);
    const waited = askedAt === undefined || !Number.isFinite(askedAt) || !Number.isFinite(time) ? entry.latency_ms : Math.max(entry.latency_ms, time - askedAt);
    open.delete(key);
    asks++;
    const approved = entry.decision === 'approved';
    const ruleKey = entry.rule ?? '';
    const tally: RuleTally = rules.get(ruleKey) ?? { rule: entry.rule, ...(entry.rule_at === undefined ? {} : { ruleAt: entry.rule_at }), tools: new Map(), approved: 0, denied: 0, timedOut: 0, times: [] };
    tally.tools.set(entry.tool, (tally.tools.get(entry.tool) ?? 0) + 1);
    if (entry.source === 'timeout') tally.timedOut++;
    else if (approved) tally.approved++;
    else tally.denied++;
    if (entry.source === 'person') tally.times.push(waited);
    rules.set(ruleKey, tally);
    const day = entry.time.slice(0, 10);
    const dayTally = days.get(day) ?? { day, asks: 0, approved: 0, rules: {} };
    dayTally.asks++;
    if (approved) dayTally.approved++;
    const dayRule = (dayTally.rules[ruleKey] ??= { asks: 0, approved: 0 });
    dayRule.asks++;
    if (approved) dayRule.approved++;
    days.set(day, dayTally);
    if (entry.source === 'person') {
      const who = approverOf(entry);
      const person = approvers.get(who) ?? { decided: 0, approved: 0, times: [] as number[], hours: new Map<number, number>() };
      person.decided++;
      if (approved) person.approved++;
      person.times.push(waited);
      const hour = Math.floor(time / 3_600_000);
      person.hours.set(hour, (person.hours.get(hour) ?? 0) + 1);
      approvers.set(who, person);
      if (!approved) reasons.set(entry.reason, (reasons.get(entry.reason) ?? 0) + 1);
    }
  }
  const budget = options.budgetPerHour;
  return {
    from,
    to,
    calls,
    asks,
    unanswered: open.size,
    rules: [...rules.values()].map(ruleInsight).sort((a, b) => b.asks - a.asks),
    approvers: [...approvers.entries()]
      .map(([approver, tally]) => ({
        approver,
        decided: tally.decided,
        approved: tally.approved,
        medianMs: quantile(tally.times, 0.5),
        busiestHour: largest(tally.hours.values()),
        hoursOverBudget: budget === undefined ? 0 : [...tally.hours.values()].filter((count) => count > budget).length,
      }))
      .sort((a, b) => b.decided - a.decided),
    days: [...days.values()].sort((a, b) => (a.day < b.day ? -1 : 1)),
    loops: [...denials.values()].filter((entry) => entry.denials >= LOOP_DENIALS).sort((a, b) => b.denials - a.denials),
    denialReasons: [...reasons.entries()].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count).slice(0, 10),
    budgetPerHour: budget ?? null,
    malformed,
  };
}

/** Who decided: the approver the record names (a server's token, a host's prompt), else not known. */
function approverOf(entry: AuditEntry): string {
  return entry.approver ?? '(not recorded)';
}

function ruleInsight(tally: RuleTally): RuleInsight {
  const asks = tally.approved + tally.denied + tally.timedOut;
  const approvalRate = asks === 0 ? 0 : tally.approved / asks;
  const medianMs = quantile(tally.times, 0.5);
  const tool = [...tally.tools.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
  return {
    rule: tally.rule,
    ...(tally.ruleAt === undefined ? {} : { ruleAt: tally.ruleAt }),
    tool,
    asks,
    approved: tally.approved,
    denied: tally.denied,
    timedOut: tally.timedOut,
    approvalRate,
    medianMs,
    p90Ms: quantile(tally.times, 0.9),
    rubberStamped: asks >= RUBBER_STAMP.minAsks && approvalRate >= RUBBER_STAMP.minApprovalRate && tally.times.length > 0 && medianMs < RUBBER_STAMP.maxMedianMs,
  };
}

/** The largest of `values` (0 for none), in a loop: a spread of a year of hours would overflow the stack. */
function largest(values: Iterable<number>): number {
  let most = 0;
  for (const value of values) if (value > most) most = value;
  return most;
}

/** The `q` quantile of `values` (nearest rank); 0 for none. */
function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
