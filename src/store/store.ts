/**
 * Where `toolgate serve` keeps what must survive a restart: runs and their
 * messages, pending approvals and the decisions on them, the events a client
 * replays, the ledger of tool calls that started (at most once), session
 * memory, and API tokens. Every operation that changes more than one record
 * is one transaction, and every record carries `STORE_SCHEMA_VERSION`.
 *
 * The embedded default is SQLite (`openSqliteStore`); a PostgreSQL store
 * implements the same interface and passes the same contract suite
 * (`store-contract.ts`). This file has no behaviour.
 */

import type { RememberedShown } from '../core/approval-memory.ts';
import type { DeliveryStatus, NewDelivery, SharedRecords, StoreOutbox, StoredAlwaysApproval, StoredDelivery } from './store-shared.ts';

export type { DeliveryStatus, NewDelivery, SharedRecords, StoreOutbox, StoredAlwaysApproval, StoredDelivery } from './store-shared.ts';

/** The version of every record this code writes; a store refuses a database written by a newer one. */
export const STORE_SCHEMA_VERSION = 1;

/** Seed 004's run statuses. */
export type RunStatus = 'running' | 'paused_checkpoint' | 'completed' | 'cancelled' | 'failed';

export const RUN_STATUSES: readonly RunStatus[] = ['running', 'paused_checkpoint', 'completed', 'cancelled', 'failed'];

/** A run that has ended: nothing moves it again. */
export function isFinished(status: RunStatus): boolean {
  return status === 'completed' || status === 'cancelled' || status === 'failed';
}

/** The policy's modes, plus `daemon` for runs nobody watches (seed 004's `auto_approve_in_daemon`). */
export type ServerRunMode = 'interactive' | 'approve_all' | 'strict' | 'auto_deny' | 'daemon';

export type TokenRole = 'submitter' | 'approver' | 'admin';

export interface StoredRun {
  runId: string;
  /** The name of the token that started it. */
  owner: string;
  status: RunStatus;
  mode: ServerRunMode;
  sessionId: string;
  chatId: string | null;
  /** The model id the run uses (one the server allows). */
  model: string;
  /** The task, redacted as stored. */
  input: string;
  /**
   * What the run continues from: the signed, sealed run state (JSON text,
   * opaque to the store) while it runs or waits. Null once it has finished.
   */
  state: string | null;
  /** The model's last text, once the run has finished. */
  text: string | null;
  /** Why it failed or was cancelled. */
  error: string | null;
  createdAt: string;
  updatedAt: string;
  /** Incremented by every change: `updateRun` moves a run only from the revision its caller read. */
  revision: number;
  schemaVersion: number;
}

/** What `createRun` needs; the store fills in times, revision and version. */
export type NewRun = Omit<StoredRun, 'createdAt' | 'updatedAt' | 'revision' | 'schemaVersion' | 'text' | 'error'>;

export interface RunChange {
  status?: RunStatus;
  state?: string | null;
  text?: string | null;
  error?: string | null;
}

/** An event as it is streamed: seed 004's `{type, data}`, with a store-wide increasing id. */
export interface StoredEvent {
  /** Increases across the whole store, in commit order; SSE's `id:`. */
  id: number;
  runId: string;
  /** The run's owner, so a stream across runs can be filtered by who may see it. */
  owner: string;
  type: string;
  data: Record<string, unknown>;
  at: string;
}

export type NewEvent = Omit<StoredEvent, 'id' | 'at'>;

/** A person's answer to one pending call. */
export interface StoredDecision {
  approved: boolean;
  reason: string | null;
  scope: 'once' | 'session' | 'always';
  /** The arguments the person edited, when they did. */
  editedArgs?: unknown;
  /** With scope `always`: which choice of what it covers (`always_scope`, an `alwaysScopes` id). */
  alwaysScope?: string;
  /** Where it was decided: the web inbox or another client of the API (as the client says); absent for a timeout. */
  via?: 'inbox' | 'api' | 'link' | 'slack';
  /** Whether this denial stops the run (seed 004). */
  stop?: boolean;
  /** The authenticated approver (token name), or `timeout`/`system` when nobody decided. */
  decidedBy: string;
  decidedAt: string;
}

