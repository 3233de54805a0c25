/** The text that replaces a redacted value. */
export const REDACTED = '[REDACTED]';

/**
 * The keys `redact.keys` starts from when the policy gives none: the usual
 * names of secrets in tool arguments and headers. A policy that lists its
 * own keys replaces this list (`keys: []` redacts nothing). Matching is by
 * containment (see `redact`), so `token` also covers `access_token` and
 * `max_tokens`: a false positive only hides a value from logs, never from the
 * person deciding.
 */
export const DEFAULT_REDACT_KEYS: readonly string[] = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'api_key',
  'access_key',
  'private_key',
  'authorization',
  'cookie',
  'credential',
];

/**
 * A copy of `value` with the values of sensitive keys replaced, at any depth.
 * A key matches when, compared without case, `-` and `_`, it equals or
 * contains one of `keys` (`X-Api-Key` matches `api_key`).
 * Never mutates its input.
 *
 * @example
 * redact({ user: 'a', password: 'p' }, new Set(['password'])) // { user: 'a', password: '[REDACTED]' }
 */
export function redact(value: unknown, keys: ReadonlySet<string>): unknown {
  if (keys.size === 0 || value === null || typeof value !== 'object') return value;
  return redactDeep(value, normalizedKeys(keys), 0);
}

const normalized = new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();

/** Keys compare case-insensitively and without `-`/`_`, however the caller spelled them. */
function normalizedKeys(keys: ReadonlySet<string>): ReadonlySet<string> {
  let result = normalized.get(keys);
  if (result === undefined) {
    result = new Set([...keys].map((key) => key.toLowerCase().replace(/[-_]/g, '')));
    normalized.set(keys, result);
  }
  return result;
}

function redactDeep(value: unknown, keys: ReadonlySet<string>, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 64) return REDACTED;
  if (Array.isArray(value)) return value.map((member) => redactDeep(member, keys, depth + 1));
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    const kept = isSensitive(key, keys) ? REDACTED : redactDeep(member, keys, depth + 1);
    // Assigned (defineProperty per key costs several times more on every audited call),
    // except `__proto__`, which an assignment would take as the prototype: it stays data.
    if (key === '__proto__') Object.defineProperty(result, key, { value: kept, enumerable: true, writable: true, configurable: true });
    else result[key] = kept;
  }
  return result;
}

/**
 * Whether an argument key is one of `keys` (case-insensitive, `-`/`_`
 * ignored, matched inside longer names: `github_token`).
 *
 * @example
 * isSecretKey('X-Api-Key', new Set(['api_key'])) // true
 */
export function isSecretKey(key: string, keys: ReadonlySet<string>): boolean {
  if (keys.size === 0) return false;
  // The same few argument names come back on every call: remember the answer per key set (bounded).
  let answers = secretKeyAnswers.get(keys);
  if (answers === undefined) secretKeyAnswers.set(keys, (answers = new Map()));
  let answer = answers.get(key);
  if (answer === undefined) {
    answer = isSensitive(key, normalizedKeys(keys));
    if (answers.size >= 1024) answers.clear();
    answers.set(key, answer);
  }
  return answer;
}

const secretKeyAnswers = new WeakMap<ReadonlySet<string>, Map<string, boolean>>();

function isSensitive(key: string, keys: ReadonlySet<string>): boolean {
  const squashed = key.toLowerCase().replace(/[-_]/g, '');
  if (keys.has(squashed)) return true;
  for (const sensitive of keys) {
    if (squashed.includes(sensitive)) return true;
  }
  return false;
}

/**
 * A copy of `value` for a person to read, with the values of sensitive keys
 * masked as `‹secret: 12 characters›` (or `‹secret: object›`) rather than
 * dropped: the person deciding sees that a secret is there and how big it is,
 * and an approver may reveal it on request from the call's own arguments.
 * Counts what it masked, so the approver can say so.
 *
 * @example
 * maskSecrets({ user: 'a', password: 'hunter2' }, new Set(['password'])) // { value: { user: 'a', password: '‹secret: 7 characters›' }, masked: 1 }
 */
