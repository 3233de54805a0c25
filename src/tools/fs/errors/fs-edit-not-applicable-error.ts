import { ToolgateError } from '../../../core/errors/toolgate-error.ts';

/**
 * An `edit_file` whose `old_string` does not occur exactly once. The message
 * tells the model how to fix the call.
 */
export class FsEditNotApplicableError extends ToolgateError {
  readonly path: string;
  /** How many times `old_string` occurs: 0, or more than 1. */
  readonly matches: number;

  constructor(options: { path: string; matches: number }) {
    const message =
      options.matches === 0
        ? `old_string was not found in ${options.path}; read the file and copy the exact text to replace, including whitespace and line breaks`
        : `old_string occurs ${options.matches} times in ${options.path}; include more surrounding lines in old_string so it matches exactly once`;
    super({ code: 'FS_EDIT_NOT_APPLICABLE', message });
    this.name = 'FsEditNotApplicableError';
    this.path = options.path;
    this.matches = options.matches;
  }
}