/** A call the run waits on. `request` is the `checkpoint_required` event's data (redacted, presented). */
export interface StoredApproval {
  runId: string;
  toolCallId: string;
  owner: string;
  tool: string;
  groupId: string | null;
  request: Record<string, unknown>;
  createdAt: string;
  decision: StoredDecision | null;
  schemaVersion: number;
}

/**
 * An undecided approval with its request as the JSON text it was stored as,
 * not parsed: what a long listing sends on without building the object and
 * serialising it again.
 */
export interface StoredApprovalText extends Omit<StoredApproval, 'request' | 'decision'> {
  requestText: string;
}

/** An approval without its request: what deciding and resuming a run need (which calls wait, who decided what). */
export type StoredApprovalDecision = Omit<StoredApproval, 'request'>;

export type NewApproval = Omit<StoredApproval, 'createdAt' | 'decision' | 'schemaVersion'>;

/** Which undecided approvals to list: oldest first, `owner`'s only when given, after the previous page's `next`. */
export interface PendingApprovalsQuery {
  owner?: string;
  limit: number;
  after?: string;
}

/** What `decideApprovals` did. */
export interface DecideResult {
  /** The calls this decision decided, in the order named. */
  decided: string[];
  /** The run's calls still undecided afterwards, oldest first. */
  waiting: string[];
  /** The decided calls' events, as stored. */
  events: StoredEvent[];
  /** The run as claimed and its resume events, when it was claimed. */
  resumed?: { run: StoredRun; events: StoredEvent[] };
}

/** The at-most-once ledger: a call is recorded as executing before it runs. */
export type CallStatus = 'executing' | 'completed' | 'failed' | 'interrupted';

export interface StoredCall {
  runId: string;
  toolCallId: string;
  tool: string;
  /** The arguments that ran, sealed (opaque text to the store). */
  input: string;
  status: CallStatus;
  /** The tool's output once it completed (or its error once it failed), sealed. */
  output: string | null;
  startedAt: string;
  finishedAt: string | null;
}

/**
 * One model call of a run, recorded before any tool call of its answer runs
 * (issue 32): `body` is sealed text, opaque to the store, holding the
 * messages the run added since its previous record and the model's answer,
 * with the identities toolgate gave the answer's calls. A recovery continues
 * from these records and never asks the model again for an answer it has.
 */
export interface StoredStep {
  runId: string;
  /** The run's model call number, from 0; unique per run. */
  seq: number;
  body: string;
  recordedAt: string;
  schemaVersion: number;
}

