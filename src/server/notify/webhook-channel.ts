/**
 * The webhook channel (issue 35): each delivery is POSTed as JSON, signed
 * so a receiver can tell it came from this server and was not replayed:
 *
 *   toolgate-delivery:  the delivery's id (its idempotency key: a retry sends the same one)
 *   toolgate-timestamp: seconds since the epoch, when this try was sent
 *   toolgate-signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>
 *
 * A receiver recomputes the HMAC over the timestamp, a dot and the raw body
 * it got, compares in constant time, refuses a timestamp more than five
 * minutes from its clock, and drops a delivery id it has seen
 * (`verifyWebhookSignature` does the first three).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { StoredApproval, StoredDelivery } from '../../store/store.ts';
import type { NotificationChannel, SendOutcome } from './notification-channel.ts';

/** How far a receiver should let a signature's timestamp be from its own clock. */
export const SIGNATURE_TOLERANCE_S = 300;

/** The longest piece of a receiver's answer kept as the error of a failed try. */
const MAX_ERROR_TEXT = 200;

/**
 * @example
 * const channel = createWebhookChannel({ name: 'ops', url: 'https://hooks.example.com/toolgate', secret, timeoutMs: 10_000, retryAfterMs: 5_000, maxAttempts: 8 });
 */
export function createWebhookChannel(options: { name: string; url: string; secret: string; timeoutMs: number; retryAfterMs: number; maxAttempts: number; clock?: () => number }): NotificationChannel {
  const clock = options.clock ?? Date.now;
  // What logs and the outbox's errors name: the receiver's origin, never its path (a chat's webhook URL is itself a secret).
  const shown = new URL(options.url).origin;
  return {
    name: options.name,
    kind: 'webhook',
    timeoutMs: options.timeoutMs,
    retryAfterMs: options.retryAfterMs,
    maxAttempts: options.maxAttempts,
    deliveriesFor: ({ approval, deliveryId, publicUrl }) => [{ key: '', body: requestedBody({ approval, deliveryId: deliveryId(''), channel: options.name, publicUrl }) }],
    async send(delivery: StoredDelivery, signal: AbortSignal): Promise<SendOutcome> {
      const timestamp = String(Math.floor(clock() / 1000));
      let response: Response;
      try {
        response = await fetch(options.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'toolgate-webhook/1',
            'toolgate-delivery': delivery.id,
            'toolgate-timestamp': timestamp,
            'toolgate-signature': webhookSignature({ secret: options.secret, timestamp, body: delivery.body }),
          },
          body: delivery.body,
          // A redirect is not followed: the body and its signature go only where the policy says.
          redirect: 'manual',
          signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]),
        });
      } catch (error) {
        const reason = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError') ? `no answer within ${options.timeoutMs} ms` : errorText(error).replaceAll(options.url, shown);
        return { ok: false, error: `${shown}: ${reason}` };
      }
      const text = await firstBytes(response, MAX_ERROR_TEXT * 4);
      if (response.status >= 200 && response.status < 300) return { ok: true };
      const said = text.replace(/\s+/g, ' ').trim().slice(0, MAX_ERROR_TEXT);
      return { ok: false, error: `${shown} answered HTTP ${response.status}${said === '' ? '' : `: ${said}`}` };
    },
  };
}

/**
 * The `toolgate-signature` header for a body sent at `timestamp`.
 *
 * @example
 * webhookSignature({ secret: 's', timestamp: '1700000000', body: '{}' }) // 'v1=…64 hex digits'
 */
export function webhookSignature(options: { secret: string; timestamp: string; body: string }): string {
  return `v1=${createHmac('sha256', options.secret).update(`${options.timestamp}.${options.body}`).digest('hex')}`;
}

/**
 * What a receiver checks: the signature over the timestamp and the raw
 * body, in constant time, and a timestamp within `toleranceS` of `now`
 * (seconds). Returns why it fails, or undefined when it holds.
 *
 * @example
 * const problem = verifyWebhookSignature({ secret, body: rawBody, timestamp: request.headers['toolgate-timestamp'], signature: request.headers['toolgate-signature'] });
 * if (problem !== undefined) return reply(401, problem);
 */
export function verifyWebhookSignature(options: { secret: string; body: string; timestamp: unknown; signature: unknown; now?: number; toleranceS?: number }): string | undefined {
  const { timestamp, signature } = options;
  if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp)) return 'no toolgate-timestamp header (seconds since the epoch)';
  if (typeof signature !== 'string' || !/^v1=[0-9a-f]{64}$/.test(signature)) return 'no toolgate-signature header of the form v1=<64 hex digits>';
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceS ?? SIGNATURE_TOLERANCE_S)) return `the timestamp ${timestamp} is more than ${options.toleranceS ?? SIGNATURE_TOLERANCE_S} s from now (${now}): a replay, or a clock that is off`;
  const expected = Buffer.from(webhookSignature({ secret: options.secret, timestamp, body: options.body }));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given) ? undefined : 'the signature does not match the body and timestamp (another secret, or a body changed on the way)';
}

/** At most `limit` bytes of a response's body, as text; the rest is not read (a receiver cannot make the server read without end). */
async function firstBytes(response: Response, limit: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // What was read is enough to say why.
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}

/**
 * What a webhook is told of a pending call: the ids, the times, and the call
 * as the inbox presents it (the presentation layer's inert text, secrets
 * masked), with where to see and decide it. No token: deciding takes an
 * approver's own (`POST links.decide`).
 */
function requestedBody(options: { approval: StoredApproval; deliveryId: string; channel: string; publicUrl: string }): string {
  const { approval } = options;
  const request = approval.request;
  const base = options.publicUrl.replace(/\/+$/, '');
  return JSON.stringify({
    type: 'approval.requested',
    delivery_id: options.deliveryId,
    channel: options.channel,
    run_id: approval.runId,
    tool_call_id: approval.toolCallId,
    tool_name: approval.tool,
    group_id: approval.groupId,
    asked_at: request.asked_at ?? approval.createdAt,
    times_out_at: request.times_out_at ?? null,
    presentation: request.presentation ?? null,
    links: {
      inbox: `${base}/#run=${encodeURIComponent(approval.runId)}`,
      decide: `${base}/runs/${encodeURIComponent(approval.runId)}/approve`,
    },
  });
}
