import { createNonInteractiveApprover, type Approver } from '../../core/approver.ts';
import { ToolgateError } from '../../core/errors/toolgate-error.ts';
import type { Gate } from '../../core/gate.ts';
import type { ResolveMode } from './gated-tools-state.ts';

/**
 * What the model reads when a blocking run has nobody to ask: the situation,
 * in the library's terms. No CLI flag, no mode, no rule that would let the
 * call through: whoever wrote the rule that asked meant a person to decide.
 */
const NOBODY_TO_ASK =
  'nobody who can approve it is reachable from this run (neither the gate nor gateTools was given an approver), so it did not run. ' +
  'Do not retry it; tell the user it needs their approval';

/**
 * Who a gated set asks inline, decided once, when `gateTools` is called, so
 * that an approver is never silently ignored:
 *
 * - blocking: the approver given to `gateTools`, else the gate's own
 *   (`createGate({ approver })`); the same object given to both is fine, two
 *   different ones are refused (which of them should decide?); with neither,
 *   asks are denied, saying that nobody could be asked;
 * - deferred: nobody (`null`): asks pause the run and `resumeRun` decides
 *   them, so an approver given to `gateTools` or to the gate is refused.
 *
 * Throws `ToolgateError` (code `USAGE`) naming both approvers' places.
 *
 * @example
 * const approver = runApprover({ resolve: 'blocking', gate, approver: options.approver });
 * await gate.authorize(call, context, { approver });
 */
export function runApprover(options: { resolve: ResolveMode; gate: Gate; approver: Approver | undefined }): Approver | null {
  const given = options.approver;
  const own = options.gate.approver;
  if (options.resolve === 'deferred') {
    const where = given !== undefined ? 'gateTools was given an approver' : own !== undefined ? 'the gate has an approver of its own (createGate({ approver }))' : undefined;
    if (where === undefined) return null;
    throw new ToolgateError({
      code: 'USAGE',
      message: `${where}, but a deferred run asks nobody inline: its asks pause the run and are decided with resumeRun. Leave the approver out (a gate made without one), or use resolve: 'blocking' to have it asked`,
    });
  }
  if (given !== undefined && own !== undefined && given !== own) {
    throw new ToolgateError({
      code: 'USAGE',
      message:
        'gateTools was given an approver, and the gate has another of its own (createGate({ approver })): only one of them could be asked. ' +
        'Give the approver to one of them (or the same approver to both)',
    });
  }
  return given ?? own ?? createNonInteractiveApprover({ hint: NOBODY_TO_ASK });
}
