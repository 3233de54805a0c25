import { ToolgateError } from '../../../core/errors/toolgate-error.ts';

/**
 * A call the ledger says started before (in this process or another, before
 * a crash or a restart) was asked to run again. It is not run a second time:
 * whether its first run completed is unknown, so the model is told it was
 * interrupted and may check for itself.
 */
export class AiSdkCallInterruptedError extends ToolgateError {
  readonly tool: string;
  readonly toolCallId: string;

  constructor(options: { tool: string; toolCallId: string }) {
    super({
      code: 'AI_SDK_CALL_INTERRUPTED',
      message: `${options.tool} (tool call ${JSON.stringify(options.toolCallId)}) was interrupted: it may have completed. It started before the run was stopped (a crash or a restart) and was not run again, so it may or may not have taken effect; check before trying it again`,
    });
    this.name = 'AiSdkCallInterruptedError';
    this.tool = options.tool;
    this.toolCallId = options.toolCallId;
  }
}