export function maskSecrets(value: unknown, keys: ReadonlySet<string>): { value: unknown; masked: number } {
  if (keys.size === 0 || value === null || typeof value !== 'object') return { value, masked: 0 };
  const counter = { masked: 0 };
  return { value: maskDeep(value, normalizedKeys(keys), 0, counter), masked: counter.masked };
}

/**
 * The mask shown for a secret value: its kind and size, never any of its characters.
 *
 * @example
 * secretMask('hunter2') // '‹secret: 7 characters›'
 */
export function secretMask(value: unknown): string {
  if (typeof value === 'string') {
    const length = Array.from(value).length;
    return `‹secret: ${length} ${length === 1 ? 'character' : 'characters'}›`;
  }
  if (value === null) return '‹secret: null›';
  if (Array.isArray(value)) return '‹secret: list›';
  return `‹secret: ${typeof value}›`;
}

function maskDeep(value: unknown, keys: ReadonlySet<string>, depth: number, counter: { masked: number }): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 64) {
    counter.masked += 1;
    return secretMask(value);
  }
  if (Array.isArray(value)) return value.map((member) => maskDeep(member, keys, depth + 1, counter));
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    let shown: unknown;
    if (isSensitive(key, keys)) {
      counter.masked += 1;
      shown = secretMask(member);
    } else {
      shown = maskDeep(member, keys, depth + 1, counter);
    }
    Object.defineProperty(result, key, { value: shown, enumerable: true, writable: true, configurable: true });
  }
  return result;
}

/** Shorter secret values are not searched for in text: replacing every "ab" would garble messages and protect nothing. */
const MIN_SECRET_LENGTH = 4;

/**
 * `text` with every secret value of `value` (the strings under sensitive
 * keys, at any depth, as written and as JSON-escaped) replaced by
 * `[REDACTED]`. For free text that may quote a call's arguments, such as a
 * validation error: the arguments themselves go through `redact`, but a
 * message that echoes them would print the secret on a stream. A secret cut
 * at the end of a shortened message (`sekret-01…`) is caught too.
 *
 * @example
 * redactSecretsInText({ text: 'invalid: {"token":"abc123"}', value: { token: 'abc123' }, keys: new Set(['token']) }) // 'invalid: {"token":"[REDACTED]"}'
 */
export function redactSecretsInText(options: { text: string; value: unknown; keys: ReadonlySet<string> }): string {
  const { keys } = options;
  let text = options.text;
  if (keys.size === 0 || options.value === null || typeof options.value !== 'object') return text;
  const secrets = new Set<string>();
  collectSecrets(options.value, normalizedKeys(keys), false, secrets, 0);
  // Longest first: a secret that contains another is replaced whole.
  for (const secret of [...secrets].sort((left, right) => right.length - left.length)) {
    for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1)])) {
      if (form.length >= MIN_SECRET_LENGTH) text = text.split(form).join(REDACTED);
    }
  }
  const tail = /(\S+?)(…|\.\.\.)$/u.exec(text);
  if (tail !== null) {
    for (const secret of secrets) {
      // The shortened end of a message may hold the start of a secret.
      for (let length = Math.min(secret.length - 1, tail[1]!.length); length >= MIN_SECRET_LENGTH; length -= 1) {
        const prefix = secret.slice(0, length);
        if (text.endsWith(`${prefix}${tail[2]}`)) {
          text = `${text.slice(0, text.length - prefix.length - tail[2]!.length)}${REDACTED}${tail[2]}`;
          break;
        }
      }
    }
  }
  return text;
}

function collectSecrets(value: unknown, keys: ReadonlySet<string>, sensitive: boolean, secrets: Set<string>, depth: number): void {
  if (depth > 64) return;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') {
    if (sensitive) secrets.add(String(value));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const member of value) collectSecrets(member, keys, sensitive, secrets, depth + 1);
    return;
  }
  for (const key of Object.keys(value)) collectSecrets((value as Record<string, unknown>)[key], keys, sensitive || isSensitive(key, keys), secrets, depth + 1);
}
