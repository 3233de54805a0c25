/**
 * `POST /hooks/:host`: an agent host's call (Claude Code, Codex) judged by
 * the server, and, when the policy asks, put to a person in the inbox. The
 * call waits as a run of its own (model `hook:<host>`, one pending call) that
 * the web inbox, `GET /approvals` and `POST /runs/:id/approve` show and
 * decide like any other. The request waits for the decision up to just
 * under the host's hook budget; past it, the host is told to retry, and the
 * byte-identical retry in the same host session (same token) collects the
 * decision: an approval lets it run once.
 *
 * Every answer is the host's JSON (deny when anything fails): Claude Code's
 * `http` hook lets a call go on after an answer that is not a 2xx with JSON.
 */
import { AUDIT_SCHEMA_VERSION, type AuditEntry } from '../../core/audit-entry.ts';
import { presentRequest } from '../../core/approver.ts';
import type { ApprovalDecision, GateContext } from '../../core/types.ts';
import { callFingerprint, callIdentity, callScope } from '../../hooks/call-identity.ts';
import { DOCTOR_PROBE_TOOL, HostInputError } from '../../hooks/host-call.ts';
import { dialectFor, type HookAnswer, type HostDialect, type HostInput } from '../../hooks/host-dialect.ts';
import type { StoredRun } from '../../store/store.ts';
import type { Principal } from '../run-service.ts';
import { verifiedDecisions } from './pause-decisions.ts';
import { checkpointData, runEvent } from './run-events.ts';
import { sealEnvelope, type RunEnvelope, type ServerRuntime } from './server-runtime.ts';
import type { PendingApproval } from '../../adapters/ai-sdk/pending-approvals.ts';

/** How much sooner than the host's budget the server answers by itself. */
const ANSWER_MARGIN_MS = 3_000;
/** How often a waiting request looks at its run (any server of a shared store may decide it). */
const POLL_MS = 150;
/** How many runs one identical call may have had (each ends when a retry collects it). */
const MAX_ROUNDS = 50;
/** What a run's text says once a retry collected its decision: it answers nothing more. */
const COLLECTED = ' (collected by the host)';

/**
 * @example
 * const answer = await answerHostCall({ runtime, principal, dialect: claudeCode, body: await c.req.json(), budgetMs: 600_000 });
 * return c.json(JSON.parse(answer.stdout));
 */
export async function answerHostCall(options: { runtime: ServerRuntime; principal: Principal; dialect: HostDialect; body: unknown; budgetMs: number }): Promise<HookAnswer> {
  const { runtime } = options;
  // Answered in the form of the input's event (Copilot CLI's permissionRequest has its own).
  const dialect = dialectFor(options.dialect, options.body);
  const deny = (reason: string) => dialect.answer({ decision: 'deny', reason });
  let input: HostInput;
  try {
    input = dialect.read(options.body);
  } catch (error) {
    return deny(`the hook's input could not be read as a call: ${error instanceof HostInputError ? error.message : String(error)}; the call is blocked`);
  }
  // toolgate doctor's probe: the token was accepted and the server answers; nothing is judged, asked or run.
  if (input.hostTool === DOCTOR_PROBE_TOOL) return deny("toolgate doctor's probe call, answered by toolgate serve (a probe runs nothing)");
  try {
    const judge = await runtime.hostJudge();
    const verdict = await judge.decide(input, { by: 'host' });
    if (verdict.decision !== 'ask') return dialect.answer(verdict);
    const deadline = Date.now() + Math.max(1_000, options.budgetMs - ANSWER_MARGIN_MS);
    // The same call (call-identity.ts: host, session, directory, shell, tool, input and options), judged the same, from the same token.
    const fingerprint = callFingerprint(callIdentity(input), options.principal.name, { tool: verdict.authorization.request?.tool ?? '', args: verdict.authorization.args });
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      const runId = `run_hook_${fingerprint}_${round}`;
      const run = (await runtime.store.getRun(runId)) ?? (await createHookRun({ ...options, input, verdict, runId, fingerprint, deadline }));
      const settled = await settledRun(runtime, run, deadline);
      if (settled.status === 'paused_checkpoint' || settled.status === 'running') {
        return deny(`pending approval ${runId}: a person has not decided yet in toolgate's inbox (${verdict.reason}); it did not run. Retry this same call later: once a person approves it, it runs`);
      }
      if (settled.text?.endsWith(COLLECTED) === true) continue;
      // Collected once: of two identical retries, one gets it.
      const collected = await runtime.store.updateRun(runId, settled.revision, { text: `${settled.text ?? settled.status}${COLLECTED}` });
      if (collected === undefined) continue;
      runtime.notify();
      if (settled.status !== 'completed') return deny(`${runId} was ${settled.status} in toolgate's inbox (${settled.error ?? 'no reason given'}); it did not run`);
      const decision = await personDecision(runtime, runId, { edits: 'refused' });
      return dialect.answer(await judge.decide(input, { by: 'person', decision }));
    }
    return deny(`this call was asked about ${MAX_ROUNDS} times in this session; it did not run`);
  } catch (error) {
    runtime.logger.error('a host call could not be decided', { host: dialect.name, error: error instanceof Error ? error.message : String(error) });
    return deny(`toolgate could not decide this call (${error instanceof Error ? error.message : String(error)}); the call is blocked`);
  }
}

