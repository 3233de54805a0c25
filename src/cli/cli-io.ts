import { openControllingTerminal, type ControllingTerminal } from './open-controlling-terminal.ts';

/**
 * What a CLI command may touch: its streams, environment and working
 * directory. Commands take this instead of reaching for `process`, so tests
 * run them in-process with captured output.
 */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * The program this process was started as (`process.argv0`, absolute where
   * it is a path): one of toolgate's own files when it runs as a hook.
   * Absent: this process's own.
   */
  argv0?: string;
  /**
   * Opens the controlling terminal (/dev/tty) when stdin or stderr is not
   * one. Absent (tests in-process): there is no terminal beyond the streams.
   */
  openTerminal?: () => ControllingTerminal | undefined;
}

/** Exit codes, documented in `toolgate --help`. */
export const EXIT = {
  ok: 0,
  /** `check`: at least one call was blocked or denied. */
  blockedOrDenied: 1,
  usage: 2,
  /** The policy file is missing or invalid. */
  policy: 3,
  /** `check --batch`: some input lines were malformed (the rest still ran). */
  badInput: 4,
  /** `check`: at least one call would ask a person (and nobody answered). */
  asks: 5,
  /** `run`: the model could not be reached, refused the request, or failed mid-answer. */
  model: 6,
  /** Interrupted by Ctrl-C at a prompt. */
  interrupted: 130,
} as const;

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), openTerminal: () => openControllingTerminal() };
}
