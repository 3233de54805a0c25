/**
 * After a restart (or a crash), runs the store says are `running` are driven
 * on from what was stored: a run that had not paused starts again from its
 * messages; a run that was resuming is resumed again from its signed pause
 * with the stored decisions. Nothing runs twice: every call that started
 * before is in the ledger, and comes back as its stored result or as
 * `interrupted`. Paused runs need nothing: they wait in the store.
 */
import { setTimeout } from 'node:timers/promises';
import type { StoredRun } from '../../store/store.ts';
import { resumeDecidedRun } from './approve-run.ts';
import { driveRun, errorText, finishRun, FIRST_STEP, resumeStart, toldKey, type RunJournal } from './drive-run.ts';
import { runEvent } from './run-events.ts';
import { leftForTakeover } from './left-for-takeover.ts';
import { openEnvelope, type ServerRuntime } from './server-runtime.ts';

/**
 * The `running` runs nobody drives: on a store one server has to itself,
 * every one (it was running when the server stopped); on a shared store
 * (`StoreInstances`), the runs of servers whose lease ran out and this
 * server's own that it is not driving.
 *
 * @example
 * const stranded = await findStrandedRuns(runtime);
 */
export async function findStrandedRuns(runtime: ServerRuntime): Promise<StoredRun[]> {
  const { store } = runtime;
  if (store.instances !== undefined) return (await store.instances.orphanedRuns(1000)).filter((run) => !runtime.active.has(run.runId));
  const stranded: StoredRun[] = [];
  let before: string | undefined;
  do {
    const page = await store.listRuns({ status: 'running', limit: 1000, ...(before === undefined ? {} : { before }) });
    stranded.push(...page.runs);
    before = page.next ?? undefined;
  } while (before !== undefined);
  return stranded;
}

/**
 * What a pass over runs to claim did: how many this server claimed, and
 * the runs whose claim the store failed (busy, away), to try again. A run
 * another server claimed first, or that moved meanwhile, is in neither.
 */
export interface ClaimPass {
  claimed: number;
  retry: StoredRun[];
}

/**
 * Claims and drives `runs` (found by `findStrandedRuns`). Each claim is a
 * compare-and-set, so two servers never recover the same run, and a server
 * that lost its run this way finds every later write of it refused. A run
 * whose history cannot be read now (the database away) stays claimed and
 * undriven, for the next look of the lease's takeover (`leftForTakeover`);
 * one that can never be driven again fails.
 *
 * @example
 * const { claimed, retry } = await recoverRuns(runtime, await findStrandedRuns(runtime), 'server_restarted');
 */
export async function recoverRuns(runtime: ServerRuntime, runs: readonly StoredRun[], reason: 'server_restarted' | 'instance_lost', signal?: AbortSignal): Promise<ClaimPass> {
  const { store } = runtime;
  const pass: ClaimPass = { claimed: 0, retry: [] };
  for (const run of runs) {
    if (signal?.aborted === true) break;
    if (runtime.active.has(run.runId)) continue;
    const event = runEvent({ run, policy: runtime.policy }, 'run_recovered', { reason, status: 'running' });
    let claimed: Awaited<ReturnType<typeof store.updateRun>>;
    try {
      claimed = await store.updateRun(run.runId, run.revision, {}, { events: [event] });
    } catch (error) {
      runtime.logger.warn('could not claim a run to recover it', { run_id: run.runId, error: errorText(error) });
      pass.retry.push(run);
      continue;
    }
    if (claimed === undefined) continue;
    pass.claimed++;
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
      if (leftForTakeover(runtime, error)) {
        runtime.logger.warn('could not read a run to take it over; the next look tries again', { run_id: run.runId, error: errorText(error) });
        continue;
      }
      const message = `${reason === 'server_restarted' ? 'could not be recovered after a restart' : 'could not be taken over from a server that stopped'}: ${errorText(error)}`;
      await finishRun(runtime, claimed.run, { status: 'failed', error: message }, [runEvent({ run, policy: runtime.policy }, 'run_failed', { status: 'failed', error: message })]).catch((failure: unknown) =>
        runtime.logger.error('could not record a run that cannot be recovered as failed', { run_id: run.runId, error: errorText(failure) }),
      );
    }
  }
  if (pass.claimed > 0) runtime.notify();
  return pass;
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
 * Paused runs whose calls were all decided, but which never resumed (the
 * process stopped between the last decision and the resume, or the
 * decider's claim was refused): claimed and resumed now.
 *
 * @example
 * await resumeDecidedPauses(runtime, await runtime.store.decidedPausedRuns());
 */
export async function resumeDecidedPauses(runtime: ServerRuntime, runs: readonly StoredRun[], signal?: AbortSignal): Promise<ClaimPass> {
  const pass: ClaimPass = { claimed: 0, retry: [] };
  for (const run of runs) {
    if (signal?.aborted === true) break;
    try {
      if (await resumeDecidedRun(runtime, run, await runtime.store.listRunDecisions(run.runId))) pass.claimed++;
    } catch (error) {
      runtime.logger.warn('could not claim a decided run to resume it', { run_id: run.runId, error: errorText(error) });
      pass.retry.push(run);
    }
  }
  return pass;
}

/**
 * At a start, in the background: drives on what the last stop left under
 * way (`stranded`, found before the server listened) and resumes the
 * pauses it left decided. The runs whose claim the store failed (busy,
 * away) are tried again every `retryMs` until it takes them or `signal`
 * stops it: a claim is a compare-and-set, so none is claimed twice.
 * Settles with how many runs this server claimed.
 *
 * @example
 * const recovery = recoverLeftovers({ runtime, stranded, decided, signal });
 */
export async function recoverLeftovers(options: {
  runtime: ServerRuntime;
  stranded: readonly StoredRun[];
  decided: readonly StoredRun[];
  signal: AbortSignal;
  retryMs?: number;
}): Promise<number> {
  const { runtime, signal } = options;
  const found = options.stranded.length + options.decided.length;
  let { stranded, decided } = options;
  let recovered = 0;
  for (;;) {
    const runs = await recoverRuns(runtime, stranded, 'server_restarted', signal);
    const pauses = await resumeDecidedPauses(runtime, decided, signal);
    recovered += runs.claimed + pauses.claimed;
    stranded = runs.retry;
    decided = pauses.retry;
    const left = stranded.length + decided.length;
    if (left === 0 || signal.aborted) break;
    runtime.logger.error('could not claim runs the last stop left under way; trying again', { runs: left });
    await setTimeout(options.retryMs ?? 2000, undefined, { signal }).catch(() => undefined);
  }
  if (found > 0) runtime.logger.info('recovered', { recovered, of: found });
  return recovered;
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
