/**
 * One-tap decision links (issue 35): a link that lets one approver decide
 * one call, and nothing else. Its token names the approver, the run, the
 * call, a digest of the call's arguments as the person was shown them, when
 * it expires and a random nonce, signed with a key derived from the
 * server's secret. Opening it decides nothing (the page POSTs); it works
 * once, because a call is decided once; a call decided elsewhere, changed,
 * or past the link's time is refused with a page that says which.
 *
 * The token is made again from those fields when a notification is sent:
 * the outbox keeps the fields, never a token that could decide.
 */
import { createHash, randomBytes } from 'node:crypto';
import { macMatches, recordMac } from '../../store/record-mac.ts';

export interface DecisionLink {
  /** The approver it was sent to: it decides as them. */
  approver: string;
  runId: string;
  toolCallId: string;
  /** SHA-256 (hex) of the call's arguments as shown (the card's `tool_arguments` text). */
  argsDigest: string;
  /** Seconds since the epoch. */
  expiresAt: number;
  nonce: string;
}

const PURPOSE = 'decision-link';
/** Tokens longer than this are not read (a URL path segment). */
const MAX_TOKEN_LENGTH = 2048;

/**
 * The fields of a new link, with a fresh nonce.
 *
 * @example
 * const link = newDecisionLink({ approver: 'carol', runId, toolCallId, shownArguments: request.tool_arguments, ttlMs: 3_600_000, now: Date.now() });
 */
export function newDecisionLink(options: { approver: string; runId: string; toolCallId: string; shownArguments: string; ttlMs: number; now: number }): DecisionLink {
  return {
    approver: options.approver,
    runId: options.runId,
    toolCallId: options.toolCallId,
    argsDigest: argumentsDigest(options.shownArguments),
    expiresAt: Math.floor((options.now + options.ttlMs) / 1000),
    nonce: randomBytes(12).toString('base64url'),
  };
}

/** The digest a link binds: of the arguments' text as the card shows them. */
export function argumentsDigest(shownArguments: string): string {
  return createHash('sha256').update(shownArguments).digest('hex');
}

/**
 * The token of a link: its fields and their MAC, URL-safe.
 *
 * @example
 * `${publicUrl}/decide/${decisionLinkToken({ key: runtime.recordKey, link })}`
 */
export function decisionLinkToken(options: { key: Buffer; link: DecisionLink }): string {
  const { link } = options;
  const fields = [link.approver, link.runId, link.toolCallId, link.argsDigest, link.expiresAt, link.nonce];
  const body = Buffer.from(JSON.stringify(fields)).toString('base64url');
  return `${body}.${recordMac(options.key, PURPOSE, fields).slice('v1.'.length)}`;
}

/**
 * Reads a token: the link, or why it is not one (malformed, or not signed
 * by this server). Whether it expired is the caller's to say (it says so
 * with the link it names).
 */
export function readDecisionLink(options: { key: Buffer; token: string }): { ok: true; link: DecisionLink } | { ok: false; problem: string } {
  const { token } = options;
  const refused = { ok: false as const, problem: 'this link is not one toolgate made (it is cut short, changed, or from another server)' };
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) return refused;
  const [body, mac] = token.split('.') as [string, string];
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return refused;
  }
  if (!Array.isArray(fields) || fields.length !== 6) return refused;
  const [approver, runId, toolCallId, argsDigest, expiresAt, nonce] = fields as unknown[];
  if (typeof approver !== 'string' || typeof runId !== 'string' || typeof toolCallId !== 'string' || typeof argsDigest !== 'string' || typeof expiresAt !== 'number' || !Number.isSafeInteger(expiresAt) || typeof nonce !== 'string') return refused;
  if (!macMatches(`v1.${mac}`, recordMac(options.key, PURPOSE, fields))) return refused;
  return { ok: true, link: { approver, runId, toolCallId, argsDigest, expiresAt, nonce } };
}
