/**
 * What the hook and its decider prove to each other with the decider's
 * token (hook-decider-client.ts): each side shows it holds the token by an
 * HMAC-SHA256 over both sides' fresh nonces, never the token itself, and
 * every frame of the answer is bound to the same nonces. So a process that
 * reaches the socket without the token can neither ask the decider nor pose
 * as it, nor change an answer it relays.
 *
 * @noble/hashes, not node:crypto: loading node:crypto (OpenSSL) costs a hook
 * process several milliseconds, more than the rest of a decided call.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * The proof of `label` over `parts`, keyed with the token.
 *
 * @example
 * proofOf({ token, label: 'decider', parts: [clientNonce, deciderNonce] }) // '3f1c…' (64 hex digits)
 */
export function proofOf(options: { token: string; label: 'decider' | 'client' | 'answer_by' | 'answer'; parts: readonly string[] }): string {
  return bytesToHex(hmac(sha256, utf8ToBytes(options.token), utf8ToBytes([options.label, ...options.parts].join('\u0000'))));
}

/** Compared in time independent of where they differ. */
export function sameProof(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  let difference = 0;
  for (let index = 0; index < expected.length; index++) difference |= given.charCodeAt(index) ^ expected.charCodeAt(index);
  return difference === 0;
}

/** A nonce: unpredictable enough that an answer cannot be prepared before the call, without loading node:crypto. */
export function freshNonce(): string {
  return `${process.pid.toString(36)}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}
