/**
 * Shared setup for the terminal approver's tests: a fresh fake terminal per
 * test, checks that each test leaves no listener or raw mode behind, and a
 * driver that asks and then types answers as the prompts appear.
 */
import { afterEach, beforeEach, expect } from 'vitest';
import type { PresentedRequest } from '../src/core/approver.ts';
import type { ApprovalDecision, Presentation } from '../src/core/types.ts';
import { createTerminalApprover, type TerminalApproverOptions } from '../src/approvers/terminal/terminal-approver.ts';
import { createFakeTerminal, type FakeTerminal } from './fake-terminal.ts';

/** A step of a conversation: text to type (one chunk, one keypress in raw mode), or text to wait for. */
export type Step = string | { wait: string | RegExp };

/** C0 (but tab, newline), DEL, C1, bidi controls and zero-width characters. */
export const UNSAFE = /[\x00-\x07\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b-\u200f]/u;

export function presentedRequest(overrides: Partial<PresentedRequest> & { presentation?: Presentation | undefined } = {}): PresentedRequest {
  const tool = overrides.tool ?? 'write_file';
  return {
    tool,
    description: 'Edit notes/report.md',
    payload: { path: 'notes/report.md' },
    required: true,
    presentation: { type: 'diff', content: '@@ -1,2 +1,2 @@\n # Weekly Report\n-## Summary\n+## Executive Summary\n' },
    call: { tool, args: { path: 'notes/report.md', content: 'hello' }, callId: 'call-1' },
    context: { sessionId: 'session-1' },
    ...overrides,
  };
}

export function withoutColour(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

/**
 * Nothing but printable text, newlines, colour (SGR) sequences and the
 * approver's own line clearing (`\r`, spaces, `\r`) and backspace erasing.
 */
export function expectTerminalSafe(text: string): void {
  const rest = withoutColour(text).replace(/\r *\r/g, '').replace(/(\x08+) +\1/g, '');
  expect(rest).not.toContain('\x1b');
  expect(rest).not.toMatch(UNSAFE);
  expect(rest).not.toContain('\r');
  expect(rest).not.toContain('\b');
}

/**
 * Registers the per-test setup and checks; call once at the top of a test file.
 *
 * @example
 * const harness = useTerminalApproverHarness();
 * expect(await harness.answer(['y'])).toEqual({ approved: true, scope: 'once' });
 */
export function useTerminalApproverHarness() {
  let terminal = createFakeTerminal();
  let sigintListeners = 0;
  beforeEach(() => {
    terminal = createFakeTerminal();
    sigintListeners = process.listenerCount('SIGINT');
  });
  afterEach(() => {
    // Every test leaves the terminal as it found it.
    expect(process.listenerCount('SIGINT')).toBe(sigintListeners);
    expect(terminal.inputListeners().data).toBe(0);
    expect(terminal.input.isRaw).toBe(false);
  });
  const harness = {
    get terminal(): FakeTerminal {
      return terminal;
    },
    get sigintListeners(): number {
      return sigintListeners;
    },
    /** Replaces this test's terminal (not a TTY, no raw mode, other sizes). */
    useTerminal(options: Parameters<typeof createFakeTerminal>[0]): FakeTerminal {
      terminal = createFakeTerminal(options);
      return terminal;
    },
    /** What the person sees: the output without colour sequences (any other escape stays, and fails the checks). */
    screen: (): string => withoutColour(terminal.text()),
    approver: (options: Partial<TerminalApproverOptions> = {}) => createTerminalApprover({ input: terminal.input, output: terminal.output, env: {}, ...options }),
    /** Plays `steps` after the prompt appears. */
    play: async (steps: readonly Step[]): Promise<void> => {
      for (const step of steps) {
        if (typeof step === 'string') terminal.type(step);
        else await terminal.waitFor(step.wait);
      }
    },
    /** Asks one request, waits for the prompt, then plays `steps`. */
    answer: async (steps: readonly Step[], options: Partial<TerminalApproverOptions> & { request?: PresentedRequest } = {}): Promise<ApprovalDecision> => {
      const decision = harness.approver(options).ask(options.request ?? presentedRequest(), { signal: new AbortController().signal });
      await terminal.waitFor('approve? [');
      await harness.play(steps);
      return decision;
    },
  };
  return harness;
}
