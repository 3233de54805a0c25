/**
 * The Slack channel (issue 35): a message through the Slack Web API (the
 * official `@slack/web-api` client) with the call in Block Kit, an optional
 * reason and Approve / Deny buttons; Slack's interactivity requests, checked
 * against its signing secret and timestamp (and never taken twice), decide
 * as the toolgate approver the Slack user is mapped to; and once the call is
 * decided anywhere, the message is edited to say who decided what.
 *
 * Everything shown is the inbox's presentation (inert text, secrets masked),
 * as `plain_text` (never mrkdwn, so a tool argument cannot format, mention
 * or link), its addresses made unclickable.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebClient } from '@slack/web-api';
import type { ApprovalView, ViewBlock } from '../../presentation/approval-view-types.ts';
import { blockLines } from '../../presentation/approval-view.ts';
import type { StoredApproval, StoredDelivery } from '../../store/store.ts';
import { argumentsDigest } from './decision-links.ts';
import { cut, defanged, oneLine } from './message-text.ts';
import type { DecidedCall, NotificationChannel, PlannedDelivery, SendOutcome } from './notification-channel.ts';

/** How far a request's timestamp may be from the server's clock (Slack's own advice: five minutes). */
const TOLERANCE_S = 300;
const MAX_SECTION = 2_900;
const MAX_LINES = 40;
export const APPROVE_ACTION = 'toolgate_approve';
export const DENY_ACTION = 'toolgate_deny';
const REASON_BLOCK = 'toolgate_reason';

/** One button press, as read from a verified interactivity request. */
export interface SlackAction {
  approved: boolean;
  slackUser: string;
  /** The toolgate approver the user is mapped to; undefined for a user with no mapping. */
  approver: string | undefined;
  runId: string;
  toolCallId: string;
  argsDigest: string;
  reason: string | undefined;
  /** Where the message is: for a reply in its thread. */
  channelId: string | undefined;
  messageTs: string | undefined;
}

export interface SlackChannel extends NotificationChannel {
  kind: 'slack';
  /** Checks a request's signature and time (and that it was not seen before) and reads its button press; throws `SlackRequestError` when it is not one. */
  readInteraction(request: { rawBody: string; timestamp: string | undefined; signature: string | undefined; now: number }): SlackAction;
  /** Replies in the message's thread (a user who may not decide, a call already decided). */
  replyInThread(action: SlackAction, text: string): Promise<void>;
}

export class SlackRequestError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'SlackRequestError';
    this.status = status;
  }
}

/**
 * @example
 * const slack = createSlackChannel({ name: 'slack', token, signingSecret, channel: 'C0123', users: { U012: 'carol' }, timeoutMs: 10_000, retryAfterMs: 5_000, maxAttempts: 8 });
 */
