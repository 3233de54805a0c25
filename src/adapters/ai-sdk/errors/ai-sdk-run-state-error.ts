import { ToolgateError } from '../../../core/errors/toolgate-error.ts';

/**
 * Why a saved run state was refused:
 * - `malformed`: not JSON, or a field of the wrong shape;
 * - `unsupported-version`: a schema version this toolgate does not resume
 *   (older states were not signed, so what a person was shown is unproven);
 * - `tampered`: the state's signature, or an approval request's, does not
 *   verify with this gated set's secret (edited after it was saved, or signed
 *   with another secret);
 * - `other-context`: it belongs to another session, chat or run;
 * - `inconsistent`: its pending approvals do not match its messages.
 */
export type RunStateProblem = 'malformed' | 'unsupported-version' | 'tampered' | 'other-context' | 'inconsistent';

/**
 * A saved run state cannot be resumed (see `reason`). Nothing was decided or
 * run, and nothing in the state should be shown to a person as a request.
 */
export class AiSdkRunStateError extends ToolgateError {
  /** Where the problem is, e.g. `pending[0].toolCallId`, `signature` or `messages`. */
  readonly field: string;
  /** What kind of problem it is; `tampered` is worth an alert. */
  readonly reason: RunStateProblem;

  constructor(options: { field: string; problem: string; reason: RunStateProblem; cause?: unknown }) {
    super({
      code: 'AI_SDK_RUN_STATE_INVALID',
      message: `the saved run state cannot be resumed: ${options.field} ${options.problem}. Resume with the state exactly as createRunState produced it, with the same gate context and approval secret`,
      cause: options.cause,
    });
    this.name = 'AiSdkRunStateError';
    this.field = options.field;
    this.reason = options.reason;
  }
}
