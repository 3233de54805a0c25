import { ToolgateError } from '../../../core/errors/toolgate-error.ts';

/**
 * The shell tool would not run a command: it is blocked by the policy, its
 * working directory is not in a zone, or it is not the command a person
 * approved. Nothing ran.
 */
export class ShellCommandRefusedError extends ToolgateError {
  readonly command: string;
  /** Why, one sentence per part of the command line that decided it. */
  readonly reasons: readonly string[];

  constructor(options: { command: string; reasons: readonly string[] }) {
    super({ code: 'SHELL_COMMAND_REFUSED', message: `the command was not run: ${options.reasons.join('; ')}` });
    this.name = 'ShellCommandRefusedError';
    this.command = options.command;
    this.reasons = options.reasons;
  }
}
