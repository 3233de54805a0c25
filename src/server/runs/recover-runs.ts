/**
 * After a restart (or a crash), runs the store says are `running` are driven
 * on from what was stored: a run that had not paused starts again from its
 * messages; a run that was resuming is resumed again from its signed pause
 * with the stored decisions. Nothing runs twice: every call that started
 * before is in the ledger, and comes back as its stored result or as
 * `interrupted`. Paused runs need nothing: they wait in the store.
 */
import type { StoredRun } from '../../store/store.ts';
import { resumeDecidedRun } from './approve-run.ts';
import { ofThisPause, runDecisions } from './pause-decisions.ts';
import { driveRun, errorText, finishRun } from './drive-run.ts';
import { runEvent } from './run-events.ts';
import { openEnvelope, type ServerRuntime } from './server-runtime.ts';

/**
 * Claims and drives every `running` run; returns how many. Each claim is a
 * compare-and-set, so two processes never recover the same run.
 *
 * @example
 * const recovered = await recoverRuns(runtime);
 */
export async function recoverRuns(runtime: ServerRuntime): Promise<number> {
  const { store } = runtime;
  const stranded: StoredRun[] = [];
  let before: string | undefined;
  do {
    const page = await store.listRuns({ status: 'running', limit: 1000, ...(before === undefined ? {} : { before }) });
    stranded.push(...page.runs);
    before = page.next ?? undefined;
  } while (before !== undefined);
  let recovered = 0;
  for (const run of stranded) {
    const event = runEvent({ run, policy: runtime.policy }, 'run_recovered', { reason: 'server_restarted', status: 'running' });
    const claimed = await store.updateRun(run.runId, run.revision, {}, { events: [event] });
    if (claimed === undefined) continue;
    recovered++;
    try {
      const envelope = openEnvelope(runtime, claimed.run.state ?? '');
      if (envelope.kind === 'messages') {
        void driveRun(runtime, claimed.run, { kind: 'messages', messages: envelope.messages });
        continue;
      }
      const decided = ofThisPause(await store.listApprovals({ runId: run.runId, includeDecided: true }), envelope.state.pending);
      void driveRun(runtime, claimed.run, { kind: 'resume', state: envelope.state, decisions: runDecisions(decided) });
    } catch (error) {
      const message = `could not be recovered after a restart: ${errorText(error)}`;
      await finishRun(runtime, claimed.run, { status: 'failed', error: message }, [runEvent({ run, policy: runtime.policy }, 'run_failed', { status: 'failed', error: message })]);
    }
  }
  if (recovered > 0) runtime.notify();
  return recovered;
}

/**
 * Paused runs whose calls were all decided, but which never resumed (the
 * process stopped between the last decision and the resume): resumed now.
 *
 * @example
 * await resumeDecidedPauses(runtime);
 */
export async function resumeDecidedPauses(runtime: ServerRuntime): Promise<number> {
  const { store } = runtime;
  let resumed = 0;
  for (const run of await store.decidedPausedRuns()) {
    await resumeDecidedRun(runtime, run, await store.listApprovals({ runId: run.runId, includeDecided: true }));
    resumed++;
  }
  return resumed;
}
