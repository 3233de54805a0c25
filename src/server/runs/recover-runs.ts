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
import { driveRun, errorText, finishRun, FIRST_STEP, resumeStart, toldKey, type RunJournal } from './drive-run.ts';
import { runEvent } from './run-events.ts';
import { openEnvelope, type ServerRuntime } from './server-runtime.ts';

/**
 * Claims and drives the `running` runs nobody drives: on a store one server
 * has to itself, every one (it was running when the server stopped); on a
 * shared store (`StoreInstances`), the runs of servers whose lease ran out and
 * this server's own that it is not driving. Returns how many it claimed. Each
 * claim is a compare-and-set, so two servers never recover the same run, and
 * a server that lost its run this way finds every later write of it refused.
 *
 * @example
 * const recovered = await recoverRuns(runtime, 'server_restarted');
 */
export async function recoverRuns(runtime: ServerRuntime, reason: 'server_restarted' | 'instance_lost' = 'server_restarted', sightings?: Map<string, number>): Promise<number> {
  const { store } = runtime;
  const stranded: StoredRun[] = [];
  if (store.instances !== undefined) {
    const found = (await store.instances.orphanedRuns(1000)).filter((run) => !runtime.active.has(run.runId));
    stranded.push(...(sightings === undefined ? found : strandedTwice(found, sightings)));
  } else {
    let before: string | undefined;
    do {
      const page = await store.listRuns({ status: 'running', limit: 1000, ...(before === undefined ? {} : { before }) });
      stranded.push(...page.runs);
      before = page.next ?? undefined;
    } while (before !== undefined);
  }
  let recovered = 0;
  for (const run of stranded) {
    const event = runEvent({ run, policy: runtime.policy }, 'run_recovered', { reason, status: 'running' });
    const claimed = await store.updateRun(run.runId, run.revision, {}, { events: [event] });
    if (claimed === undefined) continue;
    recovered++;
    try {
      const envelope = openEnvelope(runtime, claimed.run.state ?? '');
      if (envelope.kind === 'hook') {
        // Decided, and the server stopped before it ended: end it now; the host's retry collects the decision.
        void driveRun(runtime, claimed.run, { kind: 'decided', sealed: claimed.run.state!, approvals: await store.listRunDecisions(run.runId) });
        continue;
      }
      // What the run did since its state was sealed: the answers it got (replayed, the model is not asked again) and the calls that began.
      const fromSeq = envelope.kind === 'paused' ? (envelope.seq ?? FIRST_STEP) : FIRST_STEP;
      const journal: RunJournal = {
        steps: await store.listSteps(run.runId, fromSeq),
        calls: new Set((await store.listCalls(run.runId)).map((call) => call.toolCallId)),
        ...(await toldOf(runtime, run.runId)),
      };
      if (journal.steps.length === 0 && [...journal.calls].some((id) => !id.startsWith('tg_')) && envelope.kind === 'messages') {
        // Driven by a toolgate from before answers were recorded: its calls carry the model's ids, which a new answer would not.
        throw new Error('it was started by an earlier toolgate that did not record the model\'s answers, and calls of it had begun: driving it again could run them twice');
      }
      if (envelope.kind === 'messages') {
        void driveRun(runtime, claimed.run, { kind: 'messages', messages: envelope.messages, journal });
        continue;
      }
      void driveRun(runtime, claimed.run, resumeStart(runtime, claimed.run, envelope, await store.listRunDecisions(run.runId), journal));
    } catch (error) {
      const message = `${reason === 'server_restarted' ? 'could not be recovered after a restart' : 'could not be taken over from a server that stopped'}: ${errorText(error)}`;
      await finishRun(runtime, claimed.run, { status: 'failed', error: message }, [runEvent({ run, policy: runtime.policy }, 'run_failed', { status: 'failed', error: message })]);
    }
  }
  if (recovered > 0) runtime.notify();
  return recovered;
}

/**
 * The runs found stranded now that were found stranded, at the same
 * revision, the time before; `sightings` becomes what was found now. A run
 * this server has just claimed (its decision committed, its drive about to
 * start) can look stranded for a moment; one that stayed so for a whole
 * tick of the lease, unmoved, is not being driven by anyone.
 *
 * @example
 * const sightings = new Map<string, number>();
 * strandedTwice([run], sightings); // []
 * strandedTwice([run], sightings); // [run] (if run.revision did not change)
 */
export function strandedTwice(found: readonly StoredRun[], sightings: Map<string, number>): StoredRun[] {
  const confirmed = found.filter((run) => sightings.get(run.runId) === run.revision);
  sightings.clear();
  for (const run of found) sightings.set(run.runId, run.revision);
  return confirmed;
}

/**
 * On a shared store: keeps this server's lease alive (renewed every third of
 * `leaseMs`) and, each time, takes over the runs left behind, by servers
 * that stopped or by this one (`recoverRuns` with `instance_lost`), once a
 * run has looked so on two ticks in a row (`strandedTwice`). A failure (the database away) is
 * logged and tried again at the next tick. Returns how to stop, which ends
 * the lease so that other servers take this one's running runs at once.
 *
 * @example
 * const stop = await keepLeaseAndTakeOver(runtime, 30_000);
 * await stop();
 */
export async function keepLeaseAndTakeOver(runtime: ServerRuntime, leaseMs: number): Promise<() => Promise<void>> {
  const instances = runtime.store.instances;
  if (instances === undefined) return async () => {};
  await instances.renew(leaseMs);
  let busy = false;
  let stopped = false;
  // Runs found stranded at the last tick: one is taken over only when the next finds it so again (`strandedTwice`).
  const sightings = new Map<string, number>();
  const tick = async () => {
    if (busy || stopped) return;
    busy = true;
    try {
      await instances.renew(leaseMs);
      const taken = await recoverRuns(runtime, 'instance_lost', sightings);
      if (taken > 0) runtime.logger.info('took over runs of a server whose lease ran out', { instance: instances.instance, runs: taken });
    } catch (error) {
      runtime.logger.warn('could not renew the lease or look for orphaned runs', { instance: instances.instance, error: errorText(error) });
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), Math.max(100, Math.floor(leaseMs / 3)));
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await instances.release().catch((error: unknown) => runtime.logger.warn('could not end the lease', { instance: instances.instance, error: errorText(error) }));
  };
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
    await resumeDecidedRun(runtime, run, await store.listRunDecisions(run.runId));
    resumed++;
  }
  return resumed;
}

/**
 * What run `runId`'s history tells, read page by page: the keys of its events
 * (`toldKey`), and the calls it reports denied or blocked, with the reason.
 */
async function toldOf(runtime: ServerRuntime, runId: string): Promise<Pick<RunJournal, 'told' | 'refused'>> {
  const told = new Set<string>();
  const refused = new Map<string, string>();
  for (let afterId = 0; ; ) {
    const page = await runtime.store.readEvents({ afterId, runId, limit: TOLD_PAGE });
    for (const event of page) {
      told.add(toldKey(event));
      const { outcome, tool_call_id: id, reason } = event.data;
      if (event.type === 'tool_result' && (outcome === 'denied' || outcome === 'blocked') && typeof id === 'string') refused.set(id, typeof reason === 'string' ? reason : `${String(outcome)} before the run was recovered`);
    }
    if (page.length < TOLD_PAGE) return { told, refused };
    afterId = page[page.length - 1]!.id;
  }
}

const TOLD_PAGE = 500;
