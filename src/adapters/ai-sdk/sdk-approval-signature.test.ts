/**
 * toolgate's check of the SDK's approval signatures answers exactly as the
 * SDK's own `verifyToolApprovalSignature`: the same requests accepted (signed
 * by the SDK's `signToolApproval`, in its current and its legacy form), the
 * same refused. If an SDK upgrade changes the scheme, these fail.
 */
import { createHmac } from 'node:crypto';
import { signToolApproval, verifyToolApprovalSignature } from 'ai/internal';
import { describe, expect, it } from 'vitest';
import { nodeDigests, webCryptoDigests } from './digests.ts';
import { approvalSignatureMatches, type SignedApproval } from './sdk-approval-signature.ts';

const secret = 'approval secret of this test, 0123456789abcdef';

const inputs: unknown[] = [
  { path: 'a.txt', content: 'hello\n' },
  { z: 1, a: { y: [3, 2, 1], b: null }, m: 'ünïcödé ✓ \u202e' },
  [1, undefined, 'two', { k: undefined, j: true }],
  { nested: { deeper: { deepest: [[], {}, [{}]] } }, number: 1e21, negative: -0.5 },
  'a bare string',
  42,
  null,
  {},
];

async function sdkSigned(input: unknown, fields: { approvalId?: string; toolCallId?: string; toolName?: string } = {}): Promise<SignedApproval> {
  const approval = { approvalId: fields.approvalId ?? 'approval-1', toolCallId: fields.toolCallId ?? 'call-1', toolName: fields.toolName ?? 'write_file', input };
  return { ...approval, secret, signature: await signToolApproval({ secret, ...approval }) };
}

const sdkVerdict = (approval: SignedApproval) => verifyToolApprovalSignature(approval).catch(() => false);

describe('approvalSignatureMatches answers as the SDK does', () => {
  for (const [name, using] of [
    ['node:crypto', nodeDigests!],
    ['WebCrypto', webCryptoDigests],
  ] as const) {
    it(`${name}: accepts what the SDK signed, for inputs of every shape`, async () => {
      for (const input of inputs) {
        const approval = await sdkSigned(input);
        expect(await approvalSignatureMatches(approval, using)).toBe(true);
        expect(await approvalSignatureMatches({ ...approval, secret: new TextEncoder().encode(secret) }, using)).toBe(true);
      }
    });
  }

  it('refuses every change the SDK refuses: another id, call, tool, input, secret or signature', async () => {
    for (const input of inputs) {
      const approval = await sdkSigned(input);
      const changed: SignedApproval[] = [
        { ...approval, approvalId: 'approval-2' },
        { ...approval, toolCallId: 'call-2' },
        { ...approval, toolName: 'shell' },
        { ...approval, input: { changed: input } },
        { ...approval, secret: `${secret}!` },
        { ...approval, signature: approval.signature.replace(/^./, (first) => (first === 'A' ? 'B' : 'A')) },
        { ...approval, signature: '' },
        { ...approval, signature: 'not base64url!' },
      ];
      for (const candidate of changed) {
        expect(await approvalSignatureMatches(candidate)).toBe(false);
        expect(await sdkVerdict(candidate)).toBe(false);
      }
    }
  });

  it('tells key order apart from content: the same object with its keys in another order still matches', async () => {
    const approval = await sdkSigned({ b: 2, a: 1 });
    expect(await approvalSignatureMatches({ ...approval, input: { a: 1, b: 2 } })).toBe(true);
    expect(await sdkVerdict({ ...approval, input: { a: 1, b: 2 } })).toBe(true);
  });

  it('accepts the legacy newline form where the SDK does, and refuses it when a field holds a newline', async () => {
    const input = { path: 'a.txt' };
    // The SDK's input digest: base64url SHA-256 of the canonical JSON.
    const digest = Buffer.from(await nodeDigests!.sha256(new TextEncoder().encode('{"path":"a.txt"}'))).toString('base64url');
    const legacy = (approvalId: string) => createHmac('sha256', secret).update(`${approvalId}\ncall-1\nwrite_file\n${digest}`).digest('base64url');
    const plain: SignedApproval = { secret, approvalId: 'approval-1', toolCallId: 'call-1', toolName: 'write_file', input, signature: legacy('approval-1') };
    expect(await sdkVerdict(plain)).toBe(true);
    expect(await approvalSignatureMatches(plain)).toBe(true);
    const newline: SignedApproval = { ...plain, approvalId: 'approval\n1', signature: legacy('approval\n1') };
    expect(await sdkVerdict(newline)).toBe(false);
    expect(await approvalSignatureMatches(newline)).toBe(false);
  });
});

describe('approvalSignatureMatches against hostile requests', () => {
  it('refuses, without throwing, an input nested deeper than the stack, a signature of the wrong length, and whitespace the SDK would skip', async () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 200_000; level++) deep = [deep];
    const signed = await sdkSigned({ path: 'a.txt' });
    expect(await approvalSignatureMatches({ ...signed, input: deep })).toBe(false);
    expect(await approvalSignatureMatches({ ...signed, signature: signed.signature.slice(0, 20) })).toBe(false);
    expect(await approvalSignatureMatches({ ...signed, signature: `${signed.signature}AAAA` })).toBe(false);
    // atob skips ASCII whitespace, so the SDK takes this; toolgate refuses it (stricter, never looser).
    expect(await approvalSignatureMatches({ ...signed, signature: `${signed.signature.slice(0, 10)} ${signed.signature.slice(10)}` })).toBe(false);
  });
});