export function createSlackChannel(options: {
  name: string;
  token: string;
  signingSecret: string;
  /** The Slack channel id messages go to. */
  channel: string;
  /** Slack user id → toolgate approver (a token's name). */
  users: Readonly<Record<string, string>>;
  /** The Web API's base URL (tests: a stand-in on loopback). */
  apiUrl?: string;
  timeoutMs: number;
  retryAfterMs: number;
  maxAttempts: number;
}): SlackChannel {
  // No retries inside the client: the outbox retries, and a delivery is one try at a time.
  const client = new WebClient(options.token, {
    ...(options.apiUrl === undefined ? {} : { slackApiUrl: options.apiUrl }),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.timeoutMs,
  });
  /** Signatures seen within the tolerance: a request sent again is refused, not taken twice. */
  const seen = new Map<string, number>();

  return {
    name: options.name,
    kind: 'slack',
    timeoutMs: options.timeoutMs,
    retryAfterMs: options.retryAfterMs,
    maxAttempts: options.maxAttempts,

    deliveriesFor({ approval, publicUrl }): PlannedDelivery[] {
      return [{ key: '', body: JSON.stringify({ kind: 'requested', ...requestedMessage(approval, publicUrl) }) }];
    },

    deliveriesOnDecision({ decided, requestedId }): PlannedDelivery[] {
      return [{ key: '', body: JSON.stringify({ kind: 'decided', requested: requestedId(''), text: decidedText(decided) }) }];
    },

    async send(delivery: StoredDelivery, _signal: AbortSignal, context): Promise<SendOutcome> {
      let body: { kind: 'requested'; text: string; blocks: unknown[] } | { kind: 'decided'; requested: string; text: string };
      try {
        body = JSON.parse(delivery.body) as typeof body;
      } catch {
        return { ok: false, error: 'the outbox holds a Slack message that is not JSON' };
      }
      try {
        if (body.kind === 'requested') {
          const posted = await client.chat.postMessage({ channel: options.channel, text: slackEscaped(body.text), blocks: body.blocks as never, unfurl_links: false, unfurl_media: false });
          return { ok: true, receipt: JSON.stringify({ channel: posted.channel, ts: posted.ts }) };
        }
        const receipt = await context.receiptOf(body.requested);
        // The message is not out yet: the update waits for it.
        if (receipt === null) return { ok: false, error: `the message this updates (${body.requested}) has not been sent yet` };
        const { channel, ts } = JSON.parse(receipt) as { channel: string; ts: string };
        await client.chat.update({ channel, ts, text: slackEscaped(body.text), blocks: [{ type: 'section', text: { type: 'plain_text', text: cut(body.text, MAX_SECTION) } }] as never });
        return { ok: true };
      } catch (error) {
        return { ok: false, error: `Slack: ${error instanceof Error ? error.message : String(error)}` };
      }
    },

    readInteraction(request): SlackAction {
      const { rawBody, timestamp, signature } = request;
      if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) throw new SlackRequestError(401, 'no X-Slack-Request-Timestamp header');
      if (signature === undefined || !/^v0=[0-9a-f]{64}$/.test(signature)) throw new SlackRequestError(401, 'no X-Slack-Signature header of the form v0=<64 hex digits>');
      const now = Math.floor(request.now / 1000);
      if (Math.abs(now - Number(timestamp)) > TOLERANCE_S) throw new SlackRequestError(401, `the request's timestamp ${timestamp} is more than ${TOLERANCE_S} s from now: refused as a replay`);
      const expected = Buffer.from(`v0=${createHmac('sha256', options.signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`);
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new SlackRequestError(401, 'the request is not signed with this channel\'s Slack signing secret');
      for (const [key, until] of seen) if (until < now) seen.delete(key);
      if (seen.has(signature)) throw new SlackRequestError(401, 'this request was received before: refused as a replay');
      seen.set(signature, now + TOLERANCE_S);
      let payload: any;
      try {
        const form = new URLSearchParams(rawBody);
        payload = JSON.parse(form.get('payload') ?? '');
      } catch {
        throw new SlackRequestError(400, 'the request carries no JSON payload');
      }
      // A press comes from this channel's message, or it is not this channel's to take.
      if (payload?.channel?.id !== options.channel) throw new SlackRequestError(400, 'the press does not come from this channel\'s Slack channel');
      const action = Array.isArray(payload?.actions) ? payload.actions[0] : undefined;
      if (payload?.type !== 'block_actions' || (action?.action_id !== APPROVE_ACTION && action?.action_id !== DENY_ACTION)) throw new SlackRequestError(400, 'not a press of a toolgate button');
      let call: unknown;
      try {
        call = JSON.parse(String(action.value));
      } catch {
        call = undefined;
      }
      if (!Array.isArray(call) || call.length !== 3 || !call.every((part) => typeof part === 'string')) throw new SlackRequestError(400, 'the button names no call');
      const [runId, toolCallId, argsDigest] = call as [string, string, string];
      const slackUser = typeof payload.user?.id === 'string' ? payload.user.id : '';
      const typed = payload.state?.values?.[REASON_BLOCK]?.reason?.value;
      const reason = typeof typed === 'string' && typed.trim() !== '' ? typed.trim().slice(0, 2_000) : undefined;
      return {
        approved: action.action_id === APPROVE_ACTION,
        slackUser,
        approver: Object.hasOwn(options.users, slackUser) ? options.users[slackUser] : undefined,
        runId,
        toolCallId,
        argsDigest,
        reason,
        channelId: typeof payload.channel?.id === 'string' ? payload.channel.id : undefined,
        messageTs: typeof payload.message?.ts === 'string' ? payload.message.ts : undefined,
      };
    },

    async replyInThread(action, text) {
      if (action.channelId === undefined) return;
      // The one piece of markup: a mention of who pressed (an id Slack signed); the rest is escaped.
      const mention = /^[UW][A-Z0-9]{6,20}$/.test(action.slackUser) ? `<@${action.slackUser}> ` : '';
      await client.chat.postMessage({ channel: action.channelId, ...(action.messageTs === undefined ? {} : { thread_ts: action.messageTs }), text: `${mention}${slackEscaped(text)}`, unfurl_links: false, unfurl_media: false });
    },
  };
}

