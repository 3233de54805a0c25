/**
 * What `toolgate serve` does, apart from HTTP: start runs, show them, take
 * decisions, cancel, stream events. The HTTP layer (`server/http`) maps its
 * routes onto this interface one to one and turns `ApiError` into JSON
 * responses; everything it returns is already redacted and presented.
 * This file has no behaviour.
 */
import type { AuditInsights } from '../insights/audit-insights.ts';
import type { AskBody } from './http/request-schemas.ts';
import type { AskAnswer } from './runs/remote-asks.ts';
import type { KeptAlwaysRecord } from './runs/server-runtime.ts';
import type { HookAnswer, HostDialect } from '../hooks/host-dialect.ts';
import type { RunStatus, ServerRunMode, StoredEvent, TokenRole } from '../store/store.ts';

/** Who is calling: the authenticated token. */
export interface Principal {
  /** The token's name; runs record it as their owner, decisions as their approver. */
  name: string;
  role: TokenRole;
}

/** One "for this session" decision, as `GET /approvals/session` lists it. */
export interface SessionApprovalView {
  id: string;
  /** Whose runs it holds for (the token that started them), and their session and chat; null owner: a session not of a run (an agent host's). */
  owner: string | null;
  session_id: string;
  chat_id: string | null;
  approved: boolean;
  reason: string | null;
  /** Null for decisions remembered by a toolgate from before they were shown. */
  tool: string | null;
  description: string | null;
  decided_at: string | null;
  decided_by: string | null;
}

/** An error with the HTTP status and seed 004's `{"error": ...}` text. */
export class ApiError extends Error {
  readonly status: number;
  /** Extra fields for the JSON body (`field`, `expected`, `current_status`...). */
  readonly details: Record<string, unknown>;

  constructor(status: number, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.details = details;
  }
}

/** `POST /runs` (seed 004), checked by the HTTP layer (no unknown fields). */
export interface StartRunInput {
  input: string;
  mode?: ServerRunMode;
  session_id?: string;
  chat_id?: string;
  model?: string;
}

/** `GET /notifications`. */
export interface NotificationsView {
  counts: { pending: number; delivered: number; dead: number };
  deliveries: Array<{ id: string; channel: string; run_id: string; tool_call_id: string; status: string; attempts: number; last_error: string | null; created_at: string; delivered_at: string | null }>;
}

/** A one-tap link's call, as its page shows it before anything is decided. */
export interface LinkView {
  state: 'waiting';
  approver: string;
  run_id: string;
  tool_call_id: string;
  tool_name: string;
  expires_at: string;
  /** The inbox's presentation of the call (inert text, secrets masked). */
  presentation: unknown;
}

/** `POST /runs/:id/approve` (seed 004 plus toolgate's fields). */
export interface ApproveInput {
  approved: boolean;
  reason?: string;
  tool_call_id?: string;
  group_id?: string;
  scope?: 'once' | 'session' | 'always';
  /** With scope `always`: which of the call's `always_scopes` it covers (one call, named by tool_call_id or the only one waiting). */
  always_scope?: string;
  /** Where the person decided, as the client says (the web inbox sends `inbox`; default `api`); `link` for a one-tap link, set by the server. */
  via?: 'inbox' | 'api' | 'link' | 'slack';
  edited_args?: unknown;
  /** A denial that ends the run (seed 004), whatever `on_deny` says. */
  stop?: boolean;
}

/** The body of a successful decision: seed 004's `{status, message}` plus what happened. */
export interface ApproveResult {
  status: 'approved' | 'denied';
  message: string;
  /** The calls this request decided. */
  decided: string[];
  /** Calls of the run still waiting for a decision (the run resumes when none are left). */
  waiting: string[];
  /** `running` (resumed), `paused_checkpoint` (more to decide) or `cancelled` (a denial stopped it). */
  run_status: RunStatus;
}

/** One pending call as the inbox shows it: the `checkpoint_required` event's data. */
export type PendingView = Record<string, unknown> & { run_id: string; tool_call_id: string; tool_name: string; group_id: string | null };

export interface RunView {
  run_id: string;
  status: RunStatus;
  mode: ServerRunMode;
  owner: string;
  session_id: string;
  chat_id: string | null;
  model: string;
  input: string;
  text: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  pending_approvals: PendingView[];
  /** Every decision taken in the run, oldest first: who, what, when. */
  decisions: Array<{ tool_call_id: string; tool_name: string; approved: boolean; reason: string | null; scope: string; decided_by: string; decided_at: string; via: 'inbox' | 'api' | 'link' | 'slack' | 'timeout' | null }>;
}

export type RunSummaryView = Omit<RunView, 'pending_approvals' | 'decisions'> & { pending: number };

