/**
 * The server's runs: started from `POST /runs`, driven in deferred mode,
 * paused durably on approvals, resumed by decisions, cancelled, recovered
 * after a restart, and timed out when nobody answers. Implements RunService.
 */
import { auditInsights, type AuditInsights } from '../../insights/audit-insights.ts';
import { ToolgateError } from '../../core/errors/toolgate-error.ts';
import { answerHostCall, recordHostDecisions } from './host-approvals.ts';
import { answerAsk } from './remote-asks.ts';
import { createApprovalPresence } from './approval-presence.ts';
import { randomBytes } from 'node:crypto';
import { argumentsDigest, readDecisionLink, type DecisionLink } from '../notify/decision-links.ts';
import { ADMIN_PRINCIPAL_NAME } from '../tokens.ts';
import { SlackRequestError, type SlackAction, type SlackChannel } from '../notify/slack-channel.ts';
import type { StoredApproval, StoredEvent, StoredRun } from '../../store/store.ts';
import { isFinished } from '../../store/store.ts';
import { redact } from '../../core/redact.ts';
import { ApiError, type ApproveInput, type Principal, type RunService, type SessionApprovalView, type StartRunInput } from '../run-service.ts';
import { withSpan } from '../tracing.ts';
import { approveRun, NOT_FOUND } from './approve-run.ts';
import { driveRun } from './drive-run.ts';
import { runEvent } from './run-events.ts';
import { maySeeEvent, maySeeRun, pendingView, pendingViewText, runView, summaryView } from './run-views.ts';
import { gateModeOf, scopedSession, sealEnvelope, type ServerRuntime } from './server-runtime.ts';
import { unscopeSession } from '../../core/scoped-session.ts';
import type { RunMode } from '../../core/types.ts';

export interface RunServiceOptions {
  runtime: ServerRuntime;
  /** Prometheus text (the gate's counters and the server's gauges). */
  metrics: () => Promise<string>;
  /** Tells the service's SSE listeners; the runtime calls it through `notify`. */
  listeners: Set<() => void>;
  close: () => Promise<void>;
}

/** How long a page's report of the cards it has open holds: it reports every few seconds while it is shown. */
const PRESENCE_TTL_MS = 20_000;

/**
 * @example
 * const service = createRunService({ runtime, metrics, listeners, close });
 * const { run_id } = await service.startRun(principal, { input: 'Tidy the notes' });
 */
