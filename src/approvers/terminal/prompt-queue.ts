/**
 * One prompt at a time on one terminal: a later ask waits for the one
 * before it, and gives up waiting (with a `TerminalPromptError`) when its
 * own signal aborts first.
 */
import { TerminalPromptError } from './terminal-prompt-error.ts';

/** The queue of the prompts of one terminal. */
export interface PromptQueue {
  /** Runs `run` once every prompt queued before it has finished; rejects without running it if `signal` aborts first. */
  exclusive<T>(signal: AbortSignal, run: () => Promise<T>): Promise<T>;
}

/**
 * A queue for the prompts of one terminal.
 *
 * @example
 * const queue = createPromptQueue();
 * const decision = await queue.exclusive(signal, () => converse({ plan, prompt, output, env, layout }));
 */
export function createPromptQueue(): PromptQueue {
  let queue: Promise<void> = Promise.resolve();
  return {
    async exclusive<T>(signal: AbortSignal, run: () => Promise<T>): Promise<T> {
      const previous = queue;
      let finished!: () => void;
      const mine = new Promise<void>((resolve) => (finished = resolve));
      queue = previous.then(() => mine);
      try {
        await untilAborted(previous, signal);
        return await run();
      } finally {
        finished();
      }
    },
  };
}

async function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  const aborted = (): TerminalPromptError =>
    new TerminalPromptError({ code: 'TERMINAL_ABORTED', message: 'the approval was aborted while another prompt was open', cause: signal.reason });
  if (signal.aborted) throw aborted();
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => {
        onAbort = () => reject(aborted());
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}