export interface RunService {
  startRun(principal: Principal, input: StartRunInput): Promise<{ run_id: string; status: RunStatus }>;
  listRuns(principal: Principal, query: { status?: RunStatus; limit: number; before?: string }): Promise<{ runs: RunSummaryView[]; next: string | null }>;
  /** 404 (`run not found or not active`) when the run is unknown or not the caller's to see. */
  getRun(principal: Principal, runId: string): Promise<RunView>;
  approve(principal: Principal, runId: string, input: ApproveInput): Promise<ApproveResult>;
  cancel(principal: Principal, runId: string): Promise<{ status: RunStatus; message: string }>;
  /** Everything pending that the caller may decide (the inbox). */
  pendingApprovals(principal: Principal): Promise<PendingView[]>;
  /**
   * `pendingApprovals` in pages of at most `pageSize`, in the same order, read
   * as they are asked for, so that `GET /approvals` streams a long inbox with
   * bounded memory; each view as its JSON text (`JSON.stringify` of the
   * `PendingView`). Optional: without it the route answers `pendingApprovals`.
   */
  pendingApprovalPages?(principal: Principal, pageSize: number): AsyncIterable<string[]>;
  /** The caller's decisions in the last hour and the policy's attention budget (`GET /whoami`'s `attention`). */
  attention?(principal: Principal): { asks_per_hour: number | null; decided_last_hour: number };
  /**
   * Where people's attention went (`GET /insights`, the inbox's attention
   * page): `toolgate insights`' figures over the audit trail since `since`
   * (ms). Approvers and admins only: it shows everyone's decisions.
   * Optional: without it (or an audit trail) the route answers 404.
   */
  insights?(principal: Principal, query: { since: number }): Promise<AuditInsights & { where: string }>;
  /** The "approve always" decisions (`GET /approvals/always`). Optional: without it the route answers 404. */
  listAlways?(principal: Principal): Promise<{ where: string; approvals: KeptAlwaysRecord[] }>;
  /** Revokes one "approve always" by its id (`DELETE /approvals/always/:id`); 404 when none has it. */
  revokeAlways?(principal: Principal, id: string): Promise<{ revoked: KeptAlwaysRecord[] }>;
  /**
   * The pending cards `principal` has open in the web inbox now, reported
   * every few seconds (`POST /approvals/presence`); answered with the cards
   * other approvers have open ("claimed by NAME"). Optional: 404 without it.
   */
  reportPresence?(principal: Principal, open: Array<{ run_id: string; tool_call_id: string }>): Promise<{ others: Array<{ run_id: string; tool_call_id: string; names: string[] }> }>;
  /** The "for this session" decisions the server remembers (`GET /approvals/session`), newest first. Optional: without it the route answers 404. */
  listSessionApprovals?(principal: Principal): Promise<{ approvals: SessionApprovalView[] }>;
  /** Forgets one (`DELETE /approvals/session/:id`): the next such call in that session asks again; 404 when none has the id. */
  forgetSessionApproval?(principal: Principal, id: string): Promise<{ forgotten: string }>;
  /** Forgets one chat's remembered approvals (seed 003's `clear(chatId)`); `null`: those of runs started without a `chat_id`. */
  clearChat(principal: Principal, sessionId: string, chatId: string | null): Promise<{ cleared: number }>;
  /**
   * An agent host's PreToolUse call (`POST /hooks/:host`), answered in the
   * host's dialect: judged by the policy, and when it asks, put to a person
   * and waited for up to `budgetMs` (the host's hook timeout). Never throws.
   */
  answerHostCall?(principal: Principal, dialect: HostDialect, body: unknown, budgetMs: number): Promise<HookAnswer>;
  /**
   * A call another gate judged and asks a person about (`POST /asks`): shown
   * in the inbox, and waited for up to `budgetMs`; `pending` past it (ask
   * again with the same id).
   */
  answerAsk?(principal: Principal, body: AskBody, budgetMs: number): Promise<AskAnswer>;
  /** The notifications outbox (`GET /notifications?status=dead`): counts by status, and the latest deliveries, without what they carry. */
  listNotifications?(principal: Principal, query: { status?: 'pending' | 'delivered' | 'dead'; limit: number }): Promise<NotificationsView>;
  /** What a one-tap link shows (`GET /decide/:token/view`): the call as the inbox presents it, or why the link does nothing (an `ApiError` with `state`). */
  linkView?(token: string): Promise<LinkView>;
  /** A Slack button press (`POST /slack/interactivity/:channel`), verified against the channel's signing secret; a refusal is told in the message's thread. */
  slackInteraction?(channel: string, request: { rawBody: string; timestamp: string | undefined; signature: string | undefined }): Promise<{ accepted: true }>;
  /** Decides the link's call as its approver (`POST /decide/:token`); refused, deciding nothing, with the same states. */
  decideByLink?(token: string, input: { approved: boolean; reason?: string }): Promise<ApproveResult>;
  /**
   * The decisions a command hook made on its own (`toolgate_local_decisions`
   * of its request: its local policy allowed or blocked those calls),
   * recorded in the server's audit trail with who reported them; how many.
   */
  recordHostDecisions?(principal: Principal, entries: unknown): Promise<number>;
  /**
   * Events after `afterId` that the caller may see (one run's with `runId`,
   * which must be visible to the caller: 404 otherwise), oldest first.
   */
  readEvents(principal: Principal, query: { runId?: string; afterId: number; limit: number }): Promise<StoredEvent[]>;
  /** Calls `listener` as soon as new events are stored (any run); returns the unsubscribe function. */
  onEvents(listener: () => void): () => void;
  /** Whether the caller may see this event (owner, role). */
  maySee(principal: Principal, event: StoredEvent): boolean;
  /** Prometheus text for `GET /metrics`. */
  metrics(): Promise<string>;
  close(): Promise<void>;
}
