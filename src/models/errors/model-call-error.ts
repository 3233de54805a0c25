import { ToolgateError } from '../../core/errors/toolgate-error.ts';

/** Why a model call failed: the server could not be reached, it refused the request, or the answer broke off. */
export type ModelCallErrorCode = 'MODEL_UNREACHABLE' | 'MODEL_REQUEST_FAILED' | 'MODEL_STREAM_FAILED';

/**
 * A model that could not be used once the run had started. `message` is one
 * line (provider, model, URL, what failed); `hint` is one line saying what to
 * do. The original error stays in `cause`, for `--debug`.
 */
export class ModelCallError extends ToolgateError {
  override readonly code: ModelCallErrorCode;
  readonly provider: string;
  readonly modelId: string;
  /** The endpoint that was called, when known. */
  readonly url: string | undefined;
  /** The HTTP status the server answered with, when it answered. */
  readonly statusCode: number | undefined;
  readonly hint: string;

  constructor(options: { code: ModelCallErrorCode; message: string; hint: string; provider: string; modelId: string; url?: string; statusCode?: number; cause: unknown }) {
    super({ code: options.code, message: options.message, cause: options.cause });
    this.name = 'ModelCallError';
    this.code = options.code;
    this.provider = options.provider;
    this.modelId = options.modelId;
    this.url = options.url;
    this.statusCode = options.statusCode;
    this.hint = options.hint;
  }
}
