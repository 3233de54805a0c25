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
import { macMatches, recordMac } from '../../store/record-mac.ts';
import { errorText } from '../runs/drive-run.ts';
import type { ServerRuntime } from '../runs/server-runtime.ts';
import { MAX_RETRY_WAIT_MS, type DecidedCall, type NotificationChannel } from './notification-channel.ts';

/** Deliveries one cycle claims and sends at once. */
const CLAIM_BATCH = 16;
/** Pending approvals read per page when enqueuing. */
const PAGE = 200;
/** How long a poke waits for others to join it in one cycle. */
const POKE_DELAY_MS = 50;
/** How often the outbox is looked at for retries that came due, besides every change in the store. */
const DEFAULT_POLL_MS = 1_000;

export interface Notifier {
  /** Something changed (a run paused): enqueue and send soon. */
  poke(): void;
  /**
   * Calls were decided (anywhere), or their run was cancelled: the channels
   * that update what they sent are told. `approvals`: the calls' approvals
   * when the store no longer has them (a cancel drops them). Never throws.
   */
  decided(calls: readonly DecidedCall[], approvals?: readonly StoredApproval[]): Promise<void>;
  /** One enqueue-and-send cycle, awaited (tests, and the start). */
  cycle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * @example
 * const notifier = startNotifier({ runtime, channels, notify: ['ops'], publicUrl: 'https://toolgate.example.com' });
 * listeners.add(() => notifier.poke());
 */
export function startNotifier(options: {
  runtime: ServerRuntime;
  channels: ReadonlyMap<string, NotificationChannel>;
  /** Who hears of a call to `tool`, in stages: the first at once, each later one `afterMs` after the call was asked (escalation). */
  route: (tool: string, askedBy?: string) => readonly NotifyStage[];
  publicUrl: string;
  pollMs?: number;
  clock?: () => number;
}): Notifier {
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
    const waiting = new Set<string>();
    const now = clock();
    let after: string | undefined;
    do {
      const page = await runtime.store.listPendingApprovals({ limit: PAGE, ...(after === undefined ? {} : { after }) });
      const fresh: Array<{ approval: StoredApproval; channel: NotificationChannel; kind: DeliveryKind }> = [];
      for (const approval of page.approvals) {
        // Each stage of the call's route whose time has come: the first at once, an escalation `after` since it was asked.
        for (const { stage, kind, name } of reached(approval, now)) {
          const channel = channels.get(name);
          if (channel === undefined) continue;
          const key = approvalKey(name, approval, stage);
          waiting.add(key);
          if (!enqueued.has(key)) fresh.push({ approval, channel, kind });
        }
      }
      if (fresh.length > 0) {
        const deliveries = fresh.flatMap(({ approval, channel, kind }) =>
          channel.deliveriesFor({ approval, deliveryId: (key) => deliveryId(channel.name, approval, kind, key), publicUrl: options.publicUrl, now }).map((planned) => {
            const unsigned = { id: deliveryId(channel.name, approval, kind, planned.key), channel: channel.name, runId: approval.runId, toolCallId: approval.toolCallId, body: planned.body };
            return { ...unsigned, mac: deliveryMac(runtime.recordKey, unsigned) };
          }),
        );
        await runtime.store.outbox.enqueueDeliveries(deliveries);
        for (const { approval, channel, kind } of fresh) enqueued.add(approvalKey(channel.name, approval, stageOf(kind)));
      }
      after = page.next ?? undefined;
    } while (after !== undefined && !stopping.signal.aborted);
    // Only what still waits is remembered: the set stays as small as the inbox.
    if (!stopping.signal.aborted) for (const key of enqueued) if (!waiting.has(key)) enqueued.delete(key);
  }

