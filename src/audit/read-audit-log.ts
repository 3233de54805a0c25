import { open, type FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { AUDIT_SCHEMA_VERSION, type AuditEntry } from '../core/audit-entry.ts';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { errorMessage } from '../core/run-tool-check.ts';
import { unscopeSession } from '../core/scoped-session.ts';
import type { DecisionSource } from '../core/types.ts';
import type { SharedRecords } from '../store/store.ts';

/** One non-empty line of the log: the entry, or why it was not one. `line` counts from 1. */
/**
 * A record that is not a verdict or a decision: the MCP gateway notes that a
 * server changed a tool's definition (a possible rug pull).
 */
export interface AuditEvent {
  v: number;
  kind: 'definition_changed';
  time: string;
  tool: string;
  server?: string;
  reason?: string;
  [field: string]: unknown;
}

export type AuditLogItem = { line: number; entry: AuditEntry } | { line: number; event: AuditEvent } | { line: number; error: string };

/** Where the log is when the policy does not say: beside the policy file. */
export const DEFAULT_AUDIT_LOG_PATH = '.toolgate/audit.jsonl';

/**
 * Reads an audit log line by line without loading it into memory. A line
 * that is not a valid entry (a torn last line after a crash, an entry from a
 * newer toolgate, missing fields) becomes an error item and reading goes on;
 * only a log that cannot be opened throws (a ToolgateError, code
 * AUDIT_LOG_INVALID).
 *
 * @example
 * for await (const item of readAuditLog({ path: '.toolgate/audit.jsonl' })) {
 *   if ('error' in item) console.error(`line ${item.line}: ${item.error}`);
 *   else console.log(item.entry.tool, item.entry.decision);
 * }
 */
export async function* readAuditLog(options: { path: string }): AsyncGenerator<AuditLogItem, void, undefined> {
  const handle = await openLog(options.path);
  const input = handle.createReadStream({ encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line += 1;
      if (text.trim() === '') continue;
      yield* parseWithRecovery(text, line);
    }
  } finally {
    lines.close();
    // Also runs when the consumer stops early (break, --limit): the file must not stay open.
    // The stream owns the handle and closes it on destroy; wait for that, or
    // the descriptor can outlive this generator by a few ticks.
    if (!input.closed) {
      const closed = new Promise<void>((resolve) => input.once('close', () => resolve()));
      input.destroy();
      await closed;
    }
    await handle.close().catch(() => undefined);
  }
}

async function openLog(logPath: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(logPath, 'r');
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ENOENT') {
      throw new ToolgateError({
        code: 'AUDIT_LOG_INVALID',
        message:
          `the audit log ${logPath} does not exist. By default the log is ${DEFAULT_AUDIT_LOG_PATH} beside the policy file ` +
          '(or where the policy\'s audit.path says); nothing has been recorded there yet, or pass the right file with --log',
        cause: error,
      });
    }
    throw new ToolgateError({ code: 'AUDIT_LOG_INVALID', message: `the audit log ${logPath} cannot be opened (${errorMessage(error)})`, cause: error });
  }
  const stats = await handle.stat();
  if (stats.isDirectory()) {
    await handle.close();
    throw new ToolgateError({ code: 'AUDIT_LOG_INVALID', message: `the audit log ${logPath} is a directory, not a file; pass the log file itself (usually ${DEFAULT_AUDIT_LOG_PATH} inside it)` });
  }
  return handle;
}

/**
 * A line torn by a failed write in another process (a full disk) has the next
 * record glued to it, since only the writer that failed knows to start afresh.
 * Such a line yields its error and then the record found after the tear.
 */
function parseWithRecovery(text: string, line: number): AuditLogItem[] {
  const item = parseAuditLine(text, line);
  if (!('error' in item) || !item.error.startsWith(NOT_JSON)) return [item];
  // Inside JSON strings quotes are escaped, so an unescaped {"v": starts an object:
  // a record, or an object in args (whose suffix then does not parse).
  for (let start = text.indexOf(RECORD_START, 1); start > 0; start = text.indexOf(RECORD_START, start + 1)) {
    const recovered = parseAuditLine(text.slice(start), line);
    if ('entry' in recovered) return [{ line, error: `${item.error}; a complete record follows it on the same line and was kept` }, recovered];
  }
  return [item];
}

const RECORD_START = '{"v":';
const NOT_JSON = 'not valid JSON';

const KINDS: ReadonlySet<unknown> = new Set(['verdict', 'decision']);
const VERDICTS: ReadonlySet<unknown> = new Set(['allow', 'ask', 'block']);
const DECISIONS: ReadonlySet<unknown> = new Set(['allow', 'block', 'approved', 'denied', 'ask']);
const SOURCES: ReadonlySet<unknown> = new Set<DecisionSource>(['policy', 'memory', 'person', 'mode', 'timeout']);

/**
 * Parses and checks one line. Never throws.
 *
 * @example
 * parseAuditLine('{"v":1', 7) // { line: 7, error: 'not valid JSON (...)' }
 */
export function parseAuditLine(text: string, line: number): AuditLogItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, error: `${NOT_JSON} (${errorMessage(error)}); a crash or a failed write leaves a torn line` };
  }
  const event = eventOf(value);
  if (event !== undefined) return { line, event };
  const problem = entryProblem(value);
  return problem === undefined ? { line, entry: value as AuditEntry } : { line, error: problem };
}

function eventOf(value: unknown): AuditEvent | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const version = record['v'];
  if (record['kind'] !== 'definition_changed' || typeof version !== 'number' || version < 1 || version > AUDIT_SCHEMA_VERSION) return undefined;
  if (typeof record['time'] !== 'string' || typeof record['tool'] !== 'string') return undefined;
  return record as AuditEvent;
}

