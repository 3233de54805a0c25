import type { Approver } from '../../core/approver.ts';
import { fingerprint } from '../../core/fingerprint.ts';
import type { Presentation } from '../../core/types.ts';
import { toApprovalDecision, type RunDecision } from './run-decision.ts';

/**
 * The approver a resumed run uses: it answers with the decision a person
 * already gave, so the gate records it exactly as if it had asked (memory
 * for `session`, audit with source `person`). When the run paused, the
 * person was shown a presentation; if the one built now differs (the file
 * changed since, say), what they approved is not what would run, so it
 * denies instead, as an automatic denial, never as theirs.
 *
 * @example
 * const approver = createDecisionApprover({ decision, shown: pending.presentation });
 * const authorization = await gate.authorize(call, context, { approver });
 */
export function createDecisionApprover(options: { decision: RunDecision; shown: Presentation | undefined }): Approver {
  return {
    ask: async (request) => {
      if (options.decision.approved && options.shown === undefined && request.presentation !== undefined) {
        // Nothing was recorded as shown, so nothing proves the person saw what would run.
        return {
          approved: false,
          scope: 'once',
          automatic: true,
          reason: `${request.tool} has a prompt that was never recorded as shown to the person, so their approval does not cover it; nothing ran, ask again`,
        };
      }
      if (options.decision.approved && options.shown !== undefined && !samePresentation(options.shown, request.presentation)) {
        return {
          approved: false,
          scope: 'once',
          automatic: true,
          reason: `what ${request.tool} would do changed after the person was shown it, so their approval does not cover it; nothing ran, ask again`,
        };
      }
      return toApprovalDecision(options.decision);
    },
  };
}

/** Equal as JSON: the stored presentation went through JSON, the fresh one did not. */
function samePresentation(shown: Presentation, current: Presentation | undefined): boolean {
  if (current === undefined) return false;
  try {
    return fingerprint(JSON.parse(JSON.stringify(shown))) === fingerprint(JSON.parse(JSON.stringify(current)));
  } catch {
    return false;
  }
}
