/**
 * Reading a person's answers from the terminal for the length of one
 * approval prompt: single keypresses in raw mode (or whole lines when the
 * terminal cannot go raw), typed reasons, and handing the terminal to an
 * editor or pager. Everything it changes — raw mode, listeners, the SIGINT
 * handler, flowing state — is put back by `close`, whatever ended the prompt.
 */
import { StringDecoder } from 'node:string_decoder';
import { displayWidth, sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { TerminalPromptError } from './terminal-prompt-error.ts';

/** The input side of a terminal: `process.stdin`, or a fake in tests. */
export type TerminalInput = NodeJS.ReadableStream & {
  isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?: (mode: boolean) => unknown;
};

/** The output side of a terminal: `process.stdout`, or a collector in tests. */
export type TerminalOutput = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };

/** One key as the prompts see it. */
export type KeyPress =
  | { kind: 'character'; character: string }
  | { kind: 'enter' }
  | { kind: 'escape' }
  | { kind: 'backspace' }
  /** Several characters at once: a paste, or a word typed in line mode. Never taken as an answer. */
  | { kind: 'text'; text: string }
  /** Arrow and function keys, other control keys. */
  | { kind: 'other' };

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
  const settleMilliseconds = nonNegative(options.settleMilliseconds, DEFAULT_SETTLE_MILLISECONDS);
  const raw = typeof input.setRawMode === 'function';
  const wasRaw = input.isRaw === true;
  const wasFlowing = (input as { readableFlowing?: boolean | null }).readableFlowing === true;
  const decoder = new StringDecoder('utf8');
  const stopController = new AbortController();
  let stopped: Promise<never> | undefined;
  let waiter: { feed(chunk: string): void; fail(error: unknown): void } | undefined;
  let lineBuffer = '';
  let reading = false;
  let rawOn = false;
  let closed = false;
  // Until settled, nothing typed is an answer: it was typed before the person could see the question.
  let settled = false;
  let dropped = nonNegative(options.droppedBefore, 0);
  let settling: Promise<{ dropped: number }> | undefined;

  const stop = (error: TerminalPromptError): void => {
    if (stopController.signal.aborted) return;
    stopController.abort(error);
    const current = waiter;
    waiter = undefined;
    current?.fail(error);
  };
  const interrupted = (): TerminalPromptError => new TerminalPromptError({ code: 'TERMINAL_INTERRUPTED', message: 'interrupted at the approval prompt' });
  const onSigint = (): void => stop(interrupted());
  const onAbort = (): void =>
    stop(new TerminalPromptError({ code: 'TERMINAL_ABORTED', message: 'the approval prompt was aborted (it timed out or the run was cancelled)', cause: signal.reason }));
  const onEnd = (): void => stop(new TerminalPromptError({ code: 'TERMINAL_INPUT_CLOSED', message: 'the terminal input closed while waiting for an answer' }));
  const onError = (error: unknown): void =>
    stop(new TerminalPromptError({ code: 'TERMINAL_INPUT_CLOSED', message: 'the terminal input failed while waiting for an answer', cause: error }));
  const onData = (data: Buffer | string): void => {
    const chunk = typeof data === 'string' ? data : decoder.write(data);
    if (chunk === '') return;
    // Ctrl-C wins wherever it is in a chunk: the person wants out, whatever else was typed.
    if (chunk.includes('\x03')) return stop(interrupted());
    if (!settled) {
      dropped += countKeys(chunk);
      return;
    }
    if (raw) {
      // A key pressed while nothing is asked is dropped: it was not an answer to the next question (the next prompt says so).
      if (waiter === undefined) dropped += countKeys(chunk);
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

  function startReading(): void {
    if (reading || closed) return;
    // Whatever was typed while this prompt was not reading (an editor, a pager, before it opened) must wait out a new settle time.
    settled = false;
    settling = undefined;
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

  function discardTypeahead(): void {
    if ((input as { readableFlowing?: boolean | null }).readableFlowing === true) return;
    try {
      for (let chunk = input.read(); chunk !== null; chunk = input.read()) {
        dropped += countKeys(typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer));
      }
    } catch {
      // Nothing buffered that could be read.
    }
  }

  async function wait<T>(makeFeed: (done: (value: T) => void) => (chunk: string) => void): Promise<T> {
    // A read nobody settled first (a question asked right after an editor closed) settles now: typed-ahead keys never answer.
    if (!settled) await settle();
    if (stopController.signal.aborted) throw stopController.signal.reason;
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

  function erase(width: number): void {
    if (width > 0) output.write(`${'\b'.repeat(width)}${' '.repeat(width)}${'\b'.repeat(width)}`);
  }

  function settle(): Promise<{ dropped: number }> {
    if (stopController.signal.aborted) return Promise.reject(stopController.signal.reason);
    if (settled) return Promise.resolve({ dropped: 0 });
    settling ??= new Promise<{ dropped: number }>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let immediate: ReturnType<typeof setImmediate> | undefined;
      const onStop = (): void => {
        clearTimeout(timer);
        if (immediate !== undefined) clearImmediate(immediate);
        reject(stopController.signal.reason);
      };
      stopController.signal.addEventListener('abort', onStop, { once: true });
      timer = setTimeout(() => {
        // One more turn of the event loop: keys the terminal queued while the loop was busy are read (and dropped) in its poll phase, before this runs.
        immediate = setImmediate(() => {
          stopController.signal.removeEventListener('abort', onStop);
          if (!reading) {
            // Handed to an editor or pager meanwhile: the next read starts a new settle time.
            settling = undefined;
            resolve(settle());
            return;
          }
          settled = true;
          settling = undefined;
          lineBuffer = '';
          const count = dropped;
          dropped = 0;
          if (count > 0) output.write(`${droppedNotice(count)}\n`);
          resolve({ dropped: count });
        });
      }, settleMilliseconds);
    });
    return settling;
  }

  const prompt: PromptInput = {
    raw,
    settle,
    get settled() {
      return settled;
    },
    unsettle() {
      if (settling !== undefined) return;
      settled = false;
    },
    get unreportedKeys() {
      return dropped;
    },
    stopSignal: stopController.signal,
    readKey: () => wait<KeyPress>((done) => (chunk) => done(raw ? parseKey(chunk) : parseLineAsKey(chunk))),
    readLine: ({ maxLength }) =>
      wait<string | undefined>((done) => {
        if (!raw) return (line) => done(Array.from(stripControls(line)).slice(0, maxLength).join(''));
        const characters: string[] = [];
        return (chunk) => {
          if (chunk === '\x1b') {
            output.write('\n');
            return done(undefined);
          }
          // Arrow and function keys: no line editing beyond backspace.
          if (chunk.startsWith('\x1b')) return;
          for (const character of chunk) {
            if (character === '\r' || character === '\n') {
              output.write('\n');
              return done(characters.join(''));
            }
            if (character === '\x7f' || character === '\b') {
              const last = characters.pop();
              if (last !== undefined) erase(echoWidth(last));
            } else if (character === '\x15') {
              while (characters.length > 0) erase(echoWidth(characters.pop()!));
            } else if (!CONTROL.test(character) && characters.length < maxLength) {
              characters.push(character);
              output.write(echoOf(character));
            }
          }
        };
      }),
    release: async (operation) => {
      if (stopController.signal.aborted) throw stopController.signal.reason;
      stopReading();
      try {
        stopped ??= new Promise<never>((_resolve, reject) => {
          stopController.signal.addEventListener('abort', () => reject(stopController.signal.reason), { once: true });
        });
        stopped.catch(() => undefined);
        return await Promise.race([operation(stopController.signal), stopped]);
      } finally {
        if (!stopController.signal.aborted) startReading();
      }
    },
    close: () => {
      if (closed) return;
      stopReading();
      closed = true;
      process.off('SIGINT', onSigint);
      signal.removeEventListener('abort', onAbort);
      input.off('end', onEnd);
      input.off('close', onEnd);
      input.off('error', onError);
      // Wakes a read or a `release` still waiting, so nothing outlives the prompt.
      stop(new TerminalPromptError({ code: 'TERMINAL_ABORTED', message: 'the approval prompt closed' }));
    },
  };

  if (signal.aborted) {
    onAbort();
    closed = true;
    return prompt;
  }
  process.on('SIGINT', onSigint);
  signal.addEventListener('abort', onAbort, { once: true });
  input.on('end', onEnd);
  input.on('close', onEnd);
  input.on('error', onError);
  if ((input as { readableEnded?: boolean }).readableEnded === true) onEnd();
  else startReading();
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

/**
 * Long enough to swallow a double press (`yy`) and keys queued while the
 * question was drawn, short enough that nobody reads a box that fast.
 */
export const DEFAULT_SETTLE_MILLISECONDS = 300;

function nonNegative(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
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

/** Keys in a chunk: an escape sequence (an arrow key) counts as one, every other character as one. */
function countKeys(chunk: string): number {
  const withoutSequences = chunk.replace(/\x1b\[[0-?]*[ -\/]*[@-~]|\x1bO./g, '\x1b');
  return Array.from(withoutSequences).length;
}

/** C0 controls, DEL and C1 controls: never part of a typed answer. */
const CONTROL = /\p{Cc}/u;
const CONTROLS = /\p{Cc}/gu;

function stripControls(text: string): string {
  return text.replace(CONTROLS, '');
}

/** What a typed character looks like on screen: escaped if hidden; combining marks are not echoed on their own. */
function echoOf(character: string): string {
  const shown = sanitizeTerminalText(character);
  return displayWidth(shown) === 0 ? '' : shown;
}

function echoWidth(character: string): number {
  return displayWidth(echoOf(character));
}

function parseKey(chunk: string): KeyPress {
  if (chunk === '\r' || chunk === '\n' || chunk === '\r\n') return { kind: 'enter' };
  if (chunk === '\x1b') return { kind: 'escape' };
  if (chunk.startsWith('\x1b')) return { kind: 'other' };
  if (chunk === '\x7f' || chunk === '\b') return { kind: 'backspace' };
  const characters = Array.from(chunk);
  if (characters.length > 1) return { kind: 'text', text: chunk };
  return CONTROL.test(chunk) ? { kind: 'other' } : { kind: 'character', character: chunk };
}

function parseLineAsKey(line: string): KeyPress {
  const text = line.replace(/\r$/, '').trim();
  if (text === '') return { kind: 'enter' };
  if (text === '\x1b') return { kind: 'escape' };
  return parseKey(text);
}