/** The message for a pending call: Block Kit, every text plain. */
function requestedMessage(approval: StoredApproval, publicUrl: string): { text: string; blocks: unknown[] } {
  const view = (approval.request.presentation ?? null) as ApprovalView | null;
  const risk = view?.risk === 'dangerous' ? 'Dangerous' : view?.risk === 'routine' ? 'Routine' : 'Notable';
  const headline = defanged(oneLine(view?.headline ?? view?.description ?? `Call ${approval.tool}`));
  const shownArguments = typeof approval.request.tool_arguments === 'string' ? approval.request.tool_arguments : JSON.stringify(approval.request.tool_arguments ?? null);
  const shown = (view?.blocks ?? []).flatMap((block: ViewBlock) => blockLines(block).map((line) => defanged(line.text)));
  const lines = [...(view?.consequences ?? []).map((line) => `! ${oneLine(line)}`), ...(view !== null && view.reasons.length > 0 ? [`Why it asks: ${oneLine(view.reasons.join('; '))}`] : []), ...shown.slice(0, MAX_LINES), ...(shown.length > MAX_LINES ? [`… ${shown.length - MAX_LINES} more lines in the inbox`] : [])];
  const value = JSON.stringify([approval.runId, approval.toolCallId, argumentsDigest(shownArguments)]);
  const inbox = `${publicUrl.replace(/\/+$/, '')}/#run=${encodeURIComponent(approval.runId)}`;
  const text = `${risk}: approve? ${headline}`;
  return {
    text: cut(text, 3_000),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: cut(`Approve? ${headline}`, 150) } },
      { type: 'context', elements: [{ type: 'plain_text', text: cut(`${risk} · ${approval.tool} · ${approval.runId} · ${approval.toolCallId}`, 150) }] },
      ...(lines.length === 0 ? [] : [{ type: 'section', text: { type: 'plain_text', text: cut(lines.join('\n'), MAX_SECTION) } }]),
      { type: 'input', block_id: REASON_BLOCK, optional: true, label: { type: 'plain_text', text: 'Reason, if you deny (the model sees it)' }, element: { type: 'plain_text_input', action_id: 'reason', max_length: 2_000 } },
      {
        type: 'actions',
        block_id: 'toolgate_decide',
        elements: [
          { type: 'button', action_id: APPROVE_ACTION, style: 'primary', text: { type: 'plain_text', text: 'Approve once' }, value },
          { type: 'button', action_id: DENY_ACTION, style: 'danger', text: { type: 'plain_text', text: 'Deny' }, value },
        ],
      },
      { type: 'context', elements: [{ type: 'plain_text', text: cut(`You decide as the toolgate approver your Slack user is mapped to. The inbox: ${inbox}`, 1_000) }] },
    ],
  };
}

function decidedText(decided: DecidedCall): string {
  if (decided.via === 'cancelled') return `Cancelled by ${decided.decidedBy}: the run was stopped, so ${decided.toolCallId} of ${decided.runId} did not run.`;
  if (decided.decidedBy === 'timeout') return `Timed out: nobody decided ${decided.toolCallId} of ${decided.runId} in time; it did not run.`;
  const how = decided.via === 'slack' ? ' in Slack' : decided.via === 'link' ? ' with a link' : decided.via === 'inbox' ? ' in the inbox' : decided.via === 'api' ? ' over the API' : '';
  return `${decided.approved ? 'Approved' : 'Denied'} by ${decided.decidedBy}${how}${decided.reason === null || decided.reason === '' ? '' : `: ${oneLine(decided.reason)}`} (${decided.toolCallId} of ${decided.runId}).`;
}

/**
 * Text for a field Slack reads as markup (`text` of a message, a reply):
 * `&`, `<` and `>` escaped as Slack asks, so nothing the agent or a reason
 * wrote can mention (`<!channel>`), link (`<https://…|here>`) or format.
 */
export function slackEscaped(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}


