import { PolicyError } from '../core/errors/policy-error.ts';
import { findPolicyFile, loadPolicyFile, type LoadedPolicy } from '../config/load-policy-file.ts';
import type { CliIo } from './cli-io.ts';

/** A mistake in how a command was called: printed with a hint, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Loads `--policy FILE`, or the default policy file in the working directory.
 * Throws `UsageError` when there is neither, `PolicyError` when it is invalid.
 */
export async function loadPolicyOrExplain(options: { policy: string | undefined; io: CliIo }): Promise<LoadedPolicy> {
  const file = options.policy ?? findPolicyFile(options.io.cwd);
  if (file === undefined) {
    throw new UsageError('no policy: pass --policy FILE, or create toolgate.yaml in this directory (see README "The policy file")');
  }
  return loadPolicyFile(file, { cwd: options.io.cwd });
}

export { PolicyError };