/** Why `value` is not an audit entry this version can read, or undefined if it is one. */
function entryProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const record = value as Record<string, unknown>;
  const version = record['v'];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) return 'no schema version (v)';
  if (version > AUDIT_SCHEMA_VERSION) {
    return `schema version ${version} is newer than this toolgate reads (${AUDIT_SCHEMA_VERSION}); upgrade toolgate to read it`;
  }
  const missing: string[] = [];
  const check = (field: string, valid: (member: unknown) => boolean): void => {
    if (!valid(record[field])) missing.push(field);
  };
  const isString = (member: unknown): boolean => typeof member === 'string';
  const isStringOrNull = (member: unknown): boolean => member === null || typeof member === 'string';
  check('kind', (member) => KINDS.has(member));
  check('time', (member) => typeof member === 'string' && Number.isFinite(Date.parse(member)));
  check('session', isString);
  check('chat', isStringOrNull);
  check('run', isStringOrNull);
  check('caller', isStringOrNull);
  check('call_id', isString);
  check('tool', isString);
  check('verdict', (member) => VERDICTS.has(member));
  check('decision', (member) => DECISIONS.has(member));
  check('source', (member) => SOURCES.has(member));
  check('rule', isStringOrNull);
  check('reason', isString);
  // null is what JSON.stringify makes of a NaN latency; the record is still worth reading.
  check('latency_ms', (member) => member === null || typeof member === 'number');
  if (missing.length > 0) return `missing or invalid field${missing.length === 1 ? '' : 's'}: ${missing.join(', ')}`;
  return undefined;
}

/** What `toolgate audit` filters by; every field is optional and they all must hold. */
export interface AuditFilter {
  /** The session as stored, or as the API was given it (`session_id`): see `auditSessionMatches`. */
  session?: string;
  chat?: string;
  /** The run (`toolgate serve`'s run_id). */
  run?: string;
  /** Who decided (`toolgate serve`: the approver's token name). */
  approver?: string;
  tool?: string;
  decision?: AuditEntry['decision'];
  source?: DecisionSource;
  /** Epoch milliseconds, inclusive. */
  since?: number;
  /** Epoch milliseconds, inclusive. */
  until?: number;
}

/**
 * Builds the predicate for a filter: exact matches on session, chat, run,
 * approver, tool, decision and source, and a time window.
 *
 * @example
 * const recentDenials = auditEntryPredicate({ decision: 'denied', since: Date.now() - 3_600_000 });
 * entries.filter(recentDenials);
 */
export function auditEntryPredicate(filter: AuditFilter): (entry: AuditEntry) => boolean {
  return (entry) => {
    if (filter.session !== undefined && !auditSessionMatches(entry.session, filter.session)) return false;
    if (filter.chat !== undefined && entry.chat !== filter.chat) return false;
    if (filter.run !== undefined && entry.run !== filter.run) return false;
    if (filter.approver !== undefined && entry.approver !== filter.approver) return false;
    if (filter.tool !== undefined && entry.tool !== filter.tool) return false;
    if (filter.decision !== undefined && entry.decision !== filter.decision) return false;
    if (filter.source !== undefined && entry.source !== filter.source) return false;
    if (filter.since !== undefined || filter.until !== undefined) {
      const time = Date.parse(entry.time);
      if (!Number.isFinite(time)) return false;
      if (filter.since !== undefined && time < filter.since) return false;
      if (filter.until !== undefined && time > filter.until) return false;
    }
    return true;
  };
}

/**
 * Whether a stored session is the one asked for: the same text, or a
 * server's owner-scoped session (`["alice","s2"]`) whose session id is it,
 * whoever the owner. The server stores the scoped form; people know the
 * `session_id` they sent.
 *
 * @example
 * auditSessionMatches('["alice","s2"]', 's2')             // true
 * auditSessionMatches('["alice","s2"]', '["alice","s2"]') // true
 * auditSessionMatches('["alice","s2"]', 'alice')          // false
 */
export function auditSessionMatches(stored: string, wanted: string): boolean {
  return stored === wanted || unscopeSession(stored)?.sessionId === wanted;
}

/**
 * The session as a person names it: a server's owner-scoped session shows
 * its session id, any other session as stored.
 *
 * @example
 * shownSession('["alice","s2"]') // 's2'
 * shownSession('claude:abc')     // 'claude:abc'
 */
export function shownSession(stored: string): string {
  return unscopeSession(stored)?.sessionId ?? stored;
}

/**
 * The entries that pass a filter, in order.
 *
 * @example
 * filterAuditEntries(entries, { tool: 'shell', source: 'person' })
 */
export function filterAuditEntries(entries: Iterable<AuditEntry>, filter: AuditFilter): AuditEntry[] {
  const matches = auditEntryPredicate(filter);
  const result: AuditEntry[] = [];
  for (const entry of entries) if (matches(entry)) result.push(entry);
  return result;
}

/** The audit trail in a shared store, a page at a time; each record's "line" is its place in the trail. */
export async function* readStoredAudit(shared: Pick<SharedRecords, 'readAudit'>): AsyncGenerator<AuditLogItem, void, undefined> {
  let after = 0;
  for (;;) {
    const rows = await shared.readAudit({ afterSeq: after, limit: 1000 });
    for (const row of rows) yield parseAuditLine(row.line, row.seq);
    if (rows.length < 1000) return;
    after = rows.at(-1)!.seq;
  }
}
