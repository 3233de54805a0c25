import { ToolgateError } from '../../../core/errors/toolgate-error.ts';

/**
 * A path the filesystem tools will not touch, found at execution time (the
 * approval check turns the same reasons into a block): outside every zone,
 * a symlink out of its zone, a read-only zone, a suffix the zone does not
 * admit, or a path that changed into a symlink between check and use.
 */
export class FsPathRejectedError extends ToolgateError {
  readonly path: string;
  readonly reason: string;

  constructor(options: { path: string; reason: string }) {
    super({ code: 'FS_PATH_REJECTED', message: `refused: ${options.reason}` });
    this.name = 'FsPathRejectedError';
    this.path = options.path;
    this.reason = options.reason;
  }
}
