import { ToolgateError } from '../../../core/errors/toolgate-error.ts';

/**
 * A filesystem operation inside a zone that cannot be done as asked: the
 * file does not exist, is a directory, is binary, or the destination of a
 * move already exists. The message says what to do instead.
 */
export class FsOperationError extends ToolgateError {
  readonly path: string;

  constructor(options: { path: string; message: string; cause?: unknown }) {
    super({ code: 'FS_OPERATION_FAILED', message: options.message, cause: options.cause });
    this.name = 'FsOperationError';
    this.path = options.path;
  }
}
