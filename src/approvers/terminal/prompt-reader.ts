/**
 * Reading the terminal for an approval prompt: raw mode on while it reads
 * (when the input can go raw), keys typed ahead discarded, chunks handed to
 * the one read waiting (keys in raw mode, whole lines otherwise), and the
 * terminal put back as it was (raw mode, flowing state) when it stops
 * reading: to hand the terminal to an editor, or for good. Keys that arrive
 * before the settle time has passed, or while nothing is asked, are dropped.
 */
import { StringDecoder } from 'node:string_decoder';
import { countKeys } from './prompt-keys.ts';
import { createSettleTime, type SettleTime } from './prompt-settle.ts';
import type { TerminalInput, TerminalOutput } from './prompt-input.ts';

/** The reading of one prompt. */
export interface KeyReader {
  /** The prompt's settle time: reads wait it out. */
  readonly settleTime: SettleTime;
  /** Whether the prompt closed: it reads no more. */
  readonly closed: boolean;
  /** Starts reading (a new settle time first), unless reading already or closed. */
  startReading(): void;
  /** Stops reading and puts the terminal back as it was. */
  stopReading(): void;
  /** Stops reading for good. */
  close(): void;
  /** Waits out the settle time, then feeds the chunks (raw mode) or lines read to `makeFeed`'s feed until it calls `done`. One read at a time. */
  wait<T>(makeFeed: (done: (value: T) => void) => (chunk: string) => void): Promise<T>;
  /** Fails the read waiting, if one is. */
  fail(error: unknown): void;
}

/**
 * The reading of `input` for a prompt that stops on `stopSignal`; Ctrl-C
 * read from the terminal calls `interrupt`.
 *
 * @example
 * const reader = createKeyReader({ input, output, raw: true, stopSignal, interrupt, settleMilliseconds: 300, droppedBefore: 0 });
 * reader.startReading();
 * const key = await reader.wait<string>((done) => (chunk) => done(chunk));
 */
export function createKeyReader(options: {
  input: TerminalInput;
  output: TerminalOutput;
  raw: boolean;
  stopSignal: AbortSignal;
  interrupt: () => void;
  settleMilliseconds: number;
  droppedBefore: number;
}): KeyReader {
  const { input, raw, stopSignal } = options;
  const wasRaw = input.isRaw === true;
  const wasFlowing = (input as { readableFlowing?: boolean | null }).readableFlowing === true;
  const decoder = new StringDecoder('utf8');
  let waiter: { feed(chunk: string): void; fail(error: unknown): void } | undefined;
  let lineBuffer = '';
  let reading = false;
  let rawOn = false;
  let closed = false;
  const settleTime = createSettleTime({
    output: options.output,
    stopSignal,
    milliseconds: options.settleMilliseconds,
    droppedBefore: options.droppedBefore,
    isReading: () => reading,
    onSettled: () => {
      lineBuffer = '';
    },
  });

  const onData = (data: Buffer | string): void => {
    const chunk = typeof data === 'string' ? data : decoder.write(data);
    if (chunk === '') return;
    // Ctrl-C wins wherever it is in a chunk: the person wants out, whatever else was typed.
    if (chunk.includes('\x03')) return options.interrupt();
    if (!settleTime.settled) {
      settleTime.drop(countKeys(chunk));
      return;
    }
    if (raw) {
      // A key pressed while nothing is asked is dropped: it was not an answer to the next question (the next prompt says so).
      if (waiter === undefined) settleTime.drop(countKeys(chunk));
      else waiter.feed(chunk);
      return;
    }
    lineBuffer += chunk;
    deliverLines();
  };

  function deliverLines(): void {
    let newline = lineBuffer.indexOf('\n');
    while (waiter !== undefined && newline !== -1) {
      const line = lineBuffer.slice(0, newline);
      lineBuffer = lineBuffer.slice(newline + 1);
      waiter.feed(line);
      newline = lineBuffer.indexOf('\n');
    }
  }

  function discardTypeahead(): void {
    if ((input as { readableFlowing?: boolean | null }).readableFlowing === true) return;
    try {
      for (let chunk = input.read(); chunk !== null; chunk = input.read()) {
        settleTime.drop(countKeys(typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer)));
      }
    } catch {
      // Nothing buffered that could be read.
    }
  }

  function startReading(): void {
    if (reading || closed) return;
    // Whatever was typed while this prompt was not reading (an editor, a pager, before it opened) must wait out a new settle time.
    settleTime.restart();
    discardTypeahead();
    input.on('data', onData);
    if (raw) {
      input.setRawMode!(true);
      rawOn = true;
    }
    input.resume();
    reading = true;
  }

  function stopReading(): void {
    if (rawOn) {
      rawOn = false;
      try {
        input.setRawMode!(wasRaw);
      } catch {
        // A terminal that is already gone has no mode to restore.
      }
    }
    if (!reading) return;
    reading = false;
    input.off('data', onData);
    // Paused, the terminal's keys go to whoever reads next (an editor), and the process can exit.
    if (!wasFlowing) input.pause();
  }

  async function wait<T>(makeFeed: (done: (value: T) => void) => (chunk: string) => void): Promise<T> {
    // A read nobody settled first (a question asked right after an editor closed) settles now: typed-ahead keys never answer.
    if (!settleTime.settled) await settleTime.settle();
    if (stopSignal.aborted) throw stopSignal.reason;
    if (waiter !== undefined) return Promise.reject(new Error('the prompt reads one answer at a time'));
    return new Promise<T>((resolve, reject) => {
      const feed = makeFeed((value) => {
        waiter = undefined;
        resolve(value);
      });
      waiter = { feed, fail: reject };
      if (!raw) deliverLines();
    });
  }

  return {
    settleTime,
    get closed() {
      return closed;
    },
    startReading,
    stopReading,
    close() {
      stopReading();
      closed = true;
    },
    wait,
    fail(error) {
      const current = waiter;
      waiter = undefined;
      current?.fail(error);
    },
  };
}
