import { ToolgateError } from '../../../core/errors/toolgate-error.ts';

/** Arguments that do not match a filesystem tool's schema (unknown keys included). */
export class FsInvalidArgumentsError extends ToolgateError {
  readonly tool: string;
  readonly problems: readonly string[];

  constructor(options: { tool: string; problems: string[] }) {
    super({ code: 'FS_INVALID_ARGUMENTS', message: `invalid arguments for ${options.tool}: ${options.problems.join('; ')}` });
    this.name = 'FsInvalidArgumentsError';
    this.tool = options.tool;
    this.problems = options.problems;
  }
}
