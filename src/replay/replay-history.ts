/**
 * `toolgate replay`'s engine: every call of a history judged under a policy
 * (and, to compare, under a second one) by the judge the hook uses, asking
 * nobody, recording nothing; tallied by decision and rule, with what would
 * change between the two, and what could not be judged on its content.
 * Bounded in memory: tallies per rule and kind of change, a few examples
 * each, a few malformed lines listed.
 */
import { hash } from 'node:crypto';
import path from 'node:path';
import type { LoadedPolicy } from '../config/load-policy-file.ts';
import type { Authorization } from '../core/types.ts';
import { redact } from '../core/redact.ts';
import { HeldLookups, holdingFilesStill } from '../filesystem/file-lookups.ts';
import { createHostJudge, type HostJudge } from '../hooks/decide-host-call.ts';
import { analyzeCommandOnce } from '../tools/shell/analysis-cache.ts';
import { callSummary } from '../audit/call-summary.ts';
import type { HistoryItem, Where } from './history-calls.ts';

export type ReplayDecision = 'allow' | 'ask' | 'block';

/** A call's judgement under one policy. */
export interface ReplayVerdict {
  decision: ReplayDecision;
  rule: string | null;
  /** Where the rule is written (`toolgate.yaml:14`). */
  ruleAt?: string;
  reason: string;
  /** Why the policy could not judge the call on its content (an unknown tool, a command not read whole), if so. */
  unjudged?: string;
  /** The call in toolgate's terms, masked, in a few words; and its tool. */
  call: string;
  tool: string;
}

export interface ReplayExample {
  call: string;
  tool: string;
  at: string;
  source: string;
}

export interface RuleTally {
  decision: ReplayDecision;
  rule: string | null;
  ruleAt?: string;
  count: number;
}

export interface ReplayChange {
  from: { decision: ReplayDecision; rule: string | null; ruleAt?: string };
  to: { decision: ReplayDecision; rule: string | null; ruleAt?: string };
  count: number;
  examples: ReplayExample[];
}

export interface ReplaySummary {
  calls: number;
  /** By where they came from: `Claude Code 2.1.332`, `Codex 0.171.0`, `audit log (claude-code)`… */
  sources: Record<string, number>;
  /** The same call read twice (a resumed session's copied history, a call in both a transcript and the audit log): judged once. */
  duplicates: number;
  /** Calls before --since. */
  skipped: number;
  policies: Array<{ path: string; totals: Record<ReplayDecision, number>; rules: RuleTally[] }>;
  /** Under `policy` against `against`: the calls whose decision differs, grouped by both decisions and rules. */
  changes: ReplayChange[];
  unjudged: Array<{ why: string; count: number; examples: ReplayExample[] }>;
  /** Calls the hosts never hand their hooks (Codex's update_plan…), by source and tool. */
  unseen: Array<{ source: string; tool: string; count: number }>;
  malformed: { count: number; lines: Array<{ at: string; problem: string }> };
}

const EXAMPLES = 3;
const MALFORMED_LISTED = 20;
/** Judgements kept for calls seen again (the same command in the same directory): a month of one developer repeats most. */
const MEMO_ENTRIES = 100_000;
/** A memo key longer than this is hashed. */
const MEMO_KEY_CHARACTERS = 200;
/** Judges kept, one per working directory (a month of sessions works in a handful of folders). */
const JUDGES_KEPT = 16;

/** One policy's judge for history: each distinct call judged once. */
export interface HistoryJudge {
  path: string;
  /** The verdict, at once for a call judged before (most of a month's calls), else once judged. */
  judge(item: Extract<HistoryItem, { kind: 'host' | 'toolgate' }>): ReplayVerdict | Promise<ReplayVerdict>;
  close(): Promise<void>;
}

/**
 * @example
 * const judge = await createHistoryJudge({ loaded, env: process.env });
 * const verdict = await judge.judge(item);
 */
