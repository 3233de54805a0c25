/**
 * The AI SDK's check of a tool-approval request's signature (ai's
 * `verifyToolApprovalSignature`, "ai-sdk-tool-approval-v1", and the legacy
 * newline form it still accepts), made with `digests.ts`. The SDK's own
 * function runs on WebCrypto and imports the key on every call; this one
 * answers the same, in a few microseconds on Node. It stands in for it only
 * where toolgate checks a saved state before recording anything; the SDK
 * still checks every approval itself when the run resumes.
 *
 * Kept in step with the SDK by its tests, which sign with the SDK's
 * `signToolApproval` and compare verdicts with the SDK's verifier: if an SDK
 * upgrade changes the scheme, they fail, and until then a request signed the
 * new way is refused (never accepted) here.
 */
import { digests, equalBytes, fromBase64url, toBase64url, type Digests } from './digests.ts';

const encoder = new TextEncoder();

export interface SignedApproval {
  secret: string | Uint8Array;
  signature: string;
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/**
 * Whether `signature` is the SDK's signature of this approval request under
 * `secret`; false for anything that cannot be read.
 *
 * @example
 * if (!(await approvalSignatureMatches({ secret, signature, approvalId, toolCallId, toolName: 'shell', input }))) refuse();
 */
export async function approvalSignatureMatches(approval: SignedApproval, using: Digests = digests): Promise<boolean> {
  try {
    if (!/^[A-Za-z0-9_-]+={0,2}$/.test(approval.signature)) return false;
    const key = typeof approval.secret === 'string' ? encoder.encode(approval.secret) : approval.secret;
    const presented = fromBase64url(approval.signature);
    const inputDigest = toBase64url(await using.sha256(encoder.encode(canonicalJSON(approval.input))));
    const payload = JSON.stringify(['ai-sdk-tool-approval-v1', approval.approvalId, approval.toolCallId, approval.toolName, inputDigest]);
    if (equalBytes(await using.hmacSha256(key, encoder.encode(payload)), presented)) return true;
    // The SDK still accepts its first form, where no field may hold a newline.
    if ([approval.approvalId, approval.toolCallId, approval.toolName].some((field) => field.includes('\n'))) return false;
    const legacy = `${approval.approvalId}\n${approval.toolCallId}\n${approval.toolName}\n${inputDigest}`;
    return equalBytes(await using.hmacSha256(key, encoder.encode(legacy)), presented);
  } catch {
    return false;
  }
}

/** The SDK's canonical JSON (`canonicalJSON` in ai's canonical-hash), to the character: keys sorted, `undefined` array elements as null. */
function canonicalJSON(value: unknown): string {
  if (value === null || value === undefined) return JSON.stringify(value) as string;
  if (typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((element) => (element === undefined ? 'null' : canonicalJSON(element))).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJSON(record[key])}`)
    .join(',')}}`;
}