export interface StoredToken {
  name: string;
  role: TokenRole;
  /** SHA-256 of the token, hex. The token itself is never stored. */
  hash: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface RememberedRecord {
  approved: boolean;
  reason?: string;
  /** What was decided, as a list of session approvals shows it. */
  shown?: RememberedShown;
  /** The server's MAC over the record (`record-mac.ts`): a record without a valid one is never used. */
  mac?: string;
}

/** What `ToolgateStore.watch` reports. */
export type StoreChange = { kind: 'events' } | { kind: 'memory'; key: string | null } | { kind: 'always' } | { kind: 'resync' };

/**
 * Servers sharing one store (PostgreSQL): each holds a lease it renews while
 * it lives, and every run it creates or moves is stamped as its own. A
 * running run whose server's lease ran out is an orphan another server takes
 * over (claiming it by revision, as any move). Lease times are the
 * database's clock, so the servers' clocks need not agree.
 */
export interface StoreInstances {
  /** This server's id. */
  readonly instance: string;
  /** Extends this server's lease to `leaseMs` from now. */
  renew(leaseMs: number): Promise<void>;
  /** Ends the lease (a clean stop): other servers take its running runs at once. */
  release(): Promise<void>;
  /** Running runs of no live server, and this server's own (which it may have stopped driving), oldest first. */
  orphanedRuns(limit: number): Promise<StoredRun[]>;
}

export interface ToolgateStore {
  /** `sqlite` or `postgres`, for logs and `/healthz`. */
  readonly kind: string;
  /** Notifications waiting to be sent, sent, and given up on (`StoreOutbox`). */
  readonly outbox: StoreOutbox;
  /** Present when several servers may share the store (`StoreInstances`); absent when one server has it to itself. */
  readonly instances?: StoreInstances;
  /** Present on a store servers share: "approve always" and the audit trail live in it (`SharedRecords`). */
  readonly shared?: SharedRecords;
  /**
   * Tells `listener` what any process (this one too) changed that a server
   * keeps in memory or streams: events were stored, a remembered decision
   * changed (its key, or null for "reload them all"), or the watch
   * reconnected and anything may have changed meanwhile. Returns how to stop.
   * Absent when no other process writes the store.
   */
  watch?(listener: (change: StoreChange) => void): () => Promise<void>;
  /**
   * Records `fingerprint` (of the secret the server seals runs under) when
   * the store has none yet; false when it holds another one: servers sharing
   * the store must share the secret, or one could not open another's runs.
   * Absent when the store has one server.
   */
  adoptSecret?(fingerprint: string): Promise<boolean>;

  /** Creates a run (status `running`) and its first events, in one transaction. */
  createRun(run: NewRun, events: readonly NewEvent[]): Promise<{ run: StoredRun; events: StoredEvent[] }>;
  getRun(runId: string): Promise<StoredRun | undefined>;
  /**
   * Runs newest first; `owner` limits them to one owner's. `before` is the
   * `next` cursor of the previous page.
   */
  listRuns(query: { owner?: string; status?: RunStatus; limit: number; before?: string }): Promise<{ runs: StoredRun[]; next: string | null }>;
  /** How many runs have each status (for metrics). */
  countRuns(): Promise<Record<RunStatus, number>>;
  /**
   * Runs that are `paused_checkpoint` but have no undecided approval left:
   * every call was decided and the run was never resumed (the process
   * stopped in between). A server resumes them when it starts.
   */
  decidedPausedRuns(): Promise<StoredRun[]>;
  /**
   * Moves a run from `revision` (compare-and-set), appends its events, adds
   * approvals and decides or drops them, all in one transaction. Returns
   * undefined, changing nothing, when the run is gone or another writer moved it first.
   */
  updateRun(
    runId: string,
    revision: number,
    change: RunChange,
    extra?: { events?: readonly NewEvent[]; approvals?: readonly NewApproval[]; dropApprovals?: boolean },
  ): Promise<{ run: StoredRun; events: StoredEvent[] } | undefined>;

  /** Pending (undecided) approvals, or all of a run's with `runId` and `includeDecided`. */
  listApprovals(query: { runId?: string; owner?: string; includeDecided?: boolean }): Promise<StoredApproval[]>;
  /**
   * One run's approvals, decided ones included, in the order they were
   * added, without their requests: `listApprovals` for deciding, which
   * never reads the requests (a few KB of JSON each, shown to people only).
   */
  listRunDecisions(runId: string): Promise<StoredApprovalDecision[]>;
  /**
   * Undecided approvals a page at a time, oldest first (`owner` for one
   * owner's); `after` is the previous page's `next`.
   */
  listPendingApprovals(query: PendingApprovalsQuery): Promise<{ approvals: StoredApproval[]; next: string | null }>;
  /** The same pages as `listPendingApprovals`, each request left as its stored JSON text. */
  listPendingApprovalTexts(query: PendingApprovalsQuery): Promise<{ approvals: StoredApprovalText[]; next: string | null }>;
  /**
   * Records one decision on the named calls of a run, each with its events,
   * and, when `resume` is given, claims the run in the same transaction (one
   * commit): the run moves from `resume.revision` to `running` with
   * `resume.events`, but only if every named call was undecided (this
   * decision is the one that stands on each) and no call of the run is left
   * undecided. A call decided already (or unknown) is skipped and writes
   * nothing. `waiting` lists the run's calls still undecided afterwards.
   */
  decideApprovals(
    runId: string,
    calls: ReadonlyArray<{ toolCallId: string; events?: readonly NewEvent[] }>,
    decision: StoredDecision,
    resume?: { revision: number; events: readonly NewEvent[] },
  ): Promise<DecideResult>;