export function createRunService(options: RunServiceOptions): RunService {
  const { runtime, listeners } = options;
  const { store } = runtime;
  // What a run's mode may not loosen: the policy's mode, and whether it has soft asks (strict approves those).
  const policyMode = runtime.policy.mode ?? 'interactive';
  const softAsks = hasSoftAsks(runtime.policy.document);
  const presence = createApprovalPresence({ ttlMs: PRESENCE_TTL_MS });

  async function visibleRun(principal: Principal, runId: string): Promise<StoredRun> {
    const run = await store.getRun(runId);
    if (run === undefined || !maySeeRun(principal, run)) throw new ApiError(404, NOT_FOUND);
    return run;
  }

  function mustDecide(principal: Principal): void {
    if (principal.role === 'submitter') throw new ApiError(403, 'deciding approvals needs the approver or admin role; this token is a submitter');
  }

  return {
    async startRun(principal, input: StartRunInput) {
      const model = input.model ?? runtime.defaultModel;
      if (model === undefined || runtime.models.size === 0) {
        throw new ApiError(409, `this server runs no agents: it was started without a model, to serve agent hosts' hooks and the inbox only; restart it with --model ID (or TOOLGATE_MODEL, OPENAI_API_KEY, ANTHROPIC_API_KEY) to run them`, { field: 'model' });
      }
      if (!runtime.models.has(model)) {
        throw new ApiError(400, `model ${JSON.stringify(model)} is not offered by this server; choose one of: ${[...runtime.models.keys()].join(', ')}`, { field: 'model' });
      }
      const mode = input.mode ?? 'interactive';
      const overriding = gateModeOf(mode);
      if (overriding !== undefined && loosens(overriding, policyMode, softAsks)) {
        const allowed = ['interactive', 'daemon', ...RUN_MODES.filter((each) => !loosens(each, policyMode, softAsks))];
        throw new ApiError(
          400,
          `mode ${JSON.stringify(mode)} would approve calls that the policy's mode (${policyMode}) sends to a person or denies` +
            `${overriding === 'strict' ? ' (strict approves the asks the policy marks required: false)' : ''}; a run may only choose a mode that approves nothing more: ${[...new Set(allowed)].join(', ')}`,
          { field: 'mode' },
        );
      }
      const runId = `run_${randomBytes(12).toString('base64url')}`;
      const input_ = String(redact(input.input, runtime.policy.redact.keys));
      const run = { runId, owner: principal.name, status: 'running' as const, mode, sessionId: input.session_id ?? `session_${runId}`, chatId: input.chat_id ?? null, model, input: input_ };
      const messages = [{ role: 'user' as const, content: input.input }];
      const created = await withSpan('toolgate.run.start', { 'toolgate.run_id': runId }, () =>
        store.createRun({ ...run, state: sealEnvelope(runtime, { v: 1, kind: 'messages', messages }) }, [
          runEvent({ run, policy: runtime.policy }, 'run_started', { status: 'running', input: input_, mode, model, session_id: run.sessionId, chat_id: run.chatId, owner: principal.name }),
        ]),
      );
      runtime.notify();
      void driveRun(runtime, created.run, { kind: 'messages', messages });
      return { run_id: runId, status: 'running' };
    },

    async listRuns(principal, query) {
      const page = await store.listRuns({ ...(principal.role === 'submitter' ? { owner: principal.name } : {}), ...query });
      // Only a paused run has calls waiting: count those of this page's paused runs, not every pending call in the store.
      const runs = [];
      for (const run of page.runs) runs.push(summaryView(run, run.status === 'paused_checkpoint' ? (await store.listApprovals({ runId: run.runId })).length : 0));
      return { runs, next: page.next };
    },

    async getRun(principal, runId) {
      const run = await visibleRun(principal, runId);
      return runView(run, await store.listApprovals({ runId, includeDecided: true }));
    },

    async listNotifications(_principal, query) {
      const [counts, deliveries] = await Promise.all([store.outbox.countDeliveries(), store.outbox.listDeliveries(query)]);
      return {
        counts,
        deliveries: deliveries.map((delivery) => ({
          id: delivery.id,
          channel: delivery.channel,
          run_id: delivery.runId,
          tool_call_id: delivery.toolCallId,
          status: delivery.status,
          attempts: delivery.attempts,
          last_error: delivery.lastError,
          created_at: delivery.createdAt,
          delivered_at: delivery.deliveredAt,
        })),
      };
    },

    async linkView(token) {
      const { link, approval } = await openLink(runtime, token);
      return {
        state: 'waiting',
        approver: link.approver,
        run_id: link.runId,
        tool_call_id: link.toolCallId,
        tool_name: approval.tool,
        expires_at: new Date(link.expiresAt * 1000).toISOString(),
        presentation: approval.request.presentation ?? null,
      };
    },

    async slackInteraction(channelName, request) {
      const channel = runtime.channels?.get(channelName);
      if (channel === undefined || channel.kind !== 'slack') throw new ApiError(404, `no Slack channel is named ${JSON.stringify(channelName.slice(0, 64))} in this server's policy`);
      const slack = channel as SlackChannel;
      let action: SlackAction;
      try {
        action = slack.readInteraction({ ...request, now: Date.now() });
      } catch (error) {
        if (error instanceof SlackRequestError) throw new ApiError(error.status, error.message);
        throw error;
      }
      const reply = (text: string) => slack.replyInThread(action, text).catch((error: unknown) => runtime.logger.warn('slack: could not reply in a thread', { error: String(error) }));
      // Slack wants an answer within 3 s: the press is taken now, decided after, and any refusal told in the thread.
      void (async () => {
        if (action.approver === undefined) {
          await reply(`is not one of toolgate's approvers in this channel (server.channels.${channelName}.users): nothing was decided.`);
          return;
        }
        try {
          const { run } = await openCall(runtime, { approver: action.approver, runId: action.runId, toolCallId: action.toolCallId, argsDigest: action.argsDigest });
          await approveRun({ runtime, run, principal: { name: action.approver, role: 'approver' }, input: { approved: action.approved, tool_call_id: action.toolCallId, ...(action.reason === undefined ? {} : { reason: action.reason }), via: 'slack' } });
        } catch (error) {
          if (error instanceof ApiError) await reply(`nothing was decided: ${error.message}`);
          else runtime.logger.error('slack: a press could not be decided', { run_id: action.runId, tool_call_id: action.toolCallId, error: String(error) });
        }
      })();
      return { accepted: true };
    },

    async decideByLink(token, input) {
      const { link, run } = await openLink(runtime, token);
      // Decided as the approver the link was sent to, and said so: "by carol, by a link".
      return withSpan('toolgate.decision', { 'toolgate.run_id': link.runId, 'toolgate.approved': input.approved }, () =>
        approveRun({ runtime, run, principal: { name: link.approver, role: 'approver' }, input: { approved: input.approved, tool_call_id: link.toolCallId, ...(input.reason === undefined ? {} : { reason: input.reason }), via: 'link' } }),
      );
    },

    async approve(principal, runId, input: ApproveInput) {
      const run = await visibleRun(principal, runId);
      mustDecide(principal);
      return withSpan('toolgate.decision', { 'toolgate.run_id': runId, 'toolgate.approved': input.approved }, () => approveRun({ runtime, run, principal, input }));
    },

    async cancel(principal, runId) {
      for (let attempt = 0; attempt < 5; attempt++) {
        const run = await visibleRun(principal, runId);
        if (principal.role === 'submitter' && run.owner !== principal.name) throw new ApiError(404, NOT_FOUND);
        if (isFinished(run.status)) throw new ApiError(400, `run is not active, current status: ${run.status}`, { current_status: run.status });
        const event = runEvent({ run, policy: runtime.policy }, 'run_cancelled', { reason: 'cancelled_by_request', status: 'cancelled', by: principal.name });
        // What was waiting, read before the cancel drops it: the messages sent about it are told the run was cancelled.
        const waiting = runtime.onDecided === undefined || run.status !== 'paused_checkpoint' ? [] : await store.listApprovals({ runId });
        const moved = await store.updateRun(runId, run.revision, { status: 'cancelled', state: null, error: `cancelled by ${principal.name}` }, { events: [event], dropApprovals: true });
        if (moved === undefined) continue;
        runtime.active.get(runId)?.abort(new Error('cancelled'));
        runtime.notify();
        if (waiting.length > 0) void runtime.onDecided?.(waiting.map((approval) => ({ runId, toolCallId: approval.toolCallId, approved: false, decidedBy: principal.name, via: 'cancelled', reason: null })), waiting);
        return { status: 'cancelled' as const, message: 'Run cancelled' };
      }
      throw new ApiError(409, 'the run kept changing while it was being cancelled; try again');
    },

    async pendingApprovals(principal) {
      if (principal.role === 'submitter') return (await store.listApprovals({ owner: principal.name })).map(pendingView);
      return (await store.listApprovals({})).map(pendingView);
    },

    async *pendingApprovalPages(principal, pageSize) {
      let after: string | undefined;
      do {
        const page = await store.listPendingApprovalTexts({ limit: pageSize, ...(principal.role === 'submitter' ? { owner: principal.name } : {}), ...(after === undefined ? {} : { after }) });
        yield page.approvals.map(pendingViewText);
        after = page.next ?? undefined;
      } while (after !== undefined);
    },

    recordHostDecisions(principal, entries) {
      return recordHostDecisions({ runtime, principal, entries });
    },

    answerAsk(principal, body, budgetMs) {
      return answerAsk({ runtime, principal, body, budgetMs });
    },

    answerHostCall(principal, dialect, body, budgetMs) {
      return answerHostCall({ runtime, principal, dialect, body, budgetMs });
    },

    async reportPresence(principal, open) {
      presence.report(principal.name, open);
      return { others: presence.othersThan(principal.name) };
    },

    async listSessionApprovals() {
      const approvals = runtime.memory.list().map((entry): SessionApprovalView => {
        const scoped = unscopeSession(entry.sessionId);
        return {
          id: entry.id,
          owner: scoped?.owner ?? null,
          session_id: scoped?.sessionId ?? entry.sessionId,
          chat_id: entry.chatId,
          approved: entry.approved,
          reason: entry.reason ?? null,
          tool: entry.shown?.tool ?? null,
          description: entry.shown?.description ?? null,
          decided_at: entry.shown?.at ?? null,
          decided_by: entry.shown?.by ?? null,
        };
      });
      // Newest first; those from before decisions were shown (no time) last.
      approvals.sort((a, b) => (b.decided_at ?? '').localeCompare(a.decided_at ?? ''));
      return { approvals };
    },

    async forgetSessionApproval(_principal, id) {
      if (!/^[0-9a-f]{16}$/.test(id)) throw new ApiError(400, `session approval id ${JSON.stringify(id.slice(0, 80))}: expected the 16 hex digits of an id from GET /approvals/session`, { field: 'id', expected: 'a session approval id' });
      if (!(await runtime.memory.forget(id))) throw new ApiError(404, `no session approval has the id ${id}`);
      return { forgotten: id };
    },

    attention(principal) {
      return { asks_per_hour: runtime.policy.document.attention?.asks_per_hour ?? null, decided_last_hour: runtime.attention.lastHour(principal.name) };
    },

    async insights(principal, query) {
      if (principal.role === 'submitter') throw new ApiError(403, 'the attention page shows everyone\'s decisions: it needs the approver or admin role; this token is a submitter');
      const source = runtime.readAudit;
      if (source === undefined) throw new ApiError(404, 'this server keeps no audit trail (audit.enabled: false in its policy)');
      // Up to now: a record dated in the future (a server with a wrong clock sharing the store) would stretch the page's chart to it.
      const window = { since: query.since, until: Date.now(), budgetPerHour: runtime.policy.document.attention?.asks_per_hour };
      let figures: AuditInsights;
      try {
        figures = await auditInsights({ items: source.items(), ...window });
      } catch (error) {
        // A server that has recorded nothing yet has no log yet: nothing to show, not an error.
        if (!(error instanceof ToolgateError && error.code === 'AUDIT_LOG_INVALID' && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT')) throw error;
        figures = await auditInsights({ items: [], ...window });
      }
      return { ...figures, where: source.where };
    },

    async listAlways() {
      return { where: runtime.keptAlways.where, approvals: await runtime.keptAlways.list() };
    },

    async revokeAlways(_principal, id) {
      // The same rule as `toolgate approvals revoke`: an id, or a prefix long enough not to name another by chance.
      if (!/^[0-9a-f]{6,64}$/.test(id)) throw new ApiError(400, `approval id ${JSON.stringify(id.slice(0, 80))}: expected at least 6 hex digits of an id from GET /approvals/always`, { field: 'id', expected: 'an approval id' });
      const revoked = await runtime.keptAlways.revoke([id]);
      if (revoked.length === 0) throw new ApiError(404, `no "approve always" has the id ${id}`);
      return { revoked };
    },

    async clearChat(principal, sessionId, chatId) {
      // Sessions are scoped by owner: a submitter clears its own; an admin clears the chat for every owner.
      const owners = principal.role === 'admin' ? await ownersOf(runtime) : [principal.name];
      let cleared = 0;
      for (const owner of owners) cleared += await runtime.memory.forgetChat(scopedSession(owner, sessionId), chatId);
      return { cleared };
    },

    async readEvents(principal, query) {
      if (query.runId !== undefined) {
        await visibleRun(principal, query.runId);
        return store.readEvents({ afterId: query.afterId, runId: query.runId, limit: query.limit });
      }
      if (principal.role === 'submitter') return store.readEvents({ afterId: query.afterId, owner: principal.name, limit: query.limit });
      return store.readEvents({ afterId: query.afterId, limit: query.limit });
    },

    onEvents(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    maySee: (principal: Principal, event: StoredEvent) => maySeeEvent(principal, event),
    metrics: options.metrics,
    close: options.close,
  };
}

/** Everyone who may own runs: every token's name and the admin. */
async function ownersOf(runtime: ServerRuntime): Promise<string[]> {
  return ['admin', ...(await runtime.store.listTokens()).map((token) => token.name)];
}

const RUN_MODES: readonly RunMode[] = ['interactive', 'approve_all', 'strict', 'auto_deny'];

/** What a mode does with a required ask and with a soft one: 0 approves, 1 asks a person, 2 denies (approval-controller.ts). */
const STRICTNESS: Readonly<Record<RunMode, readonly [required: number, soft: number]>> = {
  interactive: [1, 1],
  approve_all: [0, 0],
  strict: [2, 0],
  auto_deny: [2, 2],
};

/** Whether a run's mode would approve an ask that the policy's mode sends to a person or denies. */
function loosens(mode: RunMode, policyMode: RunMode, softAsks: boolean): boolean {
  const [required, soft] = STRICTNESS[mode];
  const [policyRequired, policySoft] = STRICTNESS[policyMode];
  return required < policyRequired || (softAsks && soft < policySoft);
}

/** Whether the policy marks any ask soft (`required: false`): only then does strict approve anything. */
function hasSoftAsks(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasSoftAsks);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, entry]) => (key === 'required' && entry === false) || hasSoftAsks(entry));
}

