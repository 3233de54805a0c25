/**
 * Signed decisions (issue 32): every decision the server records on a
 * paused call carries a MAC under the server's secret over what it decides
 * — the run, the calls it names, the digest of the arguments as approved
 * (a person's edit; otherwise the sealed state fixes the model's), whether
 * it approves, its scope, its stop, its reason, who decided and when. The
 * runner checks it before anything runs: a decision row written into the
 * database by anyone without the secret (a forged approval) is refused,
 * logged, and shown in the run's history as such; the call does not run.
 */
import { createHash } from 'node:crypto';
import { fingerprint } from '../../core/fingerprint.ts';
import { macMatches, recordMac } from '../../store/record-mac.ts';
import type { StoredDecision } from '../../store/store.ts';

/** A decision as the server records it: signed, naming the calls it decides. */
export interface SignedDecision extends StoredDecision {
  /** The calls this decision was made on (one, or a group), as signed. */
  calls: string[];
  mac: string;
}

/**
 * Signs `decision` on `calls` of run `runId`.
 *
 * @example
 * const signed = signDecision({ key, runId, calls: ['tg_0_0'], decision });
 */
export function signDecision(options: { key: Buffer; runId: string; calls: readonly string[]; decision: StoredDecision }): SignedDecision {
  const calls = [...options.calls];
  return { ...options.decision, calls, mac: macOf(options.key, options.runId, calls, options.decision) };
}

/**
 * Whether `decision`, read from the store for `toolCallId` of run `runId`,
 * is one this server's secret signed for that call.
 *
 * @example
 * if (!verifyDecision({ key, runId, toolCallId, decision })) refuse();
 */
export function verifyDecision(options: { key: Buffer; runId: string; toolCallId: string; decision: StoredDecision }): boolean {
  const { decision } = options;
  const signed = decision as Partial<SignedDecision>;
  if (typeof signed.mac !== 'string' || !Array.isArray(signed.calls) || !signed.calls.every((call) => typeof call === 'string') || !signed.calls.includes(options.toolCallId)) return false;
  return macMatches(signed.mac, macOf(options.key, options.runId, signed.calls, decision));
}

function macOf(key: Buffer, runId: string, calls: readonly string[], decision: StoredDecision): string {
  return recordMac(key, 'decision', [
    runId,
    calls,
    decision.approved,
    decision.scope,
    decision.reason,
    decision.stop ?? null,
    decision.editedArgs === undefined ? null : argumentsDigest(decision.editedArgs),
    decision.decidedBy,
    decision.decidedAt,
    // Only when there is one: decisions signed before it existed still verify.
    ...(decision.alwaysScope === undefined ? [] : [`always_scope:${decision.alwaysScope}`]),
    ...(decision.via === undefined ? [] : [`via:${decision.via}`]),
  ]);
}

/** The digest of arguments as the store gives them back (JSON text and back: `-0` is `0` there too). */
function argumentsDigest(args: unknown): string {
  return createHash('sha256').update(fingerprint(JSON.parse(JSON.stringify(args) ?? 'null'))).digest('base64url');
}
