/**
 * Reading a person's answers from the terminal for the length of one
 * approval prompt: single keypresses in raw mode (or whole lines when the
 * terminal cannot go raw), typed reasons, and handing the terminal to an
 * editor or pager. Everything it changes — raw mode, listeners, the SIGINT
 * handler, flowing state — is put back by `close`, whatever ended the prompt.
 * The phases live beside it: what stops the prompt (prompt-stop.ts), reading
 * the terminal (prompt-reader.ts) and waiting out its settle time
 * (prompt-settle.ts), the keys (prompt-keys.ts) and typing a line
 * (prompt-line-editor.ts).
 */
import { lineEditor } from './prompt-line-editor.ts';
import { parseKey, parseLineAsKey, type KeyPress } from './prompt-keys.ts';
import { createKeyReader } from './prompt-reader.ts';
import { DEFAULT_SETTLE_MILLISECONDS } from './prompt-settle.ts';
import { createPromptStop } from './prompt-stop.ts';
import { TerminalPromptError } from './terminal-prompt-error.ts';

export type { KeyPress } from './prompt-keys.ts';
export { DEFAULT_SETTLE_MILLISECONDS, droppedNotice } from './prompt-settle.ts';

/** The input side of a terminal: `process.stdin`, or a fake in tests. */
export type TerminalInput = NodeJS.ReadableStream & {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?: (mode: boolean) => unknown;
};

/** The output side of a terminal: `process.stdout`, or a collector in tests. */
export type TerminalOutput = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };

export interface PromptInput {
  /** Whether keys arrive one by one (raw mode) rather than as lines. */
  readonly raw: boolean;
  /**
   * Waits out the settle time and drops every key that arrived before it
   * ended: keys typed before the prompt was drawn (queued by the terminal
   * while nothing was reading, even before the process started) and in the
   * moment after. Call it after drawing the question and before showing
   * where to answer; returns how many keys were dropped, to say so on screen.
   * Resolves at once when the prompt is already settled.
   */
  settle(): Promise<{ dropped: number }>;
  /** Whether `settle` has finished since reading last (re)started; when true, a read needs no wait. */
  readonly settled: boolean;
  /**
   * Starts a new settle time for the next read: keys already pressed (the
   * second press of a double press, before the question it answers was
   * shown) are dropped, as before the first question.
   */
  unsettle(): void;
  /** Keys dropped since the last settle and not yet reported (pressed after the answer): the next prompt reports them. */
  readonly unreportedKeys: number;
  /** Aborts when the prompt stops (Ctrl-C, SIGINT, the approval's signal, the input closing). */
  readonly stopSignal: AbortSignal;
  /** The next key (raw mode) or the next line read as a key (line mode). */
  readKey(): Promise<KeyPress>;
  /** A line of text with control characters removed; undefined when the person pressed Esc (raw mode). */
  readLine(options: { maxLength: number }): Promise<string | undefined>;
  /** Hands the terminal to `operation` (raw mode off, not reading) and takes it back afterwards. */
  release<T>(operation: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Restores the terminal and removes every listener. Safe to call twice. */
  close(): void;
}

/**
 * Starts reading answers: raw mode on when the input can do it, a SIGINT
 * handler, and listeners for the input ending and the signal aborting. Keys
 * typed before the prompt opened are discarded, so a key meant for
 * something else cannot answer this question. Rejects pending reads with a
 * `TerminalPromptError` when the prompt stops.
 *
 * @example
 * const prompt = openPromptInput({ input: process.stdin, output: process.stdout, signal });
 * try { const key = await prompt.readKey(); } finally { prompt.close(); }
 */
export function openPromptInput(options: OpenPromptInputOptions): PromptInput {
  const { input, output, signal } = options;
  const raw = typeof input.setRawMode === 'function';
  // A stop fails the read waiting: `reader` is made next, and nothing stops before `watch`.
  const stops = createPromptStop({ input, signal, onStop: (error) => reader.fail(error) });
  const reader = createKeyReader({
    input,
    output,
    raw,
    stopSignal: stops.signal,
    interrupt: stops.interrupt,
    settleMilliseconds: nonNegative(options.settleMilliseconds, DEFAULT_SETTLE_MILLISECONDS),
    droppedBefore: nonNegative(options.droppedBefore, 0),
  });
  const { settleTime } = reader;

  const prompt: PromptInput = {
    raw,
    settle: settleTime.settle,
    get settled() {
      return settleTime.settled;
    },
    unsettle: settleTime.unsettle,
    get unreportedKeys() {
      return settleTime.unreported;
    },
    stopSignal: stops.signal,
    readKey: () => reader.wait<KeyPress>((done) => (chunk) => done(raw ? parseKey(chunk) : parseLineAsKey(chunk))),
    readLine: ({ maxLength }) => reader.wait<string | undefined>((done) => lineEditor({ raw, output, maxLength, done })),
    release: async (operation) => {
      if (stops.signal.aborted) throw stops.signal.reason;
      reader.stopReading();
      try {
        return await Promise.race([operation(stops.signal), stops.whenStopped()]);
      } finally {
        if (!stops.signal.aborted) reader.startReading();
      }
    },
    close: () => {
      if (reader.closed) return;
      reader.close();
      stops.unwatch();
      // Wakes a read or a `release` still waiting, so nothing outlives the prompt.
      stops.stop(new TerminalPromptError({ code: 'TERMINAL_ABORTED', message: 'the approval prompt closed' }));
    },
  };

  const watching = stops.watch();
  if (watching === 'aborted') reader.close();
  else if (watching === 'watching') reader.startReading();
  return prompt;
}

export interface OpenPromptInputOptions {
  input: TerminalInput;
  output: TerminalOutput;
  signal: AbortSignal;
  /** How long after the prompt is drawn keys are still dropped (see `settle`). Default 300. */
  settleMilliseconds?: number | undefined;
  /** Keys an earlier prompt dropped after its answer (a second `y`), to report with this prompt's. */
  droppedBefore?: number | undefined;
}

function nonNegative(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}
