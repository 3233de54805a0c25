import { ToolgateError } from '../../../core/errors/toolgate-error.ts';

/**
 * A gated tool's `execute` was called for a call the gate did not authorize:
 * no decision for that tool call id, a decision for other arguments or
 * another tool, a denial, an approval already used, or a run stopped by a
 * denial. Nothing ran. Calls go through `generateText`/`streamText` (or
 * `resumeRun` for deferred approvals), never straight to `execute`.
 */
export class AiSdkCallNotAuthorizedError extends ToolgateError {
  readonly tool: string;
  readonly toolCallId: string | undefined;
  /** Why the call was refused, e.g. `no authorization for this tool call id`. */
  readonly detail: string;

  constructor(options: { tool: string; toolCallId: string | undefined; detail: string }) {
    const call = options.toolCallId === undefined ? 'a call without a tool call id' : `tool call ${JSON.stringify(options.toolCallId)}`;
    super({
      code: 'AI_SDK_CALL_NOT_AUTHORIZED',
      message: `${options.tool} refused ${call}: ${options.detail}; nothing ran. Let the AI SDK call the tool so the gate decides first (resume deferred approvals with resumeRun)`,
    });
    this.name = 'AiSdkCallNotAuthorizedError';
    this.tool = options.tool;
    this.toolCallId = options.toolCallId;
    this.detail = options.detail;
  }
}
