import { ToolgateError } from '../../../core/errors/toolgate-error.ts';

/** The shell tool was called with arguments that do not fit `{command, cwd?}`. */
export class ShellInvalidArgumentsError extends ToolgateError {
  /** One line per problem: `command: expected string`. */
  readonly problems: readonly string[];

  constructor(options: { problems: readonly string[] }) {
    super({ code: 'SHELL_INVALID_ARGUMENTS', message: `invalid arguments for shell: ${options.problems.join('; ')}; pass {"command": "...", "cwd": "optional/dir"}` });
    this.name = 'ShellInvalidArgumentsError';
    this.problems = options.problems;
  }
}