export async function createHistoryJudge(options: {
  loaded: LoadedPolicy;
  env: Readonly<Record<string, string | undefined>>;
  /** The file system as the replay found it, shared by the judges of one replay (a policy and the one it is compared with see one tree). */
  lookups?: HeldLookups;
}): Promise<HistoryJudge> {
  const { loaded } = options;
  // The gate's last judgement of a call is the one that decided it (a patch's files, a skill's inline commands come before it; a
  // command asked again for its shell after it): its tool and arguments, and whether the gate knew that tool.
  let last: { tool: string; args: unknown; known: boolean } | undefined;
  const observer = { authorized: (event: { call: { tool: string; args?: unknown }; known: boolean }) => void (last = { tool: event.call.tool, args: event.call.args, known: event.known }) };
  // One judge per working directory, as the hook makes one for the call's (toolgate's own files there are out of every tool's
  // reach): the last few kept, the oldest closed. Recording nothing: no audit log, no approvals written (a replay is no call).
  const judges = new Map<string, Promise<HostJudge>>();
  const judgeIn = (cwd: string): Promise<HostJudge> => {
    let judge = judges.get(cwd);
    if (judge === undefined) {
      if (judges.size >= JUDGES_KEPT) {
        const [oldest, closing] = judges.entries().next().value!;
        judges.delete(oldest);
        void closing.then((stale) => stale.close());
      }
      judge = createHostJudge({ loaded, env: options.env, cwd, observer, replay: true });
      judges.set(cwd, judge);
    } else {
      // Most recently used last.
      judges.delete(cwd);
      judges.set(cwd, judge);
    }
    return judge;
  };
  const keys = loaded.policy.redact.keys;
  const memo = new Map<string, ReplayVerdict>();
  // The tree as it is now, looked at once per path: a replay runs nothing, so nothing in it changes while it judges (and the
  // same folders, files and repository are looked into for most of a month's calls).
  const lookups = options.lookups ?? new HeldLookups();
  const judgeHeld = (item: Extract<HistoryItem, { kind: 'host' | 'toolgate' }>) => holdingFilesStill(lookups, () => judgeOnce(item));
  const ruleAt = (rule: string | null) => (rule === null ? undefined : loaded.policy.ruleAt?.(rule));
  async function judgeOnce(item: Extract<HistoryItem, { kind: 'host' | 'toolgate' }>): Promise<ReplayVerdict> {
    last = undefined;
    let authorization: Authorization;
    try {
      authorization =
        item.kind === 'host'
          ? (await (await judgeIn(item.input.cwd)).decide(item.input, { by: 'host' })).authorization
          : await (await judgeIn(typeof item.args.cwd === 'string' && path.isAbsolute(item.args.cwd) ? item.args.cwd : loaded.directory)).judgeToolgateCall({ tool: item.tool, args: item.args, server: item.server, identity: item.identity, sessionId: item.session, callId: item.callId });
    } catch (error) {
      // As the hook would: toolgate's own failure blocks the call.
      const why = `toolgate could not judge it: ${error instanceof Error ? error.message : String(error)}`;
      const call = item.kind === 'host' ? item.input.hostTool : item.tool;
      return { decision: 'block', rule: null, reason: why, unjudged: why, call, tool: call };
    }
    const decided = last ?? { tool: item.kind === 'host' ? item.input.hostTool : item.tool, args: item.kind === 'host' ? item.input.toolInput : item.args, known: true };
    const decision: ReplayDecision = authorization.decision === 'allow' || authorization.decision === 'approved' ? 'allow' : authorization.decision === 'ask' ? 'ask' : 'block';
    const at = ruleAt(authorization.rule);
    const verdict: ReplayVerdict = { decision, rule: authorization.rule, ...(at === undefined ? {} : { ruleAt: at }), reason: authorization.reason, call: callSummary(redact(decided.args, keys)).slice(0, 300), tool: decided.tool };
    const unjudged = unjudgedWhy(decided);
    if (unjudged !== undefined) verdict.unjudged = unjudged;
    return verdict;
  }
  return {
    path: loaded.path,
    judge(item) {
      const key = memoKey(item);
      // A call too deeply nested to be keyed is judged without the memo (and the judge says what it makes of it).
      if (key === undefined) return judgeHeld(item);
      const known = memo.get(key);
      if (known !== undefined) return known;
      return judgeHeld(item).then((verdict) => {
        if (memo.size >= MEMO_ENTRIES) memo.clear();
        memo.set(key, verdict);
        return verdict;
      });
    },
    close: async () => {
      for (const judge of judges.values()) await (await judge).close();
    },
  };
}

