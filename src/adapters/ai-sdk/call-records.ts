/**
 * What the gate decided for each tool call, by tool call id. A wrapped
 * `execute` runs only against one of these records: the decision, the
 * arguments the gate judged, the arguments that may run (the person's edit),
 * and the presentation the person approved.
 */
import { fingerprint } from '../../core/fingerprint.ts';
import type { Authorization, Presentation } from '../../core/types.ts';

/** The gate's decision for one tool call. */
export interface CallRecord {
  toolCallId: string;
  tool: string;
  /** The arguments the model sent, as the gate judged them. */
  modelArgs: unknown;
  authorization: Authorization;
  /** Deferred asks: the presentation built when the run paused (what the person is shown). */
  presentation?: Presentation;
}

export interface CallRecords {
  set(record: CallRecord): void;
  get(toolCallId: string): CallRecord | undefined;
  /**
   * Removes a record as its call starts running, so an approval runs at most
   * once; remembers the edited arguments it ran with, for the model's output.
   * True when the call runs edited arguments.
   */
  consume(toolCallId: string): boolean;
  /** The person's edited arguments a consumed call ran with, if any. */
  editOf(toolCallId: string): { args: unknown } | undefined;
  /** Whether a call with this id already started running (so a resumed approval must not run it again). */
  hasRun(toolCallId: string): boolean;
}

/** Past this many open records the oldest are forgotten (at least half this many are kept): a forgotten record only means refusing. */
const DEFAULT_MAX_RECORDS = 10_000;

/**
 * The records of one gated tool set, bounded in size.
 *
 * @example
 * const records = createCallRecords();
 * records.set({ toolCallId: 'call-1', tool: 'send_email', modelArgs: args, authorization });
 */
export function createCallRecords(options: { maxEntries?: number } = {}): CallRecords {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_RECORDS;
  const open = createBoundedMap<CallRecord>(maxEntries);
  const edits = createBoundedMap<{ args: unknown }>(maxEntries);
  const ran = createBoundedMap<true>(maxEntries);

  return {
    set: (record) => {
      // A call that ran is never armed again (a retried resume racing the first).
      if (ran.has(record.toolCallId)) return;
      edits.delete(record.toolCallId);
      open.set(record.toolCallId, record);
    },
    get: (toolCallId) => open.get(toolCallId),
    consume(toolCallId) {
      const record = open.get(toolCallId);
      if (record === undefined) return false;
      open.delete(toolCallId);
      ran.set(toolCallId, true);
      if (sameArguments(record.authorization.args, record.modelArgs)) return false;
      edits.set(toolCallId, { args: record.authorization.args });
      return true;
    },
    editOf: (toolCallId) => edits.get(toolCallId),
    hasRun: (toolCallId) => ran.has(toolCallId),
  };
}

/**
 * A map that keeps between `maxEntries / 2` and `maxEntries` of the most
 * recently set keys, in two generations: when the young one is full it
 * becomes the old one and the old one is dropped. Every operation is O(1);
 * evicting one oldest key at a time from a single Map is not (V8 skips the
 * deleted slots at its front on every eviction), and a gated set that lives
 * for many calls would pay that on each one.
 */
function createBoundedMap<Value>(maxEntries: number) {
  const half = Math.max(1, Math.floor(maxEntries / 2));
  let young = new Map<string, Value>();
  let old = new Map<string, Value>();
  return {
    get: (key: string): Value | undefined => young.get(key) ?? old.get(key),
    has: (key: string): boolean => young.has(key) || old.has(key),
    set(key: string, value: Value): void {
      old.delete(key);
      young.set(key, value);
      if (young.size >= half) {
        old = young;
        young = new Map();
      }
    },
    delete(key: string): void {
      young.delete(key);
      old.delete(key);
    },
  };
}

/**
 * Whether a decision lets its call run.
 *
 * @example
 * if (!permitsRun(record.authorization)) refuse(record.authorization.reason);
 */
export function permitsRun(authorization: Authorization): boolean {
  return authorization.decision === 'allow' || authorization.decision === 'approved';
}

/**
 * Equal arguments: the same value, or the same canonical fingerprint. A value
 * that cannot be fingerprinted is never equal to anything else (fail closed).
 *
 * @example
 * if (!sameArguments(record.modelArgs, input)) refuse('the arguments differ from the ones the gate judged');
 */
export function sameArguments(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  const leftPrint = safeFingerprint(left);
  return leftPrint !== undefined && leftPrint === safeFingerprint(right);
}

function safeFingerprint(value: unknown): string | undefined {
  try {
    return fingerprint(value);
  } catch {
    return undefined;
  }
}
