/**
 * The settle time of an approval prompt: until it has passed, nothing typed
 * is an answer, since it was typed before the person could see the question
 * (queued by the terminal, even before the process started, or the second
 * press of a double press). It counts the keys it drops and says so on
 * screen, so a `y` pressed early is not mistaken for an answer that was taken.
 */
import type { TerminalOutput } from './prompt-input.ts';

/**
 * Long enough to swallow a double press (`yy`) and keys queued while the
 * question was drawn, short enough that nobody reads a box that fast.
 */
export const DEFAULT_SETTLE_MILLISECONDS = 300;

/** The settle time of one prompt, and the keys dropped in it. */
export interface SettleTime {
  /** Whether the settle time has passed since reading last (re)started. */
  readonly settled: boolean;
  /** Keys dropped and not yet reported. */
  readonly unreported: number;
  /** Counts keys dropped. */
  drop(count: number): void;
  /** Waits out the settle time; resolves with the keys dropped (reported on screen), at once with none when settled. */
  settle(): Promise<{ dropped: number }>;
  /** Starts a new settle time for the next read, unless one is under way. */
  unsettle(): void;
  /** Starts a new settle time, even over one under way: reading (re)started. */
  restart(): void;
}

/**
 * The settle time of a prompt that stops on `stopSignal`. `isReading` says
 * whether the prompt reads the terminal still (when it was handed to an
 * editor meanwhile, the settle time starts again); `onSettled` runs when it
 * has passed, before the dropped keys are reported.
 *
 * @example
 * const settleTime = createSettleTime({ output, stopSignal, milliseconds: 300, droppedBefore: 0, isReading: () => reading, onSettled: () => {} });
 * const { dropped } = await settleTime.settle();
 */
export function createSettleTime(options: {
  output: TerminalOutput;
  stopSignal: AbortSignal;
  milliseconds: number;
  droppedBefore: number;
  isReading: () => boolean;
  onSettled: () => void;
}): SettleTime {
  const { output, stopSignal } = options;
  let settled = false;
  let dropped = options.droppedBefore;
  let settling: Promise<{ dropped: number }> | undefined;

  function settle(): Promise<{ dropped: number }> {
    if (stopSignal.aborted) return Promise.reject(stopSignal.reason);
    if (settled) return Promise.resolve({ dropped: 0 });
    settling ??= new Promise<{ dropped: number }>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let immediate: ReturnType<typeof setImmediate> | undefined;
      const onStop = (): void => {
        clearTimeout(timer);
        if (immediate !== undefined) clearImmediate(immediate);
        reject(stopSignal.reason);
      };
      stopSignal.addEventListener('abort', onStop, { once: true });
      timer = setTimeout(() => {
        // One more turn of the event loop: keys the terminal queued while the loop was busy are read (and dropped) in its poll phase, before this runs.
        immediate = setImmediate(() => {
          stopSignal.removeEventListener('abort', onStop);
          if (!options.isReading()) {
            // Handed to an editor or pager meanwhile: the next read starts a new settle time.
            settling = undefined;
            resolve(settle());
            return;
          }
          settled = true;
          settling = undefined;
          options.onSettled();
          const count = dropped;
          dropped = 0;
          if (count > 0) output.write(`${droppedNotice(count)}\n`);
          resolve({ dropped: count });
        });
      }, options.milliseconds);
    });
    return settling;
  }

  return {
    get settled() {
      return settled;
    },
    get unreported() {
      return dropped;
    },
    drop(count) {
      dropped += count;
    },
    settle,
    unsettle() {
      if (settling !== undefined) return;
      settled = false;
    },
    restart() {
      settled = false;
      settling = undefined;
    },
  };
}

/**
 * What the person is told when keys were dropped, so a `y` they pressed
 * early is not mistaken for an answer that was taken.
 *
 * @example
 * droppedNotice(2) // '⚠ 2 keys typed before this question appeared were ignored: answer now'
 */
export function droppedNotice(count: number): string {
  return `⚠ ${count} ${count === 1 ? 'key' : 'keys'} typed before this question appeared ${count === 1 ? 'was' : 'were'} ignored: answer now`;
}
