import { AISDKError, APICallError, RetryError } from 'ai';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { ModelCallError } from './errors/model-call-error.ts';

/** Which model was called: enough to name it, its server and the settings that choose them. */
export interface ModelCallTarget {
  provider: string;
  modelId: string;
  baseUrl: string | undefined;
}

/** What a person sets to change each provider's key and server. */
const SETTINGS: Record<string, { key: string; url: string }> = {
  openai: { key: 'OPENAI_API_KEY', url: '--base-url or OPENAI_BASE_URL' },
  anthropic: { key: 'ANTHROPIC_API_KEY', url: '--base-url or ANTHROPIC_BASE_URL' },
  'openai-compatible': { key: 'OPENAI_COMPATIBLE_API_KEY', url: '--base-url, TOOLGATE_BASE_URL or OPENAI_COMPATIBLE_BASE_URL' },
};

const STREAM_HINT = 'the run stopped there; tool calls approved before it have run (see toolgate audit). Run again, or add --debug for the full error.';

/** Node's and undici's network error codes, in words a person recognises. */
const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
};

/**
 * Turns what the AI SDK throws when a model cannot be used (the server is
 * down, the key is wrong, the stream broke off) into a `ModelCallError`
 * whose message is one line naming the provider, model and URL and what
 * failed, and whose `hint` says what to do. Returns undefined for anything
 * that is not a model failure (a toolgate error, a bug), which the caller
 * reports as it is.
 *
 * @example
 * const failure = modelCallErrorFrom({ error, target: { provider: 'openai-compatible', modelId: 'llama3.2', baseUrl: 'http://localhost:11434/v1' } });
 * // failure.message: 'cannot reach the openai-compatible model "llama3.2" at http://localhost:11434/v1/chat/completions: connection refused (tried 3 times)'
 */
export function modelCallErrorFrom(options: { error: unknown; target: ModelCallTarget }): ModelCallError | undefined {
  const { target } = options;
  let error = options.error;
  let attempts = 1;
  if (RetryError.isInstance(error)) {
    attempts = error.errors.length;
    error = error.lastError;
  }
  if (error instanceof ToolgateError) return undefined;
  const settings = SETTINGS[target.provider] ?? { key: 'the API key', url: '--base-url' };
  const name = `the ${target.provider} model "${target.modelId}"`;
  const tried = attempts > 1 ? ` (tried ${attempts} times)` : '';
  if (APICallError.isInstance(error)) {
    const url = error.url || target.baseUrl;
    const at = url === undefined ? '' : ` at ${url}`;
    if (error.statusCode === undefined) {
      const hint =
        target.provider === 'openai-compatible'
          ? `is the server running (Ollama: ollama serve)? Its URL comes from ${settings.url}.`
          : `check the network connection, or ${settings.url} if you use a proxy.`;
      return new ModelCallError({ code: 'MODEL_UNREACHABLE', message: `cannot reach ${name}${at}: ${networkReason(error)}${tried}`, hint, ...common(target, url, options.error) });
    }
    const status = error.statusCode;
    if (status >= 200 && status < 300) {
      // The server said yes, then the answer broke off (the SDK wraps the dropped body in a 200).
      const detail = streamFailure(error.cause) ?? oneLine(error.message);
      return new ModelCallError({ code: 'MODEL_STREAM_FAILED', message: `${name}${at} failed while answering: ${detail}`, hint: STREAM_HINT, statusCode: status, ...common(target, url, options.error) });
    }
    return new ModelCallError({
      code: 'MODEL_REQUEST_FAILED',
      message: `${name}${at} answered HTTP ${status}: ${oneLine(error.message)}${tried}`,
      hint: statusHint(status, settings),
      statusCode: status,
      ...common(target, url, options.error),
    });
  }
  const detail = streamFailure(error);
  if (detail === undefined) return undefined;
  return new ModelCallError({
    code: 'MODEL_STREAM_FAILED',
    message: `${name}${target.baseUrl === undefined ? '' : ` at ${target.baseUrl}`} failed while answering: ${detail}`,
    hint: STREAM_HINT,
    ...common(target, target.baseUrl, options.error),
  });
}

function common(target: ModelCallTarget, url: string | undefined, cause: unknown) {
  return { provider: target.provider, modelId: target.modelId, ...(url === undefined ? {} : { url }), cause };
}

function statusHint(status: number, settings: { key: string; url: string }): string {
  if (status === 401 || status === 403) return `check ${settings.key} (the server refused the key), and that ${settings.url} points to the right server.`;
  if (status === 404) return `check the model name in --model or TOOLGATE_MODEL, and the server in ${settings.url}.`;
  if (status === 429) return 'rate limited or out of quota: wait and run again, or check the account.';
  if (status >= 500) return 'the server failed: run again later; --debug shows the full answer.';
  return 'the server refused the request; --debug shows the full answer.';
}

/** The most specific network reason in the error's cause chain. */
function networkReason(error: APICallError): string {
  let current: unknown = error.cause;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES[code] !== undefined) return `${NETWORK_CODES[code]} (${code})`;
    current = (current as { cause?: unknown }).cause;
  }
  return oneLine(error.message.replace(/^Cannot connect to API:\s*/, ''));
}

/**
 * What broke a stream that had started: a provider's error event (a plain
 * object with a message and type), an SDK parse or validation error, or the
 * connection dropping. Any other error is not the model's.
 */
function streamFailure(error: unknown): string | undefined {
  if (typeof error === 'string') return oneLine(error);
  if (typeof error === 'object' && error !== null && !(error instanceof Error)) {
    const { message, type, code } = error as { message?: unknown; type?: unknown; code?: unknown };
    const kind = [type, code].filter((part): part is string => typeof part === 'string' && part !== '').join(', ');
    const text = typeof message === 'string' && message !== '' ? oneLine(message) : 'an error event without a message';
    return kind === '' ? text : `${text} (${kind})`;
  }
  if (AISDKError.isInstance(error)) {
    // A provider's error event arrives as an SDK error carrying the event's type and code (overloaded_error).
    const { type, code } = error as { type?: unknown; code?: unknown };
    const kind = [...new Set([type, code])].filter((part): part is string => typeof part === 'string' && part !== '' && part !== 'error').join(', ');
    return kind === '' ? oneLine(error.message) : `${oneLine(error.message)} (${kind})`;
  }
  if (error instanceof TypeError && (error.message === 'terminated' || (error.cause as { code?: unknown } | undefined)?.code !== undefined)) {
    // undici: TypeError('terminated') caused by SocketError('other side closed', code UND_ERR_SOCKET).
    const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
    const reason = typeof cause?.message === 'string' && cause.message !== '' ? cause.message : typeof cause?.code === 'string' ? (NETWORK_CODES[cause.code] ?? cause.code) : undefined;
    return reason === undefined ? 'the connection broke off' : `the connection broke off (${oneLine(reason)})`;
  }
  return undefined;
}

/** First line, at most 300 characters: a server's message may be a whole HTML page. */
function oneLine(text: string): string {
  const first = text.trim().split('\n')[0]?.trim() ?? '';
  return first.length > 300 ? `${first.slice(0, 297)}...` : first;
}
