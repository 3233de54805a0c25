/**
 * The gate's recording: every verdict and decision goes to the audit log
 * (a record that cannot be written denies the call), and to the observer
 * (the metrics, which can never change a decision).
 */
import { AUDIT_SCHEMA_VERSION, type AuditEntry, type AuditSink } from './audit-entry.ts';
import { isoTime } from './iso-time.ts';
import type { Policy } from './policy/policy.ts';
import { redact } from './redact.ts';
import { errorMessage } from './run-tool-check.ts';
import type { ToolDeclaration } from './tool-declaration.ts';
import type { Authorization, GateContext, ToolCall, Verdict } from './types.ts';

/** Sees every authorization; the metrics registry implements it. */
export interface GateObserver {
  authorized(event: { call: ToolCall; known: boolean; verdict: Verdict['kind']; authorization: Authorization; dangerous: boolean; durationMs: number }): void;
}

/** One record of a call: what was asked, what was decided, and when it started. */
export interface GateRecord {
  call: ToolCall;
  context: GateContext;
  verdict: Verdict;
  outcome: Authorization;
  kind: AuditEntry['kind'];
  started: number;
  tool: ToolDeclaration | undefined;
}

export interface GateRecorder {
  /** Whether anything is recorded at all: without an audit log or observer the start time is never read. */
  readonly timed: boolean;
  /**
   * Writes an audit entry: undefined once written (or with no audit log),
   * or the denial a failure to write (or to build the entry) turns the
   * outcome into. One promise and no async frame: the audited hot path
   * answers through it.
   */
  record(entry: GateRecord): Promise<Authorization | undefined>;
  /** Tells the observer; never throws. Positional: it runs for every call, and builds its event only when there is an observer. */
  observe(call: ToolCall, known: boolean, verdict: Verdict['kind'], authorization: Authorization, dangerous: boolean, started: number): void;
}

/** What `record` answers without an audit log: nothing was written, so nothing failed. */
const NOTHING_TO_RECORD: Promise<undefined> = Promise.resolve(undefined);

/**
 * The recorder of one gate.
 *
 * @example
 * const recorder = createGateRecorder({ policy, audit, observer, clock });
 * const failure = await recorder.record({ call, context, verdict, outcome, kind: 'verdict', started, tool });
 */
export function createGateRecorder(options: { policy: Policy; audit: AuditSink | undefined; observer: GateObserver | undefined; clock: { now(): number } }): GateRecorder {
  const { policy, audit, observer, clock } = options;
  return {
    timed: audit !== undefined || observer !== undefined,
    record: (entry) => {
      if (audit === undefined) return NOTHING_TO_RECORD;
      let written: Promise<void>;
      try {
        written = Promise.resolve(audit.record(auditEntry(entry, policy, clock.now())));
      } catch (error) {
        written = Promise.reject(error);
      }
      return written.then(
        () => undefined,
        (error: unknown) => auditFailure(entry, error),
      );
    },
    observe: (call, known, verdict, authorization, dangerous, started) => {
      if (observer === undefined) return;
      try {
        observer.authorized({ call, known, verdict, authorization, dangerous, durationMs: clock.now() - started });
      } catch {
        // Metrics must never change a decision.
      }
    },
  };
}

function auditEntry(record: GateRecord, policy: Policy, now: number): AuditEntry {
  const { call, context, verdict, outcome, kind, tool } = record;
  const entry: AuditEntry = {
    v: AUDIT_SCHEMA_VERSION,
    kind,
    time: isoTime(),
    session: context?.sessionId ?? '',
    chat: context?.chatId ?? null,
    run: context?.runId ?? null,
    caller: context?.caller ?? null,
    call_id: String(call?.callId ?? ''),
    tool: String(call?.tool ?? ''),
    // A decision record shows what will run: the person's edit, if any.
    args: auditableArgs(kind === 'decision' ? outcome.args : call?.args, policy.redact.keys),
    verdict: verdict.kind,
    // The decision record follows an ask; its verdict record says only "ask".
    decision: kind === 'verdict' && verdict.kind === 'ask' ? 'ask' : outcome.decision,
    source: outcome.source,
    rule: outcome.rule,
    reason: outcome.reason,
    latency_ms: Math.round((now - record.started) * 1000) / 1000,
  };
  // Set, not spread in: one object per record (the key order is the same).
  if (typeof tool?.server === 'string') entry.server = tool.server;
  if (typeof tool?.identity === 'string') entry.identity = tool.identity;
  if (kind === 'decision' && outcome.approver !== undefined) entry.approver = outcome.approver;
  const ruleAt = outcome.rule === null ? undefined : policy.ruleAt?.(outcome.rule);
  if (ruleAt !== undefined) entry.rule_at = ruleAt;
  return entry;
}

function auditFailure(record: GateRecord, error: unknown): Authorization {
  const { call, verdict, outcome } = record;
  const reason = `the audit log could not record this call (${errorMessage(error)}); denied to fail closed`;
  return { decision: verdict.kind === 'block' ? 'block' : 'denied', source: 'policy', rule: outcome.rule, reason, args: call?.args, stop: false, trace: verdict.trace };
}

/**
 * The arguments as the audit log stores them: redacted, and always JSON. A
 * value JSON cannot hold (a cycle, a BigInt) is recorded as a description
 * rather than failing the record, which would deny the call.
 */
function auditableArgs(args: unknown, keys: ReadonlySet<string>): unknown {
  const redacted = redact(args, keys);
  try {
    const text = JSON.stringify(redacted);
    return text === undefined ? null : redacted;
  } catch (error) {
    return `[arguments not representable as JSON: ${errorMessage(error)}]`;
  }
}
