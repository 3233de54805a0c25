import { fingerprint } from './fingerprint.ts';
import type { GateContext } from './types.ts';

/** A decision remembered for a session ("approve for session", "deny for session"). */
export interface RememberedDecision {
  approved: boolean;
  reason?: string;
  /** What was decided, as people read it in a list of session approvals: not what matches calls (the key does that). */
  shown?: RememberedShown;
}

/** A remembered decision as a list of them shows it. */
export interface RememberedShown {
  tool: string;
  /** The request's description, as the person was asked (at most 500 characters). */
  description: string;
  /** When it was decided (ISO time). */
  at: string;
  /** Who decided, where the approver says (a server's token name). */
  by?: string;
}

/**
 * Where session decisions live. Keys come from `memoryKey` and already carry
 * the session, chat, tool identity and payload fingerprint, so a store only
 * maps strings to decisions.
 */
export interface ApprovalMemory {
  lookup(key: string): RememberedDecision | undefined;
  store(key: string, decision: RememberedDecision): void;
}

/**
 * The key of a remembered decision: session and chat (seed 003's chat
 * isolation), the tool's identity, and the canonical fingerprint of the
 * payload. The prefix is a JSON array, so no session id can forge another's.
 */
export function memoryKey(options: { context: GateContext; tool: string; identity?: string; payloadFingerprint: string }): string {
  const { context } = options;
  return JSON.stringify([context.sessionId, context.chatId ?? null, options.tool, options.identity ?? null]) + options.payloadFingerprint;
}

/** The part of a key that does not depend on the session: for "approve always". */
export function toolKey(options: { tool: string; identity?: string; payload: unknown }): string {
  return JSON.stringify([options.tool, options.identity ?? null]) + fingerprint(options.payload);
}

/**
 * Session memory in this process, bounded so a long-lived server cannot be
 * grown without limit: past `maxEntries` the oldest decisions are forgotten
 * (forgetting only means asking again).
 *
 * @example
 * const gate = createGate({ policy, memory: createInMemoryApprovalMemory() });
 */
export function createInMemoryApprovalMemory(options: { maxEntries?: number } = {}): ApprovalMemory {
  const maxEntries = options.maxEntries ?? 100_000;
  const entries = new Map<string, RememberedDecision>();
  return {
    lookup: (key) => entries.get(key),
    store(key, decision) {
      entries.delete(key);
      entries.set(key, decision);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
  };
}
