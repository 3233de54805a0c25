import { errorMessage } from './run-tool-check.ts';
import { setLongTimeout } from './long-timeout.ts';
import type { ApprovalDecision } from './types.ts';

/** What came back from asking a person. */
export type Answer =
  | { kind: 'decided'; decision: ApprovalDecision }
  | { kind: 'timeout' }
  | { kind: 'failed'; reason: string };

/**
 * Asks with a deadline and a cancellation signal. A timeout is its own
 * answer ("timed out"), never a person's denial; an approver that throws or
 * answers nonsense denies.
 */
export async function askWithTimeout(options: {
  ask: (signal: AbortSignal) => Promise<ApprovalDecision>;
  timeoutMs: number | undefined;
  signal: AbortSignal | undefined;
  tool: string;
}): Promise<Answer> {
  const controller = new AbortController();
  let cancelTimer: (() => void) | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const racers: Promise<Answer>[] = [
      Promise.resolve()
        .then(() => options.ask(controller.signal))
        .then((decision) => validateDecision(decision, options.tool)),
    ];
    if (options.timeoutMs !== undefined) {
      racers.push(
        new Promise((resolve) => {
          cancelTimer = setLongTimeout(() => {
            controller.abort(new Error('approval timed out'));
            resolve({ kind: 'timeout' });
          }, options.timeoutMs!);
        }),
      );
    }
    if (options.signal !== undefined) {
      const outer = options.signal;
      racers.push(
        new Promise((resolve) => {
          onAbort = () => {
            controller.abort(outer.reason);
            resolve({ kind: 'failed', reason: `the approval was cancelled (${errorMessage(outer.reason)})` });
          };
          if (outer.aborted) onAbort();
          else outer.addEventListener('abort', onAbort, { once: true });
        }),
      );
    }
    return await Promise.race(racers);
  } catch (error) {
    return { kind: 'failed', reason: `asking for approval failed (${errorMessage(error)}); denied to fail closed` };
  } finally {
    cancelTimer?.();
    if (onAbort !== undefined) options.signal?.removeEventListener('abort', onAbort);
  }
}

function validateDecision(value: unknown, tool: string): Answer {
  const decision = value as Record<string, unknown> | null | undefined;
  const valid =
    typeof decision === 'object' &&
    decision !== null &&
    typeof decision.approved === 'boolean' &&
    (decision.approved
      ? decision.scope === 'once' || decision.scope === 'session' || decision.scope === 'always'
      : decision.scope === 'once' || decision.scope === 'session') &&
    (decision.reason === undefined || typeof decision.reason === 'string') &&
    (decision.note === undefined || typeof decision.note === 'string') &&
    (decision.stop === undefined || typeof decision.stop === 'boolean') &&
    (decision.automatic === undefined || typeof decision.automatic === 'boolean') &&
    (decision.approved || decision.args === undefined) &&
    (decision.alwaysScope === undefined || (decision.approved && decision.scope === 'always' && typeof decision.alwaysScope === 'string'));
  if (!valid) return { kind: 'failed', reason: `the approver returned a malformed decision for ${tool}; denied to fail closed` };
  return { kind: 'decided', decision: decision as unknown as ApprovalDecision };
}