/**
 * The call a one-tap link names, while the link may decide it: signed by
 * this server, not expired, its approver still holding a token that may
 * approve, and the call waiting with the arguments the link was made for.
 * Anything else is an `ApiError` whose `state` names it for the page.
 */
/** The longest a one-tap link may live (`link_ttl` allows at most 7 days). */
const MAX_LINK_LIFE_MS = 7 * 24 * 3_600_000 + 60_000;

async function openLink(runtime: ServerRuntime, token: string): Promise<{ link: DecisionLink; run: StoredRun; approval: StoredApproval }> {
  const read = readDecisionLink({ key: runtime.recordKey, token });
  if (!read.ok) throw new ApiError(404, read.problem, { state: 'invalid' });
  const { link } = read;
  // No link lives longer than the longest link_ttl, whatever it says: a key that signed a far-off time by mistake still cannot.
  if (link.expiresAt * 1000 > Date.now() + MAX_LINK_LIFE_MS) throw new ApiError(404, 'this link is not one toolgate made (it claims to live longer than any link may)', { state: 'invalid' });
  if (link.expiresAt * 1000 <= Date.now()) throw new ApiError(410, `this link expired at ${new Date(link.expiresAt * 1000).toISOString()}: open the inbox to decide the call`, { state: 'expired' });
  return { link, ...(await openCall(runtime, link)) };
}

