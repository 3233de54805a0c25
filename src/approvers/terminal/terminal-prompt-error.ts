/** Stable codes for why a terminal prompt ended without an answer, or a helper it ran failed. */
export type TerminalPromptErrorCode =
  /** Ctrl-C (or SIGINT) at a prompt: the person wants the run to stop. */
  | 'TERMINAL_INTERRUPTED'
  /** The approval's signal aborted: it timed out or the run was cancelled. */
  | 'TERMINAL_ABORTED'
  /** The terminal went away (end of input, read error) while a prompt was waiting. */
  | 'TERMINAL_INPUT_CLOSED'
  /** No editor is configured, or it could not run or failed. */
  | 'EDITOR_FAILED'
  /** `$PAGER` could not run or failed. */
  | 'PAGER_FAILED';

/**
 * Why a terminal prompt stopped. The approver turns an interruption into a
 * denial that stops the run; every other code rejects the `ask`, which the
 * gate records as a failure (denied, fail closed) or as its own timeout.
 *
 * @example
 * if (error instanceof TerminalPromptError && error.code === 'TERMINAL_INTERRUPTED') process.exitCode = 130;
 */
export class TerminalPromptError extends Error {
  readonly code: TerminalPromptErrorCode;

  constructor(options: { code: TerminalPromptErrorCode; message: string; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TerminalPromptError';
    this.code = options.code;
  }
}