/** The call as a paused run with one pending approval (or the run another identical request created at the same moment). */
async function createHookRun(options: {
  runtime: ServerRuntime;
  principal: Principal;
  dialect: HostDialect;
  input: HostInput;
  verdict: Awaited<ReturnType<Awaited<ReturnType<ServerRuntime['hostJudge']>>['decide']>>;
  runId: string;
  fingerprint: string;
  /** Until when the host's hook waits for the answer (ms since the epoch). */
  deadline: number;
}): Promise<StoredRun> {
  const { runtime, dialect, input, verdict, runId } = options;
  const request = verdict.authorization.request;
  if (request === undefined) throw new Error('the gate asked without a request');
  const gateContext = { sessionId: `${input.host}:${input.sessionId}`, chatId: callScope(callIdentity(input)), caller: input.host };
  const where = `${dialect.title}, session ${input.sessionId}, ${gateContext.chatId}`;
  const call = { tool: request.tool, args: verdict.authorization.args, callId: 'call' };
  const presented = await presentRequest({ request, call, context: gateContext });
  const run = { runId, owner: options.principal.name, sessionId: gateContext.sessionId, model: `hook:${input.host}`, input: `${where}: ${input.hostTool}` };
  const rule = verdict.authorization.rule;
  const at = rule === null || rule === undefined ? undefined : runtime.policy.ruleAt?.(rule);
  const askedBy = rule === null || rule === undefined ? undefined : at === undefined ? { rule } : { rule, at };
  // Who asks, and what a decision after the hook stopped waiting does: the card says so from the start, with the time.
  const lastAsked = input.lastUserMessage === undefined ? undefined : JSON.stringify(input.lastUserMessage);
  const waits = `${dialect.title} waits for the answer until ${new Date(options.deadline).toISOString().slice(11, 19)} UTC; after that it is told to retry, and approving then lets its next identical try run, once`;
  // What the person asked comes from the hook, which read it in the host's transcript: the card says where it is from.
  const asker = [`Asked by ${where}`, ...(lastAsked === undefined ? [] : [`The person last asked it (as the hook read ${dialect.title}'s transcript): ${lastAsked}`]), waits];
  const pending = {
    approvalId: 'hook',
    toolCallId: 'call',
    tool: request.tool,
    args: verdict.authorization.args,
    description: `${presented.description} — asked by ${where}${lastAsked === undefined ? '' : `; the person last asked it: ${lastAsked}`}. ${waits}`,
    payload: presented.payload,
    required: presented.required,
    reason: verdict.reason,
    ...(presented.presentation === undefined ? {} : { presentation: { ...presented.presentation, metadata: { ...presented.presentation.metadata, asker } } }),
    // The rule that asked, and where it is written, as a run's card shows it.
    ...(askedBy === undefined ? {} : { askedBy }),
    ...(verdict.alwaysScopes === undefined ? {} : { alwaysScopes: verdict.alwaysScopes }),
  };
  return createWaitingRun({ runtime, run, envelope: { v: 1, kind: 'hook', host: input.host, fingerprint: options.fingerprint }, pending, gateContext });
}

/**
 * A run of one call that waits for a person and drives nothing (an agent
 * host's call, a remote ask): created, paused on its one approval, shown in
 * the inbox. Of two identical requests at once, one creates it and both get
 * it. `timesOutAt`: when the asker stops waiting, where that is not the
 * server policy's approval timeout.
 */