/**
 * A call a person outside the inbox decides (a link, a Slack button), while
 * they may: the approver still holding a token that may approve, the call
 * waiting with the arguments they were shown. Anything else is an
 * `ApiError` whose `state` names it.
 */
export async function openCall(runtime: ServerRuntime, link: { approver: string; runId: string; toolCallId: string; argsDigest: string }): Promise<{ run: StoredRun; approval: StoredApproval }> {
  const approver =
    link.approver === ADMIN_PRINCIPAL_NAME || (await runtime.store.listTokens()).some((candidate) => candidate.name === link.approver && candidate.revokedAt === null && (candidate.role === 'approver' || candidate.role === 'admin'));
  if (!approver) throw new ApiError(403, `${link.approver} can no longer approve here (their token was revoked, or is not an approver's)`, { state: 'approver_gone' });
  const run = await runtime.store.getRun(link.runId);
  const approvals = run === undefined ? [] : await runtime.store.listApprovals({ runId: link.runId, includeDecided: true });
  const approval = approvals.find((candidate) => candidate.toolCallId === link.toolCallId);
  if (run === undefined || approval === undefined) throw new ApiError(404, 'the call is gone (its run was removed)', { state: 'gone' });
  if (approval.decision !== null) {
    const decision = approval.decision;
    const how = decision.decidedBy === 'timeout' ? 'nobody decided in time: it timed out' : `${decision.approved ? 'approved' : 'denied'} by ${decision.decidedBy}${decision.via === 'link' ? ' with a link' : decision.via === 'inbox' ? ' in the inbox' : decision.via === 'slack' ? ' in Slack' : ''}`;
    throw new ApiError(409, `this call was already decided at ${decision.decidedAt} (${how})`, { state: 'decided' });
  }
  if (run.status !== 'paused_checkpoint') throw new ApiError(409, `the run no longer waits for this call (it is ${run.status})`, { state: 'not_waiting' });
  const shown = typeof approval.request.tool_arguments === 'string' ? approval.request.tool_arguments : JSON.stringify(approval.request.tool_arguments ?? null);
  if (argumentsDigest(shown) !== link.argsDigest) throw new ApiError(409, 'the call waiting now is not the one that was shown (its arguments differ); open the inbox to see it', { state: 'changed' });
  return { run, approval };
}
