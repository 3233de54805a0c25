/**
 * At most once, across processes: a ledger records that a tool call is
 * executing before it runs, and what came of it. A gated set with a ledger
 * runs a call only when the ledger took its start; a call the ledger has
 * seen before is never run again — its stored output is returned when it
 * completed, and otherwise it is reported `interrupted`. The server's store
 * implements it; `createInMemoryCallLedger` serves one process.
 */
import { AiSdkCallInterruptedError } from './errors/ai-sdk-call-interrupted-error.ts';

export interface LedgerCall {
  /** The gate context's run id (or its session id when it has none). */
  runId: string;
  toolCallId: string;
  tool: string;
  /** The arguments that run. */
  args: unknown;
}

/** What the ledger knew of a call that started before. */
export type EarlierRun = { status: 'completed'; output: unknown } | { status: 'executing' | 'failed' | 'interrupted' };

export interface CallLedger {
  /**
   * Takes the call's start: `{ started: true }` when nobody started it
   * before (it is now recorded as executing), otherwise what happened to it.
   * Must be atomic across every process sharing the ledger. A throw refuses the call.
   */
  begin(call: LedgerCall): Promise<{ started: true } | { started: false; earlier: EarlierRun }>;
  /** Records how the call ended (`output` is the tool's output, or the error's message). */
  finish(call: LedgerCall, outcome: { status: 'completed' | 'failed'; output: unknown }): Promise<void>;
  /**
   * True when the ledger already holds this call of the run being driven (a
   * recovered run replaying a recorded answer): then the gate is not asked
   * again, and the recorded outcome stands — its output, or `interrupted`.
   * Synchronous: the ledger knows it before the answer is replayed.
   */
  recorded?(toolCallId: string): boolean;
  /**
   * The reason, when the run's history says this call was denied or blocked
   * before the run was recovered (a replayed answer's call that never ran):
   * it is denied again with that reason, not judged again — the recorded
   * answers after it were the model's reply to that denial.
   */
  refused?(toolCallId: string): string | undefined;
  /**
   * Records, before any call of its answer runs, that the gate refused this
   * call (blocked it, or denied it without a person), with the reason the
   * model reads: a recovery that replays the answer finds it (`refused`)
   * even when the step never ended. A throw fails the run.
   */
  refuse?(call: { toolCallId: string; tool: string; outcome: 'blocked' | 'denied'; reason: string }): Promise<void>;
}

/**
 * Runs `execute` at most once for the call, through the ledger.
 *
 * @example
 * return runOnce({ ledger, call, execute: () => tool.execute(args, options) });
 */
export async function runOnce(options: { ledger: CallLedger; call: LedgerCall; execute: () => unknown }): Promise<unknown> {
  const { ledger, call } = options;
  const begun = await ledger.begin(call);
  if (!begun.started) {
    if (begun.earlier.status === 'completed') return begun.earlier.output;
    throw new AiSdkCallInterruptedError({ tool: call.tool, toolCallId: call.toolCallId });
  }
  let output: unknown;
  try {
    output = await options.execute();
  } catch (error) {
    await ledger.finish(call, { status: 'failed', output: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  // A streaming tool's output is consumed by the SDK later: its start is what the ledger keeps.
  await ledger.finish(call, { status: 'completed', output: isAsyncIterable(output) ? null : output });
  return output;
}

function isAsyncIterable(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

/**
 * A ledger for one process (tests, single runs): at most once within it.
 *
 * @example
 * const gated = gateTools({ tools, gate, context, resolve: 'deferred', ledger: createInMemoryCallLedger() });
 */
export function createInMemoryCallLedger(): CallLedger {
  const calls = new Map<string, EarlierRun>();
  const key = (call: LedgerCall) => JSON.stringify([call.runId, call.toolCallId]);
  return {
    async begin(call) {
      const earlier = calls.get(key(call));
      if (earlier !== undefined) return { started: false, earlier };
      calls.set(key(call), { status: 'executing' });
      return { started: true };
    },
    async finish(call, outcome) {
      const current = calls.get(key(call));
      if (current?.status !== 'executing') return;
      calls.set(key(call), outcome.status === 'completed' ? { status: 'completed', output: outcome.output } : { status: 'failed' });
    },
  };
}