  /** The stages of a call's route reached by `now`, each with its channels. */
  function reached(approval: Pick<StoredApproval, 'tool' | 'createdAt' | 'request'>, now: number): Array<{ stage: number; kind: DeliveryKind; name: string }> {
    const askedAt = Date.parse(typeof approval.request.asked_at === 'string' ? approval.request.asked_at : approval.createdAt);
    // The rule that asked, as the card names it (`shell.rules[2] (match: git push) — toolgate.yaml:9`): a rule may route its own calls.
    const view = approval.request.presentation as { asked_by?: unknown } | undefined;
    const askedBy = typeof view?.asked_by === 'string' ? view.asked_by : undefined;
    return options.route(approval.tool, askedBy).flatMap((stage, index) => (askedAt + stage.afterMs <= now ? stage.channels.map((name) => ({ stage: index, kind: kindOf(index), name })) : []));
  }

  async function deliverDue(): Promise<void> {
    for (;;) {
      if (stopping.signal.aborted) return;
      const now = clock();
      // The lease outlasts the longest try: a delivery is never sent twice at once, and one a killed server left is sent again after it.
      const longest = Math.max(1_000, ...[...channels.values()].map((channel) => channel.timeoutMs));
      const claimed = await runtime.store.outbox.claimDeliveries({ now: new Date(now).toISOString(), leaseUntil: new Date(now + 2 * longest + 1_000).toISOString(), limit: CLAIM_BATCH });
      if (claimed.length === 0) return;
      await Promise.all(claimed.map((delivery) => deliver(delivery, { runtime, channels, signal: stopping.signal, clock, publicUrl: options.publicUrl })));
    }
  }

  const timer = setInterval(() => void cycle(), options.pollMs ?? DEFAULT_POLL_MS);
  timer.unref();
  // Every event a server stores pokes it (a run streaming its answer stores many): pokes within a moment make one cycle.
  let poked: ReturnType<typeof setTimeout> | undefined;
  const poke = (): void => {
    if (poked !== undefined || stopping.signal.aborted) return;
    poked = setTimeout(() => {
      poked = undefined;
      void cycle();
    }, POKE_DELAY_MS);
  };
  async function decided(calls: readonly DecidedCall[], approvals?: readonly StoredApproval[]): Promise<void> {
    try {
      const deliveries = [];
      for (const call of calls) {
        const approval = (approvals ?? (await runtime.store.listApprovals({ runId: call.runId, includeDecided: true }))).find((candidate) => candidate.runId === call.runId && candidate.toolCallId === call.toolCallId);
        if (approval === undefined) continue;
        // The channels that were told of it (the stages reached before the decision) are told how it ended.
        for (const { kind, name } of reached(approval, clock())) {
          const planned = channels.get(name)?.deliveriesOnDecision?.({ decided: call, requestedId: (key) => deliveryId(name, call, kind, key) }) ?? [];
          for (const item of planned) {
            const unsigned = { id: deliveryId(name, call, `decided-${kind}`, item.key), channel: name, runId: call.runId, toolCallId: call.toolCallId, body: item.body };
            deliveries.push({ ...unsigned, mac: deliveryMac(runtime.recordKey, unsigned) });
          }
        }
      }
      if (deliveries.length === 0) return;
      await runtime.store.outbox.enqueueDeliveries(deliveries);
      poke();
    } catch (error) {
      // The decision stands; only the message that says so elsewhere is missed.
      runtime.logger.error('notifications: could not enqueue the updates of decided calls', { error: errorText(error) });
    }
  }

  return {
    decided,
    poke,
    cycle,
    async stop() {
      clearInterval(timer);
      clearTimeout(poked);
      stopping.abort(new Error('the server is stopping'));
      await current;
    },
  };
}

/** A channel's deliveries for one call: the idempotency keys, and the `toolgate-delivery` header. */
export function deliveryId(channel: string, approval: Pick<StoredApproval, 'runId' | 'toolCallId'>, kind: string, key: string): string {
  return `${channel}/${approval.runId}/${approval.toolCallId}/${kind}${key === '' ? '' : `/${key}`}`;
}

/** One stage of a route: its channels, and how long after the call was asked they are told (0: at once). */
export interface NotifyStage {
  afterMs: number;
  channels: readonly string[];
}

