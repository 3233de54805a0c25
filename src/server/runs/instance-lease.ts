/**
 * A server's lease on a store that servers share, and the takeover of what
 * nobody drives. Two loops, apart on purpose: the heartbeat renews the lease
 * and does nothing else, so that taking over a hundred runs of a server that
 * died (seconds of work on a busy machine) never lets this server's own lease
 * run out; the takeover loop finds runs nobody drives and decisions nobody
 * resumed, and drives them on.
 */
import { errorText } from './drive-run.ts';
import { findStrandedRuns, recoverRuns, resumeDecidedPauses, strandedTwice } from './recover-runs.ts';
import type { ServerRuntime } from './server-runtime.ts';

/**
 * Renews this server's lease every third of `leaseMs` (a renewal still in
 * flight is not doubled; a failure is logged and tried again at the next
 * beat). Returns how to stop, which ends the lease so that other servers
 * take this one's running runs at once. Nothing to do on a store one server
 * has to itself.
 *
 * @example
 * const stop = await keepLease(runtime, 30_000);
 * await stop();
 */
export async function keepLease(runtime: ServerRuntime, leaseMs: number): Promise<() => Promise<void>> {
  const instances = runtime.store.instances;
  if (instances === undefined) return async () => {};
  await instances.renew(leaseMs);
  const stop = everyThirdOf(leaseMs, async () => {
    await instances.renew(leaseMs).catch((error: unknown) => runtime.logger.warn('could not renew the lease', { instance: instances.instance, error: errorText(error) }));
  });
  return async () => {
    stop();
    await instances.release().catch((error: unknown) => runtime.logger.warn('could not end the lease', { instance: instances.instance, error: errorText(error) }));
  };
}

/**
 * On a shared store, every third of `leaseMs`: takes over the runs left
 * behind, by servers whose lease ran out or by this one (a drive that lost
 * its run when its lease lapsed), and resumes the paused runs whose every
 * call is decided but which nobody resumed (the decider's claim failed: its
 * lease had lapsed, or it stopped in between). Either only once a run has
 * looked so on two looks in a row (`strandedTwice`): a run claimed a moment
 * ago looks the same until its drive starts. Returns how to stop.
 *
 * @example
 * const stop = takeOverStrandedRuns(runtime, 30_000);
 * stop();
 */
export function takeOverStrandedRuns(runtime: ServerRuntime, leaseMs: number): () => void {
  const instances = runtime.store.instances;
  if (instances === undefined) return () => {};
  const running = new Map<string, number>();
  const decided = new Map<string, number>();
  return everyThirdOf(leaseMs, async () => {
    try {
      const taken = await recoverRuns(runtime, strandedTwice(await findStrandedRuns(runtime), running), 'instance_lost');
      if (taken.claimed > 0) runtime.logger.info('took over runs nobody was driving', { instance: instances.instance, runs: taken.claimed });
      const resumed = await resumeDecidedPauses(runtime, strandedTwice(await runtime.store.decidedPausedRuns(), decided));
      if (resumed.claimed > 0) runtime.logger.info('resumed decided runs nobody had resumed', { instance: instances.instance, runs: resumed.claimed });
    } catch (error) {
      runtime.logger.warn('could not look for runs nobody drives', { instance: instances.instance, error: errorText(error) });
    }
  });
}

/**
 * Runs `work` every third of `leaseMs`, never two at once (a beat that
 * finds the last still under way is skipped). Returns how to stop; work
 * under way then ends on its own, and none starts after.
 */
function everyThirdOf(leaseMs: number, work: () => Promise<void>): () => void {
  let busy = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (busy || stopped) return;
    busy = true;
    void work().finally(() => {
      busy = false;
    });
  }, Math.max(100, Math.floor(leaseMs / 3)));
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
