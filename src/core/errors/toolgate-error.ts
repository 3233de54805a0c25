/** Stable codes: callers switch on these, never on messages. */
export type ToolgateErrorCode =
  | 'POLICY_INVALID'
  | 'POLICY_NOT_FOUND'
  | 'POLICY_EXAMPLE_FAILED'
  | 'MCP_UPSTREAM_UNAVAILABLE'
  | 'MCP_UPSTREAM_FAILED'
  | 'MCP_UPSTREAM_TIMEOUT'
  | 'APPROVAL_CHECK_FAILED'
  | 'APPROVALS_FILE_INVALID'
  | 'APPROVALS_FILE_LOCKED'
  | 'AUDIT_WRITE_FAILED'
  | 'AUDIT_LOG_INVALID'
  | 'USAGE'
  | 'FS_PATH_REJECTED'
  | 'FS_CHANGED_SINCE_APPROVAL'
  | 'FS_EDIT_NOT_APPLICABLE'
  | 'FS_OPERATION_FAILED'
  | 'FS_INVALID_ARGUMENTS'
  | 'SANDBOX_UNAVAILABLE'
  | 'SANDBOX_PROFILE_INVALID'
  | 'SHELL_INVALID_ARGUMENTS'
  | 'SHELL_COMMAND_REFUSED'
  | 'AI_SDK_CALL_NOT_AUTHORIZED'
  | 'AI_SDK_CALL_INTERRUPTED'
  | 'AI_SDK_RUN_STATE_INVALID'
  | 'AI_SDK_DECISION_INVALID'
  | 'SCRIPT_INVALID'
  | 'SCRIPT_NOT_FOUND'
  | 'SCRIPT_EXHAUSTED'
  | 'MODEL_CONFIG_INVALID'
  | 'MODEL_NOT_CHOSEN'
  | 'MODEL_UNREACHABLE'
  | 'MODEL_REQUEST_FAILED'
  | 'MODEL_STREAM_FAILED';

/**
 * The base of every error toolgate throws on purpose. `code` is stable;
 * `message` says what happened and what to do about it.
 */
export class ToolgateError extends Error {
  readonly code: ToolgateErrorCode;

  constructor(options: { code: ToolgateErrorCode; message: string; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolgateError';
    this.code = options.code;
  }
}
