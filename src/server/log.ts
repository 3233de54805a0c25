/**
 * Structured logs of `toolgate serve` (seed 004's `log_level` and
 * `verbose_logging`): one JSON object per line, `{time, level, msg, ...fields}`,
 * below the chosen level dropped. Fields pass through `redact` with the
 * policy's keys and the default ones, so a token, an `Authorization` header or
 * a password in a logged body is `[REDACTED]`, whatever the caller hands in.
 */
import { DEFAULT_REDACT_KEYS, redact } from '../core/redact.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export interface Logger {
  /** `verbose_logging`: request bodies (redacted) are logged with each request. */
  readonly verbose: boolean;
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** What `newToken` makes, wherever it appears in a line. */
const TOKEN_TEXT = /tg_[A-Za-z0-9_-]{43}/g;

/** Keys that are always secrets in a log line, whatever the policy's `redact.keys` says. */
const ALWAYS_SECRET = ['token', 'authorization', 'cookie', 'password', 'secret'];

/**
 * Lines for stderr, written together once per turn of the event loop: on
 * Linux a write to a pipe is a synchronous system call, and a busy server
 * logs a line per request. Whatever is still buffered when the process
 * exits is written then; a `kill -9` loses at most one turn's lines.
 */
function stderrLines(): (line: string) => void {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    process.stderr.write(text);
  };
  process.once('exit', flush);
  return (line) => {
    if (pending.push(line) === 1) setImmediate(flush);
  };
}

/**
 * A logger writing JSON lines to `write` (default: stderr, a turn of the
 * event loop's lines at a time).
 *
 * @example
 * const logger = createLogger({ level: 'info', write: (line) => process.stderr.write(line) });
 * logger.info('request', { method: 'GET', path: '/runs', status: 200, ms: 1.2, principal: 'alice' });
 * // {"time":"2026-...","level":"info","msg":"request","method":"GET","path":"/runs","status":200,"ms":1.2,"principal":"alice"}
 */
export function createLogger(options: {
  level?: LogLevel;
  verbose?: boolean;
  write?: (line: string) => unknown;
  redactKeys?: readonly string[];
  clock?: () => Date;
} = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? 'info');
  const write = options.write ?? stderrLines();
  const clock = options.clock ?? (() => new Date());
  const keys = new Set([...DEFAULT_REDACT_KEYS, ...ALWAYS_SECRET, ...(options.redactKeys ?? [])]);
  const log = (level: LogLevel, msg: string, fields: Record<string, unknown> | undefined) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const safe = fields === undefined ? {} : (redact(plainErrors(fields), keys) as Record<string, unknown>);
    // time, level and msg first, and never overwritten by a field of the same name.
    const record: Record<string, unknown> = { time: clock().toISOString(), level, msg };
    for (const [key, value] of Object.entries(safe)) {
      if (!Object.hasOwn(record, key)) Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
    }
    const line = JSON.stringify(record, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
    // A token pasted into any text (a task, a reason) is still a token.
    write(`${line.replace(TOKEN_TEXT, 'tg_[REDACTED]')}\n`);
  };
  return {
    verbose: options.verbose ?? false,
    debug: (msg, fields) => log('debug', msg, fields),
    info: (msg, fields) => log('info', msg, fields),
    warn: (msg, fields) => log('warn', msg, fields),
    error: (msg, fields) => log('error', msg, fields),
  };
}

/** A logger that drops everything (tests that do not look at logs). */
export function silentLogger(): Logger {
  const drop = () => {};
  return { verbose: false, debug: drop, info: drop, warn: drop, error: drop };
}

/** An Error has no enumerable fields: log its name, message and stack. */
function plainErrors(fields: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const plain = value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
    Object.defineProperty(result, key, { value: plain, enumerable: true, writable: true, configurable: true });
  }
  return result;
}
