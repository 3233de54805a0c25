import { isSecretKey, maskSecrets, secretMask } from './redact.ts';
import type { ToolCall } from './types.ts';

/** Longest description made from a call; the full arguments are in the request's presentation. */
const MAX_LENGTH = 160;
/** Longest single value shown in it. */
const MAX_VALUE_LENGTH = 48;

/**
 * Seed 001's default description of a call: `name(key=value, ...)`, for a
 * tool that asks without describing the call itself (and no policy
 * `description`). Values are JSON (strings quoted), secrets (`redact.keys`)
 * masked, each value and the whole line shortened. It is text for a person:
 * approvers sanitise it like any other field.
 *
 * @example
 * defaultDescription({ call: { tool: 'send_email', args: { to: 'a@b.c', subject: 'Hi' }, callId: 'c1' }, redactKeys: new Set() })
 * // 'send_email(to="a@b.c", subject="Hi")'
 */
export function defaultDescription(options: { call: ToolCall; redactKeys: ReadonlySet<string> }): string {
  const { call, redactKeys } = options;
  const value = call.args;
  let inner: string;
  if (value === undefined) inner = '';
  else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    // Walked here rather than masked whole first: the gate builds this for every ask, and most values are plain.
    const parts: string[] = [];
    for (const key of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[key];
      const shown = isSecretKey(key, redactKeys) ? secretMask(member) : typeof member === 'object' && member !== null ? maskSecrets(member, redactKeys).value : member;
      parts.push(`${key}=${shortJson(shown)}`);
    }
    inner = parts.join(', ');
  } else inner = shortJson(maskSecrets(value, redactKeys).value);
  const text = `${call.tool}(${inner})`;
  return text.length <= MAX_LENGTH ? text : `${text.slice(0, MAX_LENGTH - 4)}...)`;
}

/** What JSON.stringify would escape in a string (surrogates too, to leave lone ones to it). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function shortJson(value: unknown): string {
  // Most values are short plain strings: quoted as they are, the same text JSON.stringify gives.
  if (typeof value === 'string' && value.length <= MAX_VALUE_LENGTH - 2 && !NEEDS_ESCAPE.test(value)) return `"${value}"`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length <= MAX_VALUE_LENGTH ? text : `${text.slice(0, MAX_VALUE_LENGTH - 3)}...`;
}
