/**
 * Tells the policy's channels of every pending approval (issue 35), from
 * the store's durable outbox. What waits is read from the store (the
 * approvals themselves), so a notification is enqueued — once, by its
 * idempotency key — whether the server paused the run a moment ago or
 * before a restart; then it is claimed under a lease, sent, and finished as
 * delivered, retried with backoff, or given up on (dead). A server killed
 * mid-send leaves the delivery leased: it is sent again, with the same
 * `toolgate-delivery` id, once the lease ends.
 */
import type { StoredApproval, StoredDelivery } from '../../store/store.ts';
import { errorText } from '../runs/drive-run.ts';
import type { ServerRuntime } from '../runs/server-runtime.ts';
import { MAX_RETRY_WAIT_MS, type NotificationChannel } from './notification-channel.ts';

/** Deliveries one cycle claims and sends at once. */
const CLAIM_BATCH = 16;
/** Pending approvals read per page when enqueuing. */
const PAGE = 200;
/** How often the outbox is looked at for retries that came due, besides every change in the store. */
const DEFAULT_POLL_MS = 1_000;

export interface Notifier {
  /** Something changed (a run paused): enqueue and send soon. */
  poke(): void;
  /** One enqueue-and-send cycle, awaited (tests, and the start). */
  cycle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * @example
 * const notifier = startNotifier({ runtime, channels, notify: ['ops'], publicUrl: 'https://toolgate.example.com' });
 * listeners.add(() => notifier.poke());
 */
export function startNotifier(options: { runtime: ServerRuntime; channels: ReadonlyMap<string, NotificationChannel>; notify: readonly string[]; publicUrl: string; pollMs?: number; clock?: () => number }): Notifier {
  const { runtime, channels } = options;
  const clock = options.clock ?? Date.now;
  const stopping = new AbortController();
  /** Approvals already enqueued by this server: enqueuing is idempotent, this only spares the store the repeats. */
  const enqueued = new Set<string>();
  let current: Promise<void> | undefined;
  let again = false;

  const cycle = (): Promise<void> => {
    if (current !== undefined) {
      again = true;
      return current;
    }
    current = (async () => {
      do {
        again = false;
        try {
          await enqueuePending();
          await deliverDue();
        } catch (error) {
          if (!stopping.signal.aborted) runtime.logger.error('notifications: a cycle failed', { error: errorText(error) });
        }
      } while (again && !stopping.signal.aborted);
    })().finally(() => {
      current = undefined;
    });
    return current;
  };

  async function enqueuePending(): Promise<void> {
    if (options.notify.length === 0) return;
    const waiting = new Set<string>();
    let after: string | undefined;
    do {
      const page = await runtime.store.listPendingApprovals({ limit: PAGE, ...(after === undefined ? {} : { after }) });
      for (const approval of page.approvals) for (const channel of options.notify) waiting.add(deliveryId(channel, approval));
      const fresh = page.approvals.flatMap((approval) => options.notify.map((channel) => ({ approval, channel }))).filter(({ approval, channel }) => !enqueued.has(deliveryId(channel, approval)));
      if (fresh.length > 0) {
        await runtime.store.outbox.enqueueDeliveries(fresh.map(({ approval, channel }) => ({ id: deliveryId(channel, approval), channel, runId: approval.runId, toolCallId: approval.toolCallId, body: requestedBody({ approval, channel, publicUrl: options.publicUrl }) })));
        for (const { approval, channel } of fresh) enqueued.add(deliveryId(channel, approval));
      }
      after = page.next ?? undefined;
    } while (after !== undefined && !stopping.signal.aborted);
    // Only what still waits is remembered: the set stays as small as the inbox.
    if (!stopping.signal.aborted) for (const key of enqueued) if (!waiting.has(key)) enqueued.delete(key);
  }

  async function deliverDue(): Promise<void> {
    for (;;) {
      if (stopping.signal.aborted) return;
      const now = clock();
      // The lease outlasts the longest try: a delivery is never sent twice at once, and one a killed server left is sent again after it.
      const longest = Math.max(1_000, ...[...channels.values()].map((channel) => channel.timeoutMs));
      const claimed = await runtime.store.outbox.claimDeliveries({ now: new Date(now).toISOString(), leaseUntil: new Date(now + 2 * longest + 1_000).toISOString(), limit: CLAIM_BATCH });
      if (claimed.length === 0) return;
      await Promise.all(claimed.map((delivery) => deliver(delivery)));
    }
  }

  async function deliver(delivery: StoredDelivery): Promise<void> {
    const channel = channels.get(delivery.channel);
    if (channel === undefined) {
      await runtime.store.outbox.finishDelivery(delivery.id, { status: 'dead', error: `the channel ${JSON.stringify(delivery.channel)} is no longer in the policy (server.channels)` });
      return;
    }
    const outcome = await channel.send(delivery, stopping.signal);
    if (outcome.ok) {
      await runtime.store.outbox.finishDelivery(delivery.id, { status: 'delivered', at: new Date(clock()).toISOString() });
      return;
    }
    // A try cut short by the server stopping is no try: the lease ends, and the next server sends it.
    if (stopping.signal.aborted) return;
    if (delivery.attempts >= channel.maxAttempts) {
      runtime.logger.error('notifications: gave up on a delivery', { delivery: delivery.id, attempts: delivery.attempts, error: outcome.error });
      await runtime.store.outbox.finishDelivery(delivery.id, { status: 'dead', error: `gave up after ${delivery.attempts} ${delivery.attempts === 1 ? 'try' : 'tries'}: ${outcome.error}` });
      return;
    }
    const wait = Math.min(MAX_RETRY_WAIT_MS, channel.retryAfterMs * 2 ** (delivery.attempts - 1));
    runtime.logger.warn('notifications: a delivery failed; it is retried', { delivery: delivery.id, attempt: delivery.attempts, retry_in_ms: wait, error: outcome.error });
    await runtime.store.outbox.finishDelivery(delivery.id, { status: 'pending', retryAt: new Date(clock() + wait).toISOString(), error: outcome.error });
  }

  const timer = setInterval(() => void cycle(), options.pollMs ?? DEFAULT_POLL_MS);
  timer.unref();
  return {
    poke: () => void cycle(),
    cycle,
    async stop() {
      clearInterval(timer);
      stopping.abort(new Error('the server is stopping'));
      await current;
    },
  };
}

/** One delivery per channel and call: its idempotency key, and the `toolgate-delivery` header. */
function deliveryId(channel: string, approval: Pick<StoredApproval, 'runId' | 'toolCallId'>): string {
  return `${channel}/${approval.runId}/${approval.toolCallId}/requested`;
}

/**
 * What a channel is told of a pending call: the ids, the times, and the call
 * as the inbox presents it (the presentation layer's inert text, secrets
 * masked), with where to see and decide it. No token: deciding takes an
 * approver's own.
 */
function requestedBody(options: { approval: StoredApproval; channel: string; publicUrl: string }): string {
  const { approval, publicUrl } = options;
  const request = approval.request;
  const base = publicUrl.replace(/\/+$/, '');
  return JSON.stringify({
    type: 'approval.requested',
    delivery_id: deliveryId(options.channel, approval),
    channel: options.channel,
    run_id: approval.runId,
    tool_call_id: approval.toolCallId,
    tool_name: approval.tool,
    group_id: approval.groupId,
    asked_at: request.asked_at ?? approval.createdAt,
    times_out_at: request.times_out_at ?? null,
    presentation: request.presentation ?? null,
    always_scopes: request.always_scopes ?? [],
    links: {
      inbox: `${base}/#run=${encodeURIComponent(approval.runId)}`,
      decide: `${base}/runs/${encodeURIComponent(approval.runId)}/approve`,
    },
  });
}
