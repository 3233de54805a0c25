import { ToolgateError } from '../core/errors/toolgate-error.ts';
import type { SandboxDetection } from './detect-sandbox.ts';

/**
 * The policy requires an OS sandbox (`sandbox.os: required`, fallback
 * `fail_fast`) and none can be started here: toolgate must not start. The
 * message says why and what to install; `detection` has the details.
 */
export class SandboxUnavailableError extends ToolgateError {
  readonly reason: string;
  readonly detection: SandboxDetection;

  constructor(options: { detection: SandboxDetection; /** Named in the advice to change it. */ policyFile?: string }) {
    const reason = options.detection.reason ?? 'no OS sandbox is available';
    super({
      code: 'SANDBOX_UNAVAILABLE',
      message:
        `the policy requires an OS sandbox (sandbox.os: required) and none can be started: ${reason}. ` +
        `Fix that, or change the sandbox line ${options.policyFile === undefined ? 'of the policy' : `in ${options.policyFile}`} to \`sandbox: { os: required, fallback: refuse_tools }\` to start without the file and shell tools, ` +
        'or to `sandbox: { os: preferred }` to run them without an OS sandbox. Run `toolgate doctor` for details.',
    });
    this.name = 'SandboxUnavailableError';
    this.reason = reason;
    this.detection = options.detection;
  }
}
