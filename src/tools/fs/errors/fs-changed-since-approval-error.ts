import { ToolgateError } from '../../../core/errors/toolgate-error.ts';

/**
 * What was approved is not what would run: the file (or where its path
 * leads) changed after the person saw it. Nothing was changed; calling the
 * tool again shows the person the current state.
 */
export class FsChangedSinceApprovalError extends ToolgateError {
  readonly path: string;
  /** What changed, e.g. `content sha256 1f2e… is now 9a8b…`. */
  readonly detail: string;

  constructor(options: { path: string; tool: string; detail: string }) {
    super({
      code: 'FS_CHANGED_SINCE_APPROVAL',
      message: `${options.path} changed since it was approved (${options.detail}); nothing was changed. Call ${options.tool} again so the person sees the current version`,
    });
    this.name = 'FsChangedSinceApprovalError';
    this.path = options.path;
    this.detail = options.detail;
  }
}
