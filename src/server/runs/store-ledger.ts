import type { CallLedger, EarlierRun, LedgerCall } from '../../adapters/ai-sdk/call-ledger.ts';
import type { NewEvent, StoredEvent, ToolgateStore } from '../../store/store.ts';
import type { Sealer } from '../seal.ts';

/** The server's ledger: also ends a call together with its events (`finishCall`). */
export interface StoreLedger extends CallLedger {
  /** Ends the call and stores `events` in one transaction; returns the events stored (none when it had ended before). */
  finishRecording(call: LedgerCall, outcome: { status: 'completed' | 'failed'; output: unknown }, events: readonly NewEvent[]): Promise<StoredEvent[]>;
}

/**
 * The at-most-once ledger on the server's store: a call is recorded as
 * executing (its arguments sealed) before it runs, in every process that
 * shares the store, and its output is kept (sealed) once it completes, so a
 * resume that comes again returns it instead of running the call twice.
 *
 * @example
 * const gated = gateTools({ ..., ledger: createStoreLedger({ store, sealer }) });
 */
export function createStoreLedger(options: { store: ToolgateStore; sealer: Sealer }): StoreLedger {
  const { store, sealer } = options;
  return {
    async finishRecording(call, outcome, events) {
      return store.finishCall(call.runId, call.toolCallId, outcome.status, sealer.seal(JSON.stringify(outcome.output ?? null)), events);
    },
    async begin(call) {
      const started = await store.beginCall({ runId: call.runId, toolCallId: call.toolCallId, tool: call.tool, input: sealer.seal(JSON.stringify(call.args ?? null)) });
      if (started) return { started: true };
      const earlier = await store.getCall(call.runId, call.toolCallId);
      return { started: false, earlier: earlierRun(earlier?.status, earlier?.output ?? null, sealer) };
    },
    async finish(call, outcome) {
      await store.finishCall(call.runId, call.toolCallId, outcome.status, sealer.seal(JSON.stringify(outcome.output ?? null)));
    },
  };
}

function earlierRun(status: string | undefined, output: string | null, sealer: Sealer): EarlierRun {
  if (status === 'completed' && output !== null) return { status: 'completed', output: JSON.parse(sealer.unseal(output)) };
  if (status === 'failed' || status === 'interrupted') return { status };
  return { status: 'executing' };
}
