/**
 * An in-memory terminal for approver tests: a TTY-like input that records
 * raw-mode changes, and an output that collects what was written and can
 * wait for text to appear.
 */
import { PassThrough, Writable } from 'node:stream';
import { vi, type Mock } from 'vitest';

export interface FakeTerminal {
  input: PassThrough & { isTTY: boolean; isRaw: boolean; /** A spy; missing (undefined) when created with `raw: false`. */
    setRawMode: Mock<(mode: boolean) => unknown>;
  };
  output: Writable & { isTTY: boolean; columns: number; rows: number };
  /** Everything written so far. */
  text(): string;
  /** Writes what the person types (one chunk: one keypress in raw mode). */
  type(text: string): void;
  /** Resolves when the output written since the last match (colours removed) matches; rejects after `timeoutMs` (default 20 s: a loaded machine is slow, a missing prompt is still caught). */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Starts a new region for `waitFor`, so it ignores what is already on screen. */
  mark(): void;
  /** Listener counts on the input, to prove nothing is left behind. */
  inputListeners(): Record<'data' | 'end' | 'close' | 'error' | 'readable', number>;
}

/**
 * @example
 * const terminal = createFakeTerminal();
 * const decision = approver.ask(request, { signal });
 * await terminal.waitFor('approve?');
 * terminal.type('y');
 */
export function createFakeTerminal(options: { isTTY?: boolean; raw?: boolean; outputTTY?: boolean; columns?: number; rows?: number } = {}): FakeTerminal {
  const input = new PassThrough() as FakeTerminal['input'];
  input.isTTY = options.isTTY ?? true;
  input.isRaw = false;
  if (options.raw !== false) {
    input.setRawMode = vi.fn((mode: boolean): unknown => {
      input.isRaw = mode;
      return input;
    });
  }
  let written = '';
  let markAt = 0;
  const waiters = new Set<() => void>();
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      written += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      for (const waiter of [...waiters]) waiter();
      callback();
    },
  }) as FakeTerminal['output'];
  output.isTTY = options.outputTTY ?? true;
  output.columns = options.columns ?? 80;
  output.rows = options.rows ?? 40;
  return {
    input,
    output,
    text: () => written,
    type: (text) => void input.write(text),
    mark: () => void (markAt = written.length),
    waitFor: (pattern, timeoutMs = 20_000) =>
      new Promise<string>((resolve, reject) => {
        const matches = (): boolean => {
          const region = plain(written.slice(markAt));
          return typeof pattern === 'string' ? region.includes(pattern) : pattern.test(region);
        };
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        const check = (): void => {
          if (!matches()) return;
          done();
          const region = plain(written.slice(markAt));
          markAt = written.length;
          resolve(region);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${String(pattern)}; the output so far:\n${written.slice(markAt)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    inputListeners: () => ({
      data: input.listenerCount('data'),
      end: input.listenerCount('end'),
      close: input.listenerCount('close'),
      error: input.listenerCount('error'),
      readable: input.listenerCount('readable'),
    }),
  };
}

/** Colour (SGR) sequences removed, so tests can wait for text whatever its styling. */
function plain(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}
