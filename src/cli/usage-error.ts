/**
 * A mistake in how a command was called: printed with a hint, exit code 2.
 * In a module of its own, so that what only parses a command line (the
 * hook, which must start fast) loads nothing else.
 */
export class UsageError extends Error {
  /** `USAGE`, or the code of Node's argument parser (`ERR_PARSE_ARGS_UNKNOWN_OPTION`) the message explains. */
  readonly code: string;

  constructor(message: string, options: { code?: string } = {}) {
    super(message);
    this.name = 'UsageError';
    this.code = options.code ?? 'USAGE';
  }
}