/**
 * What makes two calls of a history the same call to judge: the host, its
 * tool, its input, where and how it runs — less what only describes it to
 * the person (Claude Code's Bash `description`) — as its JSON, or the
 * SHA-256 of a long one (base64, which never starts with the JSON's `[`),
 * so a month of long file writes is not held in memory as keys.
 */
function memoKey(item: Extract<HistoryItem, { kind: 'host' | 'toolgate' }>): string | undefined {
  let parts: unknown;
  if (item.kind === 'host') {
    const { input } = item;
    const toolInput = input.host === 'claude-code' && input.hostTool === 'Bash' && 'description' in input.toolInput ? { ...input.toolInput, description: undefined } : input.toolInput;
    parts = [input.host, input.hostTool, toolInput, input.cwd, input.shell, input.options];
  } else parts = [item.tool, item.args, item.server, item.identity];
  let text: string;
  try {
    text = JSON.stringify(parts);
  } catch {
    return undefined;
  }
  // A short call is its own key (most of a month's: hashing them cost more than keeping them); a long one, its SHA-256.
  return text.length <= MEMO_KEY_CHARACTERS ? text : hash('sha256', text, 'base64');
}

/** Why a call was judged without its content being read: a tool nothing declares, a command the shell analysis could not follow. */
function unjudgedWhy(decided: { tool: string; args: unknown; known: boolean }): string | undefined {
  if (!decided.known) return `a tool with no rule and no declaration (${decided.tool}): judged by unknown_tools alone`;
  const command = (decided.args as { command?: unknown } | null)?.command;
  if (decided.tool === 'shell' && typeof command === 'string') {
    const concern = analyzeCommandOnce(command).concerns[0];
    if (concern !== undefined) return `a command the shell analysis could not read whole: ${concern.reason}`;
  }
  return undefined;
}

/**
 * Judges every call of `items` under `policy` (and `against`), and tallies.
 *
 * @example
 * const summary = await replayHistory({ items, policy, against, since: Date.parse('2026-11-01') });
 */
