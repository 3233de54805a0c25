/**
 * The choices of what "approve always" covers (issue 38): besides the
 * request's payload (what "for this session" covers), the exact call, and
 * whatever wider scopes the tool offers ("git push with any arguments, run in
 * zone workspace"). A scope is kept in the approvals as a payload of its own
 * (`scopedPayload`), so its fingerprint covers what it matches, the words it
 * was shown with and the rule it amounts to: nobody can widen one by editing
 * the text people read.
 */
import { fingerprint } from './fingerprint.ts';
import type { ToolDeclaration } from './tool-declaration.ts';
import type { AlwaysScope, ToolCall } from './types.ts';

/** The key a scoped approval's payload is kept under: no tool's own payload is an object with this one key. */
export const ALWAYS_SCOPE_KEY = 'toolgate_always_scope';

/** The id of the scope that covers exactly one call's arguments. */
export const EXACT_SCOPE_ID = 'exact';

/** Longest rule or text a scope may carry: they are shown in a list, and a tool's scope is a rule, not a payload. */
const MAX_SCOPE_TEXT = 500;

/** The payload an approval of `scope` is kept (and fingerprinted) as. */
export function scopedPayload(scope: AlwaysScope): Record<string, unknown> {
  return { [ALWAYS_SCOPE_KEY]: { id: scope.id, text: scope.text, rule: scope.rule, match: scope.match } };
}

/**
 * The scope a kept payload stands for, or undefined when it is not one
 * (an approval of a tool's own payload) or not a well-formed one.
 */
export function readScopedPayload(payload: unknown): AlwaysScope | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const keys = Object.keys(payload);
  if (keys.length !== 1 || keys[0] !== ALWAYS_SCOPE_KEY) return undefined;
  const scope = (payload as Record<string, unknown>)[ALWAYS_SCOPE_KEY];
  if (typeof scope !== 'object' || scope === null || Array.isArray(scope)) return undefined;
  const { id, text, rule, match } = scope as Record<string, unknown>;
  if (typeof id !== 'string' || typeof text !== 'string' || typeof rule !== 'string' || match === undefined) return undefined;
  return { id, text, rule, match };
}

/**
 * "Exactly this call": the tool, all its arguments and the payload the tool
 * made of them (a path as it resolved, the directory a command runs in), so
 * the same arguments naming another file later (a link pointed elsewhere)
 * are not covered. Offered when the payload leaves some argument free (a
 * file write's content), so "always" can be narrower than "for this session".
 */
export async function exactScope(call: Pick<ToolCall, 'tool' | 'args'>, payload: unknown): Promise<AlwaysScope> {
  const digest = await fingerprintDigest({ args: call.args, payload });
  return {
    id: EXACT_SCOPE_ID,
    text: `${call.tool} with exactly these arguments, nothing else`,
    rule: `${call.tool} with arguments sha256:${digest.slice(0, 16)}`,
    match: digest,
  };
}

/**
 * The scopes offered for `call` beyond its payload, each checked to cover
 * the call itself: the exact call (unless the payload already is the
 * arguments), then the tool's own, narrowest first. A tool whose scopes
 * fail, or that cannot say a scope covers the call, offers none of them: the
 * person still has "always" for the payload.
 */
export async function offeredAlwaysScopes(options: { tool: ToolDeclaration | undefined; call: ToolCall; payload: unknown; payloadIsArguments: boolean }): Promise<AlwaysScope[]> {
  const { tool, call } = options;
  const offered: AlwaysScope[] = [];
  // A payload that poses as a kept scope would be matched as one: it gets no "always" at all (the gate approves it once).
  if (posesAsScope(options.payload)) return offered;
  try {
    if (!options.payloadIsArguments) offered.push(await exactScope(call, options.payload));
  } catch {
    // Arguments that cannot be fingerprinted have no exact scope.
  }
  if (tool?.alwaysScopes === undefined || tool.withinAlwaysScope === undefined) return offered;
  try {
    for (const scope of await tool.alwaysScopes(call)) {
      if (!isWellFormed(scope) || offered.some((other) => other.id === scope.id)) continue;
      if ((await tool.withinAlwaysScope(call, scope)) === true) offered.push(scope);
    }
  } catch {
    return offered.filter((scope) => scope.id === EXACT_SCOPE_ID);
  }
  return offered;
}

/**
 * The first kept scope `call` falls within, by the tool's own judgement.
 * The exact scope is looked up by fingerprint, not here. A tool that
 * throws covers nothing (the call is asked about).
 */
export async function coveringScope(options: { tool: ToolDeclaration | undefined; call: ToolCall; kept: readonly AlwaysScope[] }): Promise<AlwaysScope | undefined> {
  const within = options.tool?.withinAlwaysScope;
  if (within === undefined) return undefined;
  for (const scope of options.kept) {
    if (scope.id === EXACT_SCOPE_ID) continue;
    try {
      if ((await within(options.call, scope)) === true) return scope;
    } catch {
      // Not within: asking is the safe direction.
    }
  }
  return undefined;
}

/**
 * Whether a tool's own payload carries the key kept scopes are stored
 * under: "always" for it would be indistinguishable from a kept scope (a
 * model could make an MCP tool's payload look like an exact scope of
 * another call), so it is never kept or matched as an "always".
 */
export function posesAsScope(payload: unknown): boolean {
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload) && Object.hasOwn(payload, ALWAYS_SCOPE_KEY);
}

function isWellFormed(scope: AlwaysScope): boolean {
  return (
    typeof scope === 'object' &&
    scope !== null &&
    typeof scope.id === 'string' &&
    /^[a-z][a-z0-9_-]{0,31}$/.test(scope.id) &&
    scope.id !== EXACT_SCOPE_ID &&
    typeof scope.text === 'string' &&
    scope.text.length <= MAX_SCOPE_TEXT &&
    typeof scope.rule === 'string' &&
    scope.rule.length <= MAX_SCOPE_TEXT &&
    scope.match !== undefined
  );
}

/**
 * The SHA-256 of the arguments' canonical fingerprint: short to keep, and
 * never the values themselves (a secret argument stays out of the approvals
 * list). Web Crypto, so the core needs no Node module.
 */
async function fingerprintDigest(value: unknown): Promise<string> {
  const bytes = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(fingerprint(value))));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