export async function createWaitingRun(options: {
  runtime: ServerRuntime;
  run: { runId: string; owner: string; sessionId: string; model: string; input: string };
  envelope: RunEnvelope;
  pending: PendingApproval;
  gateContext: GateContext;
  timesOutAt?: string;
}): Promise<StoredRun> {
  const { runtime, pending, gateContext } = options;
  const run = { ...options.run, status: 'running' as const, mode: 'interactive' as const, chatId: null };
  const { runId } = run;
  const context = { run, policy: runtime.policy };
  let created;
  try {
    created = await runtime.store.createRun({ ...run, state: sealEnvelope(runtime, options.envelope) }, [
      runEvent(context, 'run_started', { status: 'running', input: run.input, mode: run.mode, model: run.model, session_id: run.sessionId, chat_id: null, owner: run.owner }),
    ]);
  } catch (error) {
    // Two identical calls at once: the other one created it, and both wait for the same decision.
    const existing = await runtime.store.getRun(runId);
    if (existing !== undefined) return existing;
    throw error;
  }
  const data = { ...checkpointData({ context, pending, gateContext, args: pending.args }), ...(options.timesOutAt === undefined ? {} : { times_out_at: options.timesOutAt }) };
  const paused = await runtime.store.updateRun(
    runId,
    created.run.revision,
    { status: 'paused_checkpoint' },
    {
      approvals: [{ runId, toolCallId: pending.toolCallId, owner: run.owner, tool: pending.tool, groupId: null, request: data }],
      events: [runEvent(context, 'checkpoint_required', data), runEvent(context, 'run_paused', { reason: 'tool_approval_required', status: 'paused_checkpoint', tool_name: pending.tool, waiting: [pending.toolCallId] })],
    },
  );
  runtime.notify();
  return paused?.run ?? (await runtime.store.getRun(runId)) ?? created.run;
}

/** The run once decided and ended, or as it stands at the deadline. */
export async function settledRun(runtime: ServerRuntime, run: StoredRun, deadline: number): Promise<StoredRun> {
  let current = run;
  while ((current.status === 'paused_checkpoint' || current.status === 'running') && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
    current = (await runtime.store.getRun(run.runId)) ?? current;
  }
  return current;
}

/**
 * The person's decision of a waiting run, verified against its signature
 * (one that does not verify denies). `edits: 'refused'` (an agent host's
 * call, which runs its own input): an approval with edited arguments denies.
 */
export async function personDecision(runtime: ServerRuntime, runId: string, options: { edits: 'refused' | 'allowed' }): Promise<ApprovalDecision> {
  const { decisions } = verifiedDecisions({ key: runtime.recordKey, runId, approvals: await runtime.store.listRunDecisions(runId) });
  const decision = decisions[0];
  if (decision === undefined) return { approved: false, scope: 'once', reason: 'no decision was recorded', automatic: true };
  // A person's denial names them in the audit log as an approval does.
  if (!decision.approved) return { approved: false, scope: decision.scope === 'session' ? 'session' : 'once', ...(decision.reason === undefined ? {} : { reason: decision.reason }), ...(decision.automatic === true ? { automatic: true } : {}), ...(decision.by === undefined ? {} : { by: decision.by }) };
  // The host runs its own input: an approval with edited arguments cannot be what runs, so it runs nothing.
  if (decision.args !== undefined && options.edits === 'refused') return { approved: false, scope: 'once', reason: 'approved with edited arguments, which the host cannot run (it runs the call as it made it): approve it as it is, or deny it', automatic: true };
  return {
    approved: true,
    scope: decision.scope ?? 'once',
    ...(decision.args === undefined ? {} : { args: decision.args }),
    ...(decision.alwaysScope === undefined ? {} : { alwaysScope: decision.alwaysScope }),
    ...(decision.by === undefined ? {} : { by: decision.by }),
  };
}

/** The most decisions one request may report; the hook sends no more. */
const MAX_REPORTED = 500;

/**
 * Records what a command hook decided on its own into the server's audit
 * trail, each entry marked with the token that reported it (`reported_by`):
 * the hook judged those calls with the policy of its machine, so the entry
 * is that hook's account, not the server's judgement. Entries that are not
 * audit entries are dropped; how many were recorded.
 *
 * @example
 * await recordHostDecisions({ runtime, principal, entries: body.toolgate_local_decisions }) // 3
 */
export async function recordHostDecisions(options: { runtime: ServerRuntime; principal: Principal; entries: unknown }): Promise<number> {
  const { runtime } = options;
  if (runtime.audit === undefined || !Array.isArray(options.entries)) return 0;
  let recorded = 0;
  for (const entry of options.entries.slice(0, MAX_REPORTED)) {
    if (!isReportedEntry(entry)) continue;
    // What the hook's policy decided, never a person's decision: a hook asks nobody itself, so an entry saying a person decided,
    // or naming an approver, is the reporter's claim, and is not recorded as one.
    const { reported_by: _claimed, approver: _approver, ...own } = entry as AuditEntry & { reported_by?: unknown };
    if (own.source === 'person' || own.source === 'timeout') continue;
    await runtime.audit.record({ ...own, reported_by: options.principal.name });
    recorded++;
  }
  return recorded;
}

function isReportedEntry(value: unknown): value is AuditEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entry = value as Record<string, unknown>;
  const strings = ['time', 'session', 'call_id', 'tool', 'verdict', 'decision', 'source', 'reason'] as const;
  return entry.v === AUDIT_SCHEMA_VERSION && (entry.kind === 'verdict' || entry.kind === 'decision') && strings.every((key) => typeof entry[key] === 'string') && typeof entry.latency_ms === 'number' && JSON.stringify(entry).length <= 64 * 1024;
}
