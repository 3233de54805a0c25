import type { ModelMessage } from 'ai';

/**
 * Whether the SDK is asking about a tool call it found approved in the
 * message history (a resumed run), rather than a call the model just made.
 *
 * Before running approvals carried in the history, the SDK re-asks
 * `toolApproval` (ai `validateApprovedToolApprovals`). Its condition is
 * mirrored here: the last message is a tool message with an approving
 * `tool-approval-response` whose request names this call, and no result
 * for it yet. Such an approval must have been decided through toolgate
 * (`resumeRun`): anything else is refused, even with a valid signature.
 *
 * @example
 * if (isReplayedApproval({ messages, toolCallId })) return confirmReplayedApproval(...);
 */
export function isReplayedApproval(options: { messages: readonly ModelMessage[]; toolCallId: string }): boolean {
  const { messages, toolCallId } = options;
  const last = messages.at(-1);
  if (last?.role !== 'tool' || !Array.isArray(last.content)) return false;
  let approvalIds: Set<string> | undefined;
  for (const part of last.content) {
    if (part.type === 'tool-approval-response' && part.approved === true) (approvalIds ??= new Set()).add(part.approvalId);
    // A call with a result is not run again by the SDK.
    else if (part.type === 'tool-result' && part.toolCallId === toolCallId) return false;
  }
  if (approvalIds === undefined) return false;
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-approval-request' && part.toolCallId === toolCallId && approvalIds.has(part.approvalId)) return true;
    }
  }
  return false;
}
