/**
 * What the gate decided for each tool call, by tool call id. A wrapped
 * `execute` runs only against one of these records: the decision, the
 * arguments the gate judged, the arguments that may run (the person's edit),
 * and the presentation the person approved.
 */
import { sameFingerprint } from '../../core/fingerprint.ts';
import type { AlwaysScope, Authorization, Presentation } from '../../core/types.ts';

/** The gate's decision for one tool call. */
export interface CallRecord {
  toolCallId: string;
  tool: string;
  /** The arguments the model sent, as the gate judged them. */
  modelArgs: unknown;
  authorization: Authorization;
  /** Deferred asks: the presentation built when the run paused (what the person is shown). */
  presentation?: Presentation;
  /** Deferred asks: what "approve always" may cover beyond the payload (the gate's `alwaysChoices`). */
  alwaysScopes?: ReadonlyArray<Omit<AlwaysScope, 'match'>>;
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

/**
 * Past this many call ids the oldest are forgotten (at least half this many
 * are kept): a forgotten open record only means refusing. Each id holds its
 * record until it runs, then the fact that it ran; 20,000 ids keep as many
 * ran ids as separate bounds of 10,000 for records and ran ids did.
 */
const DEFAULT_MAX_ENTRIES = 20_000;

/** Everything known about one tool call id: one map entry, so the allow path costs one lookup per step. */
interface CallEntry {
  /** The decision, until the call starts running. */
  record: CallRecord | undefined;
  /** The call started running: it is never armed again. */
  ran: boolean;
  /** The person's edited arguments the call ran with. */
  edit: { args: unknown } | undefined;
}

/**
 * The records of one gated tool set, bounded in size.
 *
 * @example
 * const records = createCallRecords();
 * records.set({ toolCallId: 'call-1', tool: 'send_email', modelArgs: args, authorization });
 */
export function createCallRecords(options: { maxEntries?: number } = {}): CallRecords {
  const entries = createBoundedMap<CallEntry>(options.maxEntries ?? DEFAULT_MAX_ENTRIES);

  return {
    set: (record) => {
      const entry = entries.get(record.toolCallId);
      // A call that ran is never armed again (a retried resume racing the first).
      if (entry?.ran === true) return;
      entries.set(record.toolCallId, { record, ran: false, edit: undefined });
    },
    get(toolCallId) {
      const entry = entries.get(toolCallId);
      return entry === undefined ? undefined : entry.record;
    },
    consume(toolCallId) {
      const entry = entries.get(toolCallId);
      const record = entry?.record;
      if (entry === undefined || record === undefined) return false;
      entry.record = undefined;
      entry.ran = true;
      // Kept among the most recent ids: that it ran is remembered as long as a fresh record would be.
      entries.refresh(toolCallId, entry);
      if (record.authorization.args === record.modelArgs || sameArguments(record.authorization.args, record.modelArgs)) return false;
      entry.edit = { args: record.authorization.args };
      return true;
    },
    editOf: (toolCallId) => entries.get(toolCallId)?.edit,
    hasRun: (toolCallId) => entries.get(toolCallId)?.ran === true,
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
  let old: Map<string, Value> | undefined;
  const set = (key: string, value: Value): void => {
    old?.delete(key);
    young.set(key, value);
    if (young.size >= half) {
      old = young;
      young = new Map();
    }
  };
  return {
    get: (key: string): Value | undefined => young.get(key) ?? old?.get(key),
    set,
    /** Makes `key` (holding `value`) one of the most recently set keys again, unless it already is. */
    refresh(key: string, value: Value): void {
      if (!young.has(key)) set(key, value);
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
  return left === right || sameFingerprint(left, right);
}
