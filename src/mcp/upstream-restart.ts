/**
 * When an upstream server that stopped is started again: after a delay
 * that doubles with each failure up to a longest one, starting over from
 * the first once the server had run long enough to count as stable. The
 * timer never keeps a finished process alive.
 */
import type { RestartPolicy } from './upstream-connection.ts';

export interface RestartBackoff {
  /** The server is ready now: a stop after `stableAfterMs` from here starts over from the first delay. */
  ready(): void;
  /** The server stopped; forgets earlier failures if it had been stable. */
  stopped(): void;
  /** Runs `attempt` after the next delay, unless one is already waiting; false when one was. */
  schedule(attempt: () => void): boolean;
  /** Whole seconds until the waiting attempt (0 when none waits). */
  secondsToNext(): number;
  /** Cancels a waiting attempt. */
  cancel(): void;
}

/**
 * The backoff of one connection.
 *
 * @example
 * const backoff = createRestartBackoff({ initialDelayMs: 500 });
 * backoff.schedule(() => void connect());
 */
export function createRestartBackoff(policy: RestartPolicy | undefined): RestartBackoff {
  const initialDelayMs = policy?.initialDelayMs ?? 500;
  const maxDelayMs = policy?.maxDelayMs ?? 30_000;
  const stableAfterMs = policy?.stableAfterMs ?? 30_000;
  let readyAt = 0;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  let nextAttemptAt = 0;
  return {
    ready: () => {
      readyAt = Date.now();
    },
    stopped: () => {
      if (readyAt > 0 && Date.now() - readyAt >= stableAfterMs) failures = 0;
    },
    schedule: (attempt) => {
      if (timer !== undefined) return false;
      const delay = Math.min(initialDelayMs * 2 ** failures, maxDelayMs);
      failures += 1;
      nextAttemptAt = Date.now() + delay;
      timer = setTimeout(() => {
        timer = undefined;
        attempt();
      }, delay);
      // A pending restart must not keep a finished process alive.
      timer.unref();
      return true;
    },
    secondsToNext: () => Math.max(0, Math.ceil((nextAttemptAt - Date.now()) / 1000)),
    cancel: () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
