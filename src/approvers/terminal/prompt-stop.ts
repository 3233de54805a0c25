/**
 * How an approval prompt stops: Ctrl-C (a SIGINT, or the key read from the
 * terminal), the approval's signal aborting (it timed out, the run was
 * cancelled), the input ending or failing, or the prompt closing. Each comes
 * to one `TerminalPromptError` on `signal`; the first one wins.
 */
import { TerminalPromptError } from './terminal-prompt-error.ts';
import type { TerminalInput } from './prompt-input.ts';

/** The stopping of one prompt. */
export interface PromptStop {
  /** Aborts, with the `TerminalPromptError` that stopped the prompt as its reason. */
  readonly signal: AbortSignal;
  /** Stops the prompt, unless it already stopped; `onStop` hears of it. */
  stop(error: TerminalPromptError): void;
  /** Stops the prompt as Ctrl-C does. */
  interrupt(): void;
  /** Rejects with the reason once the prompt stops: to race what runs while the terminal is handed over. */
  whenStopped(): Promise<never>;
  /**
   * Starts listening for SIGINT, the approval's signal and the input ending
   * or failing. `'aborted'` when the approval's signal had already aborted
   * (the prompt stopped, nothing listened to); `'ended'` when the input had
   * already ended (the prompt stopped, the listeners on until `unwatch`).
   */
  watch(): 'aborted' | 'ended' | 'watching';
  /** Removes every listener `watch` added. */
  unwatch(): void;
}

/**
 * The stopping of a prompt reading `input` for the approval `signal`.
 * `onStop` is told the error after `signal` aborts, to fail a read still
 * waiting.
 *
 * @example
 * const stops = createPromptStop({ input: process.stdin, signal, onStop: (error) => reader.fail(error) });
 * if (stops.watch() === 'watching') reader.startReading();
 */
export function createPromptStop(options: { input: TerminalInput; signal: AbortSignal; onStop: (error: TerminalPromptError) => void }): PromptStop {
  const { input, signal, onStop } = options;
  const controller = new AbortController();
  let stopped: Promise<never> | undefined;

  const stop = (error: TerminalPromptError): void => {
    if (controller.signal.aborted) return;
    controller.abort(error);
    onStop(error);
  };
  const interrupt = (): void => stop(new TerminalPromptError({ code: 'TERMINAL_INTERRUPTED', message: 'interrupted at the approval prompt' }));
  const onSigint = (): void => interrupt();
  const onAbort = (): void =>
    stop(new TerminalPromptError({ code: 'TERMINAL_ABORTED', message: 'the approval prompt was aborted (it timed out or the run was cancelled)', cause: signal.reason }));
  const onEnd = (): void => stop(new TerminalPromptError({ code: 'TERMINAL_INPUT_CLOSED', message: 'the terminal input closed while waiting for an answer' }));
  const onError = (error: unknown): void =>
    stop(new TerminalPromptError({ code: 'TERMINAL_INPUT_CLOSED', message: 'the terminal input failed while waiting for an answer', cause: error }));

  return {
    signal: controller.signal,
    stop,
    interrupt,
    whenStopped() {
      stopped ??= new Promise<never>((_resolve, reject) => {
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
      });
      stopped.catch(() => undefined);
      return stopped;
    },
    watch() {
      if (signal.aborted) {
        onAbort();
        return 'aborted';
      }
      process.on('SIGINT', onSigint);
      signal.addEventListener('abort', onAbort, { once: true });
      input.on('end', onEnd);
      input.on('close', onEnd);
      input.on('error', onError);
      if ((input as { readableEnded?: boolean }).readableEnded === true) {
        onEnd();
        return 'ended';
      }
      return 'watching';
    },
    unwatch() {
      process.off('SIGINT', onSigint);
      signal.removeEventListener('abort', onAbort);
      input.off('end', onEnd);
      input.off('close', onEnd);
      input.off('error', onError);
    },
  };
}