/** `requested` for the first stage, `escalated-N` for the later ones: each its own delivery (and idempotency key). */
type DeliveryKind = string;

function kindOf(stage: number): DeliveryKind {
  return stage === 0 ? 'requested' : `escalated-${stage}`;
}

function stageOf(kind: DeliveryKind): number {
  return kind === 'requested' ? 0 : Number(kind.slice('escalated-'.length));
}

/** The MAC a delivery is kept with: over what it is, where it goes, and what it says. */
function deliveryMac(key: Buffer, delivery: Pick<StoredDelivery, 'id' | 'channel' | 'runId' | 'toolCallId' | 'body'>): string {
  return recordMac(key, 'outbox', [delivery.id, delivery.channel, delivery.runId, delivery.toolCallId, delivery.body]);
}

function approvalKey(channel: string, approval: Pick<StoredApproval, 'runId' | 'toolCallId'>, stage: number): string {
  return JSON.stringify([channel, approval.runId, approval.toolCallId, stage]);
}

/**
 * Sends one claimed delivery, once: a row that does not verify or whose
 * channel is gone is given up on; a failed try is retried later (waits
 * doubling up to the longest) until the channel's tries run out; a try cut
 * short by the server stopping is no try.
 *
 * @example
 * await deliver(delivery, { runtime, channels, signal, clock, publicUrl });
 */
async function deliver(delivery: StoredDelivery, context: { runtime: ServerRuntime; channels: ReadonlyMap<string, NotificationChannel>; signal: AbortSignal; clock: () => number; publicUrl: string }): Promise<void> {
  const { runtime, channels, clock } = context;
  // Written by this server (or one with its secret), or never sent: a row from anyone else could have it sign and send their text.
  if (!macMatches(delivery.mac, deliveryMac(runtime.recordKey, delivery))) {
    runtime.logger.error('notifications: refused an outbox row that does not verify', { delivery: delivery.id });
    await runtime.store.outbox.finishDelivery(delivery.id, { status: 'dead', error: 'the outbox row does not verify (not written by a server holding the secret); it was not sent' });
    return;
  }
  const channel = channels.get(delivery.channel);
  if (channel === undefined) {
    await runtime.store.outbox.finishDelivery(delivery.id, { status: 'dead', error: `the channel ${JSON.stringify(delivery.channel)} is no longer in the policy (server.channels)` });
    return;
  }
  const receiptOf = async (id: string) => (await runtime.store.outbox.findDelivery(id))?.receipt ?? null;
  const outcome = await channel.send(delivery, context.signal, { publicUrl: context.publicUrl, now: clock(), receiptOf });
  if (outcome.ok) {
    await runtime.store.outbox.finishDelivery(delivery.id, { status: 'delivered', at: new Date(clock()).toISOString(), ...(outcome.receipt === undefined ? {} : { receipt: outcome.receipt }) });
    return;
  }
  // A try cut short by the server stopping is no try: the lease ends, and the next server sends it.
  if (context.signal.aborted) return;
  if (delivery.attempts >= channel.maxAttempts) {
    runtime.logger.error('notifications: gave up on a delivery', { delivery: delivery.id, attempts: delivery.attempts, error: outcome.error });
    await runtime.store.outbox.finishDelivery(delivery.id, { status: 'dead', error: `gave up after ${delivery.attempts} ${delivery.attempts === 1 ? 'try' : 'tries'}: ${outcome.error}` });
    return;
  }
  const wait = Math.min(MAX_RETRY_WAIT_MS, channel.retryAfterMs * 2 ** (delivery.attempts - 1));
  runtime.logger.warn('notifications: a delivery failed; it is retried', { delivery: delivery.id, attempt: delivery.attempts, retry_in_ms: wait, error: outcome.error });
  await runtime.store.outbox.finishDelivery(delivery.id, { status: 'pending', retryAt: new Date(clock() + wait).toISOString(), error: outcome.error });
}
