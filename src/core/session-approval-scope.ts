/**
 * What "approve for session" will cover, in words, from the request alone:
 * a remembered decision is reused for every later call to the same tool
 * whose payload (the fingerprint the tool chose) is equal, so the payload's
 * fields are what stays fixed, and any argument the payload leaves out may
 * change freely. A file write's payload is `{zone, path}`: approving it for
 * the session approves any later content for that path. Every approver (the
 * terminal, MCP elicitation, the web inbox) says it with this one function.
 */
import type { ApprovalRequest, ToolCall } from './types.ts';

export interface SessionApprovalScope {
  /** One sentence, without a leading key: "later write_file calls in this session with the same zone "ws" and path "a.txt", whatever their content". */
  text: string;
  /** The payload fields that must stay equal. Empty when the payload is not an object. */
  fixed: string[];
  /** Top-level arguments the payload leaves out: they may be anything in a later call. */
  free: string[];
  /** True when any later call of the tool matches (a payload that is the same for every call). */
  anyArguments: boolean;
}

/** Values longer than this are cut in the sentence: it names the field, the box shows the whole value. */
const MAX_VALUE_LENGTH = 60;
const MAX_FIELDS = 6;

/**
 * Says what approving `request` for the session covers.
 *
 * @example
 * sessionApprovalScope({ request: { tool: 'write_file', payload: { zone: 'ws', path: 'a.txt' }, ... }, call: { args: { path: 'ws/a.txt', content: 'x' }, ... } }).text
 * // 'later write_file calls in this session with the same zone "ws" and path "a.txt", whatever their content'
 */
export function sessionApprovalScope(options: { request: Pick<ApprovalRequest, 'tool' | 'payload'>; call?: Pick<ToolCall, 'args'> | undefined }): SessionApprovalScope {
  const { request } = options;
  const tool = request.tool;
  const args = options.call?.args;
  const payload = request.payload;
  const argumentNames = isPlainObject(args) ? Object.keys(args) : [];
  if (!isPlainObject(payload)) {
    if (payload === undefined || payload === null) {
      return { text: `every later ${tool} call in this session, whatever its arguments`, fixed: [], free: argumentNames, anyArguments: true };
    }
    if (sameValue(payload, args)) return { text: `later ${tool} calls in this session with exactly these arguments`, fixed: [], free: [], anyArguments: false };
    return { text: `later ${tool} calls in this session with the same approval payload (${brief(payload)})`, fixed: [], free: [], anyArguments: false };
  }
  const fixed = Object.keys(payload);
  if (fixed.length === 0) return { text: `every later ${tool} call in this session, whatever its arguments`, fixed, free: argumentNames, anyArguments: true };
  // A payload equal to the arguments fixes them all: nothing is free to change.
  if (sameValue(payload, args)) return { text: `later ${tool} calls in this session with exactly these arguments`, fixed, free: [], anyArguments: false };
  const free = argumentNames.filter((name) => !Object.hasOwn(payload, name));
  const shown = fixed.slice(0, MAX_FIELDS).map((name) => `${name} ${brief(payload[name])}`);
  if (fixed.length > MAX_FIELDS) shown.push(`${fixed.length - MAX_FIELDS} more ${fixed.length - MAX_FIELDS === 1 ? 'field' : 'fields'}`);
  const whatever = free.length === 0 ? '' : `, whatever their ${list(free.slice(0, MAX_FIELDS))}${free.length > MAX_FIELDS ? ' and other arguments' : ''}`;
  return { text: `later ${tool} calls in this session with the same ${list(shown)}${whatever}`, fixed, free, anyArguments: false };
}

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function brief(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = '(a value that cannot be shown)';
  }
  const characters = Array.from(text);
  return characters.length <= MAX_VALUE_LENGTH ? text : `${characters.slice(0, MAX_VALUE_LENGTH - 1).join('')}…`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Structural equality of plain data, enough to tell "the payload is the arguments". */
function sameValue(left: unknown, right: unknown): boolean {
  if (Object.is(left, right)) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every((key) => Object.hasOwn(right, key) && sameValue((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]));
}

/**
 * What "approve always" covers, in words: the same match as "for this
 * session" (the tool and its approval payload), in every later session,
 * until revoked. `sessionText` is `sessionApprovalScope(...).text`, masked
 * where the caller masks secrets.
 *
 * @example
 * alwaysApprovalScopeText({ tool: 'write_file', payload: { zone: 'ws', path: 'a.txt' } }, 'later write_file calls in this session with the same zone "ws" and path "a.txt", whatever their content')
 * // 'later write_file calls in this session and every later one with the same zone "ws" and path "a.txt", whatever their content, until revoked (toolgate approvals)'
 */
export function alwaysApprovalScopeText(request: Pick<ApprovalRequest, 'tool' | 'payload'>, sessionText: string): string {
  if (sessionText.includes(' in this session')) return `${sessionText.replace(' in this session', ' in this session and every later one')}, until revoked (toolgate approvals)`;
  const payload = request.payload;
  const keys = isPlainObject(payload) ? Object.keys(payload).slice(0, MAX_FIELDS) : [];
  const same = keys.length === 0 ? 'the same approval payload' : `the same ${keys.length === 1 ? keys[0] : `${keys.slice(0, -1).join(', ')} and ${keys.at(-1)}`}`;
  return `later ${request.tool} calls with ${same} as this one, in this session and every later one, until revoked (toolgate approvals)`;
}
