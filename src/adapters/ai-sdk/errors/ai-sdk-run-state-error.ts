import { ToolgateError } from '../../../core/errors/toolgate-error.ts';

/**
 * A saved run state cannot be resumed: not JSON, an unknown schema version,
 * a malformed field, another session's state, pending approvals that do not
 * match the messages, or an approval request whose signature does not verify
 * with this gated set's secret (tampered, or signed with another secret).
 * Nothing was decided or run.
 */
export class AiSdkRunStateError extends ToolgateError {
  /** Where the problem is, e.g. `pending[0].toolCallId` or `messages`. */
  readonly field: string;

  constructor(options: { field: string; problem: string; cause?: unknown }) {
    super({
      code: 'AI_SDK_RUN_STATE_INVALID',
      message: `the saved run state cannot be resumed: ${options.field} ${options.problem}. Resume with the state exactly as createRunState produced it, with the same gate context and approval secret`,
      cause: options.cause,
    });
    this.name = 'AiSdkRunStateError';
    this.field = options.field;
  }
}
