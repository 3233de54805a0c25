/**
 * What the AI SDK hands an approval check for one tool call (the messages,
 * the tools' context), carried to a tool's own `needsApproval` through the
 * gate. The gate passes its context object on to every tool check (spread
 * copies keep symbol keys), so the input rides on the context under a symbol
 * that never reaches the audit log, the memory key or a person.
 */
import type { ModelMessage } from 'ai';
import type { GateContext } from '../../core/types.ts';

/**
 * `asked`: the SDK asks about a call the model just made; the tool's check
 * gets exactly what the SDK would have given it.
 * `resumed`: a person already answered this call (a deferred run resuming);
 * the SDK would not let the tool's own check lower that, so it asks.
 */
export type SdkApprovalInput =
  | {
      kind: 'asked';
      /** The messages the SDK passed: what the model was sent for the step that made the call. */
      messages: ModelMessage[];
      /** The SDK's `toolsContext` for every tool; each tool reads its own entry. */
      toolsContext: unknown;
      /** Aborts the check with the run (the gated set's `signal`). */
      signal: AbortSignal | undefined;
    }
  | { kind: 'resumed' };

const SDK_APPROVAL_INPUT = Symbol('toolgate.aiSdkApprovalInput');

/**
 * The gate context for one call, carrying what the SDK handed over.
 *
 * @example
 * await gate.authorize(call, withSdkApprovalInput(state.context, { kind: 'asked', messages, toolsContext, signal }));
 */
export function withSdkApprovalInput(context: GateContext, input: SdkApprovalInput): GateContext {
  return { ...context, [SDK_APPROVAL_INPUT]: input } as GateContext;
}

/**
 * What the SDK handed over for this call, or undefined when the call did not
 * come through a gated set (then a tool's function cannot be asked faithfully).
 *
 * @example
 * const input = sdkApprovalInputOf(context);
 * if (input === undefined) return askAnyway();
 */
export function sdkApprovalInputOf(context: GateContext): SdkApprovalInput | undefined {
  return (context as { [SDK_APPROVAL_INPUT]?: SdkApprovalInput })[SDK_APPROVAL_INPUT];
}
