/**
 * The email channel (issue 35): one message per approver the channel names,
 * through SMTP (nodemailer), in plain text and HTML, each with a one-tap
 * link bound to that approver and that call (decision-links.ts). What it
 * says is the inbox's presentation of the call, the presentation layer's
 * inert text with secrets masked, escaped again for HTML.
 */
import nodemailer from 'nodemailer';
import type { ApprovalView, ViewBlock } from '../../presentation/approval-view-types.ts';
import { blockLines } from '../../presentation/approval-view.ts';
import type { StoredApproval, StoredDelivery } from '../../store/store.ts';
import { decisionLinkToken, newDecisionLink, type DecisionLink } from './decision-links.ts';
import { cut, defanged, oneLine } from './message-text.ts';
import type { NotificationChannel, PlannedDelivery, SendOutcome } from './notification-channel.ts';

/** Lines of the call a message shows at most; the link's page shows it all. */
const MAX_LINES = 40;
/** Characters of one line a message shows at most. */
const MAX_LINE = 200;

export interface EmailRecipient {
  /** The toolgate approver (a token's name) the link decides as. */
  approver: string;
  address: string;
}

/**
 * What the outbox keeps of one message: whose it is, the link's fields (no
 * token) and the call's text. The address, the server's address and the
 * link's longest life come from the policy when it is sent, never from here.
 */
interface EmailBody {
  approver: string;
  argsDigest: string;
  nonce: string;
  expiresAt: number;
  subject: string;
  lines: string[];
  risk: string;
}

/**
 * @example
 * const channel = createEmailChannel({ name: 'mail', smtp: { host: 'smtp.example.com', port: 587, secure: false }, from: 'toolgate <toolgate@example.com>', to: [{ approver: 'carol', address: 'carol@example.com' }], key, linkTtlMs: 3_600_000, ... });
 */