export async function replayHistory(options: {
  /** A history read synchronously (replay's files) or not. */
  items: Iterable<HistoryItem> | AsyncIterable<HistoryItem>;
  policy: HistoryJudge;
  against?: HistoryJudge | undefined;
  since?: number | undefined;
  /** Each call as it is judged: its verdict under `policy`, then under `against`. */
  onCall?: (call: { at: string; source: string; time: string | undefined; id: string | undefined; verdicts: ReplayVerdict[] }) => void;
}): Promise<ReplaySummary> {
  const judges = options.against === undefined ? [options.policy] : [options.policy, options.against];
  const summary: ReplaySummary = { calls: 0, sources: {}, duplicates: 0, skipped: 0, policies: [], changes: [], unjudged: [], unseen: [], malformed: { count: 0, lines: [] } };
  const totals = judges.map(() => ({ allow: 0, ask: 0, block: 0 }));
  const rules = judges.map(() => new Map<string, RuleTally>());
  const tallyOf = judges.map(() => new WeakMap<ReplayVerdict, RuleTally>());
  const changes = new Map<string, ReplayChange>();
  const unjudged = new Map<string, { why: string; count: number; examples: ReplayExample[] }>();
  const unseen = new Map<string, { source: string; tool: string; count: number }>();
  // The calls read so far: their ids, by host (or audit caller or session), the id strings as read (100,000 calls hold a few MB).
  const seen = new Map<string, Set<string>>();
  // A synchronous history is read without a promise per line, and a call judged before is answered without one.
  const items: Iterable<HistoryItem> | AsyncIterable<HistoryItem> = options.items;
  const iterator = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  for (;;) {
    const next = iterator.next();
    const step = next instanceof Promise ? await next : next;
    if (step.done === true) break;
    const item = step.value;
    if (item.kind === 'malformed') {
      summary.malformed.count++;
      if (summary.malformed.lines.length < MALFORMED_LISTED) summary.malformed.lines.push({ at: where(item.at), problem: item.problem });
      continue;
    }
    if (item.kind === 'unseen') {
      if (isBefore(item, options.since)) {
        summary.skipped++;
        continue;
      }
      const key = `${item.source}\u0000${item.tool}`;
      const entry = unseen.get(key) ?? { source: item.source, tool: item.tool, count: 0 };
      entry.count++;
      unseen.set(key, entry);
      continue;
    }
    // The same call read twice has the same id; hosts that give none (Gemini CLI, Copilot CLI, Cursor) are recorded under one placeholder, which is no identity.
    const [within, id] =
      item.kind === 'host'
        ? [item.input.host, item.input.toolUseId]
        : item.callId === '' || (item.caller !== undefined && item.callId === `${item.caller}-call`)
          ? [undefined, undefined]
          : [item.caller ?? item.session, item.callId];
    if (within !== undefined && id !== undefined) {
      let ids = seen.get(within);
      if (ids === undefined) seen.set(within, (ids = new Set()));
      if (ids.has(id)) {
        summary.duplicates++;
        continue;
      }
      ids.add(id);
    }
    if (isBefore(item, options.since)) {
      summary.skipped++;
      continue;
    }
    summary.calls++;
    summary.sources[item.source] = (summary.sources[item.source] ?? 0) + 1;
    const verdicts: ReplayVerdict[] = [];
    for (const judge of judges) {
      const verdict = judge.judge(item);
      verdicts.push(verdict instanceof Promise ? await verdict : verdict);
    }
    for (const [index, verdict] of verdicts.entries()) {
      totals[index]![verdict.decision]++;
      // A verdict given again (the memo's) finds its tally by itself; a new one, by its decision and rule.
      let tally = tallyOf[index]!.get(verdict);
      if (tally === undefined) {
        const key = `${verdict.decision}\u0000${verdict.rule ?? ''}`;
        tally = rules[index]!.get(key) ?? { decision: verdict.decision, rule: verdict.rule, ...(verdict.ruleAt === undefined ? {} : { ruleAt: verdict.ruleAt }), count: 0 };
        rules[index]!.set(key, tally);
        tallyOf[index]!.set(verdict, tally);
      }
      tally.count++;
    }
    options.onCall?.({ at: where(item.at), source: item.source, time: item.time, id: item.kind === 'host' ? item.input.toolUseId : item.callId, verdicts });
    const [now, before] = verdicts as [ReplayVerdict, ReplayVerdict | undefined];
    // Made only where it is kept (a few per group): most calls are only counted.
    const example = () => ({ call: now.call, tool: now.tool, at: where(item.at), source: item.source });
    if (now.unjudged !== undefined) {
      const entry = unjudged.get(now.unjudged) ?? { why: now.unjudged, count: 0, examples: [] };
      entry.count++;
      if (entry.examples.length < EXAMPLES) entry.examples.push(example());
      unjudged.set(now.unjudged, entry);
    }
    if (before !== undefined && before.decision !== now.decision) {
      const key = [before.decision, before.rule, now.decision, now.rule].join('\u0000');
      const change = changes.get(key) ?? { from: sideOf(before), to: sideOf(now), count: 0, examples: [] };
      change.count++;
      if (change.examples.length < EXAMPLES) change.examples.push(example());
      changes.set(key, change);
    }
  }
  summary.policies = judges.map((judge, index) => ({ path: judge.path, totals: totals[index]!, rules: [...rules[index]!.values()].sort((a, b) => b.count - a.count) }));
  // Newly allowed first: what a policy change lets through unasked is what to read before anything else.
  const weight = (change: ReplayChange) => (change.to.decision === 'allow' ? 0 : change.to.decision === 'ask' ? 1 : 2);
  summary.changes = [...changes.values()].sort((a, b) => weight(a) - weight(b) || b.count - a.count);
  summary.unjudged = [...unjudged.values()].sort((a, b) => b.count - a.count);
  summary.unseen = [...unseen.values()].sort((a, b) => b.count - a.count);
  return summary;
}

function isBefore(item: { time: string | undefined }, since: number | undefined): boolean {
  return since !== undefined && item.time !== undefined && Date.parse(item.time) < since;
}

function sideOf(verdict: ReplayVerdict): ReplayChange['from'] {
  return { decision: verdict.decision, rule: verdict.rule, ...(verdict.ruleAt === undefined ? {} : { ruleAt: verdict.ruleAt }) };
}

function where(at: Where): string {
  return `${at.file}:${at.line}`;
}
