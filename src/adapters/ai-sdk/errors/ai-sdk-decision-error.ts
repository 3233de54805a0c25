import { ToolgateError } from '../../../core/errors/toolgate-error.ts';

/**
 * The decisions given to `resumeRun` do not fit the paused run: a decision
 * without `approved`, an unknown or repeated tool call id, a pending approval
 * left undecided, or a malformed field. Nothing was decided or run (an HTTP
 * layer maps this to 400 with `field`).
 */
export class AiSdkDecisionError extends ToolgateError {
  /** The offending field, e.g. `decisions[0].approved`. */
  readonly field: string;

  constructor(options: { field: string; problem: string }) {
    super({ code: 'AI_SDK_DECISION_INVALID', message: `invalid approval decision: ${options.field} ${options.problem}` });
    this.name = 'AiSdkDecisionError';
    this.field = options.field;
  }
}