export function createEmailChannel(options: {
  name: string;
  smtp: { host: string; port: number; secure: boolean; user?: string; password?: string };
  from: string;
  to: readonly EmailRecipient[];
  /** Signs the links (the server's record key). */
  key: Buffer;
  linkTtlMs: number;
  timeoutMs: number;
  retryAfterMs: number;
  maxAttempts: number;
}): NotificationChannel {
  const transport = nodemailer.createTransport({
    host: options.smtp.host,
    port: options.smtp.port,
    secure: options.smtp.secure,
    ...(options.smtp.user === undefined ? {} : { auth: { user: options.smtp.user, pass: options.smtp.password ?? '' } }),
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  return {
    name: options.name,
    kind: 'email',
    timeoutMs: options.timeoutMs,
    retryAfterMs: options.retryAfterMs,
    maxAttempts: options.maxAttempts,
    deliveriesFor({ approval, now }): PlannedDelivery[] {
      const view = (approval.request.presentation ?? null) as ApprovalView | null;
      const shownArguments = typeof approval.request.tool_arguments === 'string' ? approval.request.tool_arguments : JSON.stringify(approval.request.tool_arguments ?? null);
      const content = messageContent(view, approval);
      return options.to.map((recipient) => {
        const link = newDecisionLink({ approver: recipient.approver, runId: approval.runId, toolCallId: approval.toolCallId, shownArguments, ttlMs: options.linkTtlMs, now });
        const body: EmailBody = { approver: recipient.approver, argsDigest: link.argsDigest, nonce: link.nonce, expiresAt: link.expiresAt, subject: content.subject, lines: content.lines, risk: content.risk };
        return { key: recipient.approver, body: JSON.stringify(body) };
      });
    },
    async send(delivery: StoredDelivery, signal: AbortSignal, context: { publicUrl: string; now: number }): Promise<SendOutcome> {
      let body: EmailBody;
      try {
        body = JSON.parse(delivery.body) as EmailBody;
      } catch {
        return { ok: false, error: 'the outbox holds a message that is not JSON' };
      }
      const recipient = options.to.find((candidate) => candidate.approver === body.approver);
      if (recipient === undefined) return { ok: false, error: `${JSON.stringify(body.approver)} is no longer among the channel's recipients (server.channels.${options.name}.to)` };
      // The link lives at most link_ttl from now, whatever the row says.
      const expiresAt = Math.min(body.expiresAt, Math.floor((context.now + options.linkTtlMs) / 1000));
      const link: DecisionLink = { approver: recipient.approver, runId: delivery.runId, toolCallId: delivery.toolCallId, argsDigest: body.argsDigest, expiresAt, nonce: body.nonce };
      const base = context.publicUrl.replace(/\/+$/, '');
      const url = `${base}/decide/${decisionLinkToken({ key: options.key, link })}`;
      const inbox = `${base}/#run=${encodeURIComponent(delivery.runId)}`;
      const until = new Date(expiresAt * 1000).toISOString().replace('T', ' ').slice(0, 16);
      const note = `Opening the link decides nothing: its page shows the call, with Approve and Deny. It decides as ${recipient.approver}, for this call only, once, until ${until} UTC.`;
      const [headline, ...call] = body.lines;
      // toolgate's own words and link come first; what the agent wrote comes after, framed and marked line by line (no line of it
      // can pass for toolgate's own "Decide:"), its addresses made unclickable.
      const text = [headline ?? '', '', `Decide: ${url}`, note, `The inbox: ${inbox}`, '', AGENT_FRAME, ...call.map((line) => `│ ${defanged(line)}`), AGENT_FRAME_END, '', `(${delivery.id})`].join('\n');
      const html = emailHtml({ headline: headline ?? '', lines: call.map(defanged), url, note, inbox, risk: body.risk, id: delivery.id });
      try {
        await abortable(
          transport.sendMail({
            from: options.from,
            to: recipient.address,
            subject: body.subject,
            text,
            html,
            // The delivery id keeps a retry the same message (a receiver's duplicate filter drops it).
            messageId: `<${encodeURIComponent(delivery.id).replace(/%/g, '=')}@toolgate>`,
            headers: { 'X-Toolgate-Delivery': delivery.id },
          }),
          signal,
        );
        return { ok: true };
      } catch (error) {
        return { ok: false, error: `SMTP ${options.smtp.host}:${options.smtp.port}: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
  };
}

const AGENT_FRAME = '----- the call, as the agent made it (its words, not toolgate\'s) -----';
const AGENT_FRAME_END = '----- end of the call -----';

/** The subject and the lines a message shows of the call, from the inbox's presentation. */
function messageContent(view: ApprovalView | null, approval: StoredApproval): { subject: string; lines: string[]; risk: string } {
  const risk = view?.risk === 'dangerous' ? 'Dangerous' : view?.risk === 'routine' ? 'Routine' : 'Notable';
  const headline = oneLine(view?.headline ?? view?.description ?? `Call ${approval.tool}`);
  const lines: string[] = [`${risk}: ${headline}`];
  if (view?.description !== undefined && view.headline !== null && view.description !== view.headline) lines.push(oneLine(view.description));
  for (const consequence of view?.consequences ?? []) lines.push(`! ${oneLine(consequence)}`);
  if (view !== null && view.reasons.length > 0) lines.push(`Why it asks: ${oneLine(view.reasons.join('; '))}`);
  // The rule that asked, without where the policy lives on the server (`toolgate.yaml:5`, not its whole path).
  if (view?.asked_by) lines.push(`Asked by the policy's ${oneLine(view.asked_by.replace(/ — (?:.*\/)?([^/]+:\d+)$/, ' — $1'))}`);
  lines.push('');
  const shown = (view?.blocks ?? []).flatMap((block: ViewBlock) => blockLines(block).map((line) => cut(line.text, MAX_LINE)));
  lines.push(...shown.slice(0, MAX_LINES));
  if (shown.length > MAX_LINES) lines.push(`… ${shown.length - MAX_LINES} more lines on the link's page`);
  if ((view?.masked_secrets ?? 0) > 0) lines.push(`(${view!.masked_secrets} secret values masked)`);
  return { subject: cut(`[toolgate] ${risk === 'Dangerous' ? 'Dangerous: ' : ''}approve? ${headline}`, 150), lines, risk };
}

function emailHtml(options: { headline: string; lines: readonly string[]; url: string; note: string; inbox: string; risk: string; id: string }): string {
  const colour = options.risk === 'Dangerous' ? '#b00020' : options.risk === 'Routine' ? '#1b6e3a' : '#8a5a00';
  return [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;max-width:640px">',
    `<h2 style="color:${colour};overflow-wrap:anywhere">${escapeHtml(options.headline)}</h2>`,
    `<p><a href="${escapeHtml(options.url)}" style="display:inline-block;padding:10px 16px;background:#0b57d0;color:#fff;text-decoration:none;border-radius:6px">Review and decide</a></p>`,
    `<p style="color:#555">${escapeHtml(options.note)}</p>`,
    `<p><a href="${escapeHtml(options.inbox)}">Open the inbox</a></p>`,
    `<p style="color:#555;margin-bottom:2px">The call, as the agent made it (its words, not toolgate's):</p>`,
    `<pre style="white-space:pre-wrap;overflow-wrap:anywhere;background:#f5f5f5;border-left:4px solid #999;padding:8px;margin-top:0">${options.lines.map(escapeHtml).join('\n')}</pre>`,
    `<p style="color:#999;font-size:12px">${escapeHtml(options.id)}</p>`,
    '</body></html>',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}



function abortable<Value>(work: Promise<Value>, signal: AbortSignal): Promise<Value> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