  appendEvents(events: readonly NewEvent[]): Promise<StoredEvent[]>;
  /** Events after `afterId` (exclusive), oldest first; `runId` for one run, `owner` for one owner's runs. */
  readEvents(query: { afterId: number; runId?: string; owner?: string; limit: number }): Promise<StoredEvent[]>;
  /** The newest event id (0 when none). */
  lastEventId(): Promise<number>;

  /**
   * Records that a call is about to execute. False when it was recorded
   * before (by this process or another): the caller must not run it. On a
   * store servers share, refused (`STORE_FENCED`) unless this server drives
   * the run and its lease is alive: a server that lost its run runs nothing.
   */
  beginCall(call: { runId: string; toolCallId: string; tool: string; input: string }): Promise<boolean>;
  /**
   * Ends an `executing` call and stores `events` (its `tool_result`) in the
   * same transaction, so a call that ended always has its events, whoever
   * picks the run up after a crash. A call that already ended keeps its first
   * ending, and then no events are stored. Returns the events stored.
   */
  finishCall(runId: string, toolCallId: string, status: 'completed' | 'failed' | 'interrupted', output: string | null, events?: readonly NewEvent[]): Promise<StoredEvent[]>;
  getCall(runId: string, toolCallId: string): Promise<StoredCall | undefined>;

  /**
   * Records a model call's answer (`StoredStep`), durably, before any call in
   * it runs. False, writing nothing, when that `seq` of the run was recorded
   * before: the caller must continue from the recorded one. On a store
   * servers share, refused (`STORE_FENCED`) unless this server drives the run
   * and its lease is alive, in the same statement.
   */
  recordStep(step: { runId: string; seq: number; body: string }): Promise<boolean>;
  /** A run's recorded model calls from `fromSeq` (inclusive), in order. */
  listSteps(runId: string, fromSeq: number): Promise<StoredStep[]>;
  listCalls(runId: string): Promise<StoredCall[]>;

  /** Session memory ("approve for session"), keyed as `memoryKey` makes keys; the session and chat let one chat be cleared. */
  remember(entry: { key: string; sessionId: string; chatId: string | null; decision: RememberedRecord }): Promise<void>;
  recall(key: string): Promise<RememberedRecord | undefined>;
  /** Every remembered decision, for loading a process's memory at start. */
  allRemembered(): Promise<Array<{ key: string; decision: RememberedRecord }>>;
  /** Forgets one chat's remembered decisions (seed 003's `clear(chatId)`); returns how many. */
  forgetChat(sessionId: string, chatId: string | null): Promise<number>;
  /** Forgets one remembered decision; false when none has that key. */
  forgetRemembered(key: string): Promise<boolean>;

  /** False when a token of that name exists (revoked or not). */
  createToken(token: Omit<StoredToken, 'createdAt' | 'revokedAt'>): Promise<boolean>;
  /** The live (not revoked) token with this hash. */
  findToken(hash: string): Promise<StoredToken | undefined>;
  listTokens(): Promise<StoredToken[]>;
  /** False when no live token has that name. */
  revokeToken(name: string): Promise<boolean>;

  close(): Promise<void>;
}
