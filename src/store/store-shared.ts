/**
 * The records a store keeps beside runs, for every server sharing it: the
 * "approve always" decisions and the audit log, and the outbox of
 * notifications waiting to be delivered.
 */
/**
 * An "approve always" decision as servers sharing a store keep it: the
 * record the approvals file holds beside a lone server's policy, with the
 * same fields.
 */
export interface StoredAlwaysApproval {
  /** The first 12 hex digits of the fingerprint: what people name in a revoke. */
  id: string;
  tool: string;
  identity: string | null;
  /** sha256 of the tool identity and the canonical payload fingerprint: what a call is matched by. */
  fingerprint: string;
  description: string;
  payload_preview: string;
  created_at: string;
  /** When a server saw the tool under another identity: the approval no longer applies. */
  voided_at?: string;
  voided_for?: string;
  /** The server's MAC over what the approval matches (`record-mac.ts`); without a valid one it matches nothing. */
  mac?: string;
}

/**
 * What servers sharing one store keep in it instead of in files beside each
 * one's policy: "approve always" and the audit trail. Every change to the
 * approvals is told to every watcher (`StoreChange` `always`).
 */
export interface SharedRecords {
  /** Every "approve always", oldest first. */
  listAlways(): Promise<StoredAlwaysApproval[]>;
  /** Adds the approval unless one with its fingerprint is there; true when added. */
  addAlways(record: StoredAlwaysApproval): Promise<boolean>;
  /** Removes the approvals whose id starts with one of `ids` (each at least 6 characters), or every one (`'all'`); returns those removed. */
  revokeAlways(ids: readonly string[] | 'all'): Promise<StoredAlwaysApproval[]>;
  /** Marks the approvals of `tool` under any other identity as voided at `at`; returns those marked now. */
  voidAlways(entry: { tool: string; identity: string; at: string }): Promise<StoredAlwaysApproval[]>;
  /** Appends audit records (each one JSON object's text, as a line of the audit log) in one commit, in order, stamped with this server's instance. */
  appendAudit(lines: readonly string[]): Promise<void>;
  /** Audit records after `afterSeq` (exclusive), oldest first. */
  readAudit(query: { afterSeq: number; limit: number }): Promise<Array<{ seq: number; instance: string | null; line: string }>>;
}

/** Where a notification stands: waiting to be sent (or retried), sent, or given up on (the dead letters). */
export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

/** A notification to send, once: `id` is its idempotency key (a second enqueue of it changes nothing). */
export interface NewDelivery {
  id: string;
  /** The channel's name in the policy (`server.channels`). */
  channel: string;
  runId: string;
  toolCallId: string;
  /** The JSON text it carries. */
  body: string;
  /**
   * The server's MAC over the delivery (`record-mac.ts`): a row written into
   * the store by anyone without the secret is never sent (it could have the
   * server sign a message of its choosing).
   */
  mac: string;
}

/** A notification as the outbox keeps it. */
export interface StoredDelivery extends NewDelivery {
  status: DeliveryStatus;
  /** Tries made so far. */
  attempts: number;
  /** When it may be tried (again). */
  nextAttemptAt: string;
  /** What the last failed try said. */
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  /** What the receiver answered a delivered one with, for later updates (a Slack message's channel and ts). */
  receipt: string | null;
}

/**
 * The durable outbox of notifications (issue 35): each is enqueued once by
 * its idempotency key, claimed by one sender at a time for a lease (a
 * sender that stops mid-send leaves it to be claimed again when the lease
 * ends: delivery is at least once, and the key lets a receiver drop a
 * repeat), and finished as delivered, to be retried at a time, or dead.
 */
export interface StoreOutbox {
  /** Adds the deliveries not there yet (by id); how many were added. */
  enqueueDeliveries(deliveries: readonly NewDelivery[]): Promise<number>;
  /** Pending deliveries due by `now` and not leased, oldest first, each leased until `leaseUntil`. */
  claimDeliveries(query: { now: string; leaseUntil: string; limit: number }): Promise<StoredDelivery[]>;
  /** Ends a try: delivered, to be retried at `retryAt`, or dead (given up); `error` says why it failed. */
  finishDelivery(id: string, outcome: { status: 'delivered'; at: string; receipt?: string } | { status: 'pending'; retryAt: string; error: string } | { status: 'dead'; error: string }): Promise<void>;
  /** Deliveries by status (for `/metrics` and the inbox). */
  countDeliveries(): Promise<Record<DeliveryStatus, number>>;
  /** Deliveries newest first, `status` for one status only. */
  listDeliveries(query: { status?: DeliveryStatus; limit: number }): Promise<StoredDelivery[]>;
  /** One delivery by its id. */
  findDelivery(id: string): Promise<StoredDelivery | undefined>;
}
