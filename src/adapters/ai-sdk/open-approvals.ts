import type { ModelMessage } from 'ai';
import { AiSdkRunStateError } from './errors/ai-sdk-run-state-error.ts';

/** An approval request in the messages that no response answers yet, with the call it asks about. */
export interface OpenApproval {
  approvalId: string;
  toolCallId: string;
  tool: string;
  input: unknown;
  signature: string | undefined;
}

/**
 * The approval requests in a run's messages that no response answers, in
 * message order, each with its tool call (the signed data a resume runs).
 *
 * @example
 * for (const approval of openApprovals(state.messages)) await verifySignature(approval, secret);
 */
export function openApprovals(messages: readonly ModelMessage[]): OpenApproval[] {
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const requests: { approvalId: string; toolCallId: string; signature: string | undefined }[] = [];
  const answered = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    if (message.role === 'assistant') {
      for (const part of message.content) {
        if (part.type === 'tool-call') calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
        else if (part.type === 'tool-approval-request' && part.isAutomatic !== true) requests.push({ approvalId: part.approvalId, toolCallId: part.toolCallId, signature: part.signature });
      }
    } else if (message.role === 'tool') {
      for (const part of message.content) if (part.type === 'tool-approval-response') answered.add(part.approvalId);
    }
  }
  return requests
    .filter((request) => !answered.has(request.approvalId))
    .map((request) => {
      const call = calls.get(request.toolCallId);
      if (call === undefined) {
        throw new AiSdkRunStateError({ field: 'messages', problem: `hold an approval request for ${JSON.stringify(request.toolCallId)} without its tool call`, reason: 'inconsistent' });
      }
      return { ...request, tool: call.toolName, input: call.input };
    });
}
