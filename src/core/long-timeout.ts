/** The longest delay `setTimeout` honours; longer ones fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * `setTimeout` for any duration: a 30-day approval timeout must wait 30 days,
 * not fire after 1 ms as a plain `setTimeout` of more than 2^31-1 ms does.
 * Returns a function that cancels it.
 *
 * @example
 * const cancel = setLongTimeout(() => deny('timed out'), 30 * 24 * 3600 * 1000);
 */
export function setLongTimeout(callback: () => void, delayMs: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let remaining = Math.max(0, delayMs);
  const schedule = () => {
    const step = Math.min(remaining, MAX_TIMER_MS);
    remaining -= step;
    timer = setTimeout(remaining > 0 ? schedule : callback, step);
  };
  schedule();
  return () => clearTimeout(timer);
}
