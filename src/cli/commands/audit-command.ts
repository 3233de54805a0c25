import { existsSync } from 'node:fs';
import path from 'node:path';
import { auditEntryPredicate, readAuditLog, readStoredAudit, type AuditEvent, type AuditFilter, type AuditLogItem } from '../../audit/read-audit-log.ts';
import { loadPolicyFile, auditLogPath } from '../../config/load-policy-file.ts';
import type { AuditEntry } from '../../core/audit-entry.ts';
import { PolicyError } from '../../core/errors/policy-error.ts';
import { ToolgateError } from '../../core/errors/toolgate-error.ts';
import { errorMessage } from '../../core/run-tool-check.ts';
import type { DecisionSource } from '../../core/types.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { createTableFormatter, escapeControlCharacters, formatEvent, formatJson, tableHeader } from './audit-format.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { policyForState, UsageError } from '../cli-support.ts';
import { userPolicyFile } from '../../config/find-host-policy.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { parseAuditTime } from '../audit-time.ts';
import { openSharedStore } from '../shared-store-option.ts';
import { isPostgresLocation } from '../../store/store-location.ts';

/** `toolgate audit --help`: every flag and the exit codes. */
export const AUDIT_HELP = `Usage:
  toolgate audit [--log FILE | --policy FILE | --store URL] [filters] [--limit N] [--json]

Reads the audit log: every verdict and decision the gate recorded, oldest
first. Filters combine: an entry is shown when it passes all of them.

Options:
  --log FILE        the audit log to read
  --policy FILE     read this policy's log: its audit.path, or
                    .toolgate/audit.jsonl beside it. Without --log or --policy:
                    the policy the last \`toolgate run\` in this directory used,
                    else the policy here (toolgate.yaml, .yml, .json), else
                    ./.toolgate/audit.jsonl (the built-in default policy's)
  --store URL       the audit trail of the servers sharing this PostgreSQL
                    store (toolgate serve --store postgres://...), every
                    server's records in the order they were recorded
  --session ID      only this session: the session_id a run was started with
                    over the API (whoever owns it), or the session as stored
  --chat ID         only this chat
  --run ID          only this run (toolgate serve's run_id)
  --approver NAME   only decisions made by this approver (toolgate serve: the
                    name of the token that decided)
  --tool NAME       only this tool (the exact name)
  --decision D      only this decision: allow | ask | block | approved | denied
  --source S        only decisions from: policy | memory | person | mode | timeout
  --since TIME      only entries at or after TIME
  --until TIME      only entries at or before TIME
                    TIME is an ISO date or time (2025-01-31, 2025-01-31T14:00,
                    2025-01-31T14:00:00Z; without an offset it is local time)
                    or how long ago: 90s, 30m, 2h, 7d, 2w
  --limit N         only the last N matching entries
  --json            print each matching record as stored, one JSON object per line
  -h, --help        this help

Rows come under a line naming their session, whole (what --session takes).
Table columns: time, tool, verdict→decision, source,
approver (who decided, where the approver says; hook:NAME for a decision a
hook made on its own and reported to the server with NAME's token), rule
(the rule that decided, and where it is written, FILE:LINE, when recorded),
call (the command, path or files), reason. A server's session shows the session_id the API was given; --json
shows it as stored, with its owner.
Long fields are cut short and control characters are shown escaped (\\x1b),
so a log cannot drive the terminal. Invalid lines (the torn last line a crash
leaves, records from a newer toolgate) are skipped and reported on stderr as
FILE:LINE: skipped: why.

Exit codes:
  0  done (also when nothing matched)
  2  usage error, or the log does not exist or cannot be read
  3  the policy file is missing or invalid
  4  some lines of the log were invalid and skipped (the others were shown)
`;

const DECISIONS: readonly AuditEntry['decision'][] = ['allow', 'ask', 'block', 'approved', 'denied'];
const SOURCES: readonly DecisionSource[] = ['policy', 'memory', 'person', 'mode', 'timeout'];

/**
 * `toolgate audit`: reads, filters and prints the audit log.
 *
 * @example
 * process.exitCode = await runAuditCommand(['--tool', 'shell', '--since', '2h'], processIo());
 */
export async function runAuditCommand(argv: string[], io: CliIo): Promise<number> {
  let request: AuditRequest;
  try {
    request = parseAuditArguments(argv, Date.now());
  } catch (error) {
    io.stderr.write(`toolgate audit: ${escapeControlCharacters(errorMessage(error))}\nRun 'toolgate audit --help' for usage.\n`);
    return EXIT.usage;
  }
  if (request.help) {
    io.stdout.write(AUDIT_HELP);
    return EXIT.ok;
  }
  if (request.store !== undefined) {
    const { store, shared, where } = await openSharedStore(request.store, 'toolgate audit');
    try {
      return await printLog({ request, items: readStoredAudit(shared), shownPath: where, io });
    } finally {
      await store.close();
    }
  }
  let logPath: string;
  try {
    logPath = await resolveLogPath(request, io);
  } catch (error) {
    if (error instanceof PolicyError) {
      io.stderr.write(`toolgate audit: ${sanitizeTerminalText(error.message, { keepNewlines: true, keepTabs: true })}\n`);
      return EXIT.policy;
    }
    throw error;
  }
  try {
    return await printLog({ request, items: readAuditLog({ path: logPath }), shownPath: displayPath(logPath, io.cwd), io });
  } catch (error) {
    if (error instanceof ToolgateError && error.code === 'AUDIT_LOG_INVALID') {
      io.stderr.write(`toolgate audit: ${escapeControlCharacters(error.message)}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

/** A parsed `toolgate audit` command line. */
export interface AuditRequest {
  help: boolean;
  log: string | undefined;
  policy: string | undefined;
  /** The PostgreSQL store whose audit trail to read. */
  store: string | undefined;
  filter: AuditFilter;
  limit: number | undefined;
  json: boolean;
}

/**
 * Turns the command line into a request. Throws on anything malformed;
 * relative times count back from `now`.
 *
 * @example
 * parseAuditArguments(['--decision', 'denied', '--since', '1h'], Date.now()).filter
 * // { decision: 'denied', since: <an hour ago> }
 */
export function parseAuditArguments(argv: string[], now: number): AuditRequest {
  const { values } = parseCommandLine({
    argv,
    options: {
      log: { type: 'string' },
      policy: { type: 'string' },
      store: { type: 'string' },
      session: { type: 'string' },
      chat: { type: 'string' },
      run: { type: 'string' },
      approver: { type: 'string' },
      tool: { type: 'string' },
      decision: { type: 'string' },
      source: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if ([values.log, values.policy, values.store].filter((value) => value !== undefined).length > 1) {
    throw new UsageError('give one of --log, --policy and --store (--log names the log file itself, --store the PostgreSQL store servers share)');
  }
  if (values.store !== undefined && !isPostgresLocation(values.store)) {
    throw new UsageError(`--store takes the postgres:// URL of a store servers share, not ${JSON.stringify(values.store)}: a server on a SQLite file writes its audit log beside its policy (use --policy)`);
  }
  const filter: AuditFilter = {};
  if (values.session !== undefined) filter.session = nonEmpty({ flag: '--session', value: values.session, what: 'a session id' });
  if (values.chat !== undefined) filter.chat = nonEmpty({ flag: '--chat', value: values.chat, what: 'a chat id' });
  if (values.run !== undefined) filter.run = nonEmpty({ flag: '--run', value: values.run, what: 'a run id (run_...)' });
  if (values.approver !== undefined) filter.approver = nonEmpty({ flag: '--approver', value: values.approver, what: 'the name of an approver (its token name)' });
  if (values.tool !== undefined) filter.tool = nonEmpty({ flag: '--tool', value: values.tool, what: 'a tool name' });
  if (values.decision !== undefined) filter.decision = oneOf({ flag: '--decision', value: values.decision, allowed: DECISIONS });
  if (values.source !== undefined) filter.source = oneOf({ flag: '--source', value: values.source, allowed: SOURCES });
  if (values.since !== undefined) filter.since = parseAuditTime(values.since, now);
  if (values.until !== undefined) filter.until = parseAuditTime(values.until, now);
  if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) {
    throw new UsageError('--since is later than --until: nothing could match');
  }
  let limit: number | undefined;
  if (values.limit !== undefined) {
    if (!/^\d+$/.test(values.limit) || Number(values.limit) < 1 || !Number.isSafeInteger(Number(values.limit))) {
      throw new UsageError(`--limit must be a whole number of at least 1, not ${JSON.stringify(values.limit)}`);
    }
    limit = Number(values.limit);
  }
  return { help: values.help === true, log: values.log, policy: values.policy, store: values.store, filter, limit, json: values.json === true };
}

/** An empty filter would match nothing (or, for the session, look like it matched everything): say so instead. */
function nonEmpty(options: { flag: string; value: string; what: string }): string {
  if (options.value.trim() === '') throw new UsageError(`${options.flag} needs ${options.what}, not an empty string`);
  return options.value;
}

function oneOf<Value extends string>(options: { flag: string; value: string; allowed: readonly Value[] }): Value {
  const { flag, value, allowed } = options;
  if ((allowed as readonly string[]).includes(value)) return value as Value;
  throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`);
}

export { parseAuditTime };

/**
 * The audit log a command reads: --log, else the log of --policy, else of the
 * policy the last run here used or the policy here, else of the user-level
 * policy (the one agent hosts' hooks judge a project without its own by),
 * else ./.toolgate/audit.jsonl.
 */
export async function resolveLogPath(request: Pick<AuditRequest, 'log' | 'policy'>, io: CliIo, command = 'toolgate audit'): Promise<string> {
  if (request.log !== undefined) return path.resolve(io.cwd, request.log);
  if (request.policy !== undefined) return logOfPolicy(await loadPolicyFile(request.policy, { cwd: io.cwd }));
  const fallback = path.resolve(io.cwd, '.toolgate', 'audit.jsonl');
  try {
    // The log of the policy the last run here used, else of the policy here (see policyForState).
    const { loaded, note } = await policyForState({ policy: undefined, io });
    if (note !== undefined) io.stderr.write(`${escapeControlCharacters(note)}\n`);
    // No policy file here (the built-in default policy's stands in): the user-level policy's log, where there is one.
    const user = note === undefined && !existsSync(loaded.path) ? userPolicyFile(io.env) : undefined;
    if (user === undefined) return logOfPolicy(loaded);
    io.stderr.write(`toolgate: the log of your user-level policy ${escapeControlCharacters(user)} (no policy here; pass --policy or --log to choose another)\n`);
    return logOfPolicy(await loadPolicyFile(user));
  } catch (error) {
    // Reading the log must not depend on the policy being valid today.
    const firstLine = errorMessage(error).split('\n')[0] ?? '';
    io.stderr.write(`${command}: warning: ignoring the policy (${escapeControlCharacters(firstLine)}); reading ${displayPath(fallback, io.cwd)}\n`);
    return fallback;
  }
}

function logOfPolicy(loaded: Awaited<ReturnType<typeof loadPolicyFile>>): string {
  return auditLogPath(loaded);
}


async function printLog(options: { request: AuditRequest; items: AsyncIterable<AuditLogItem>; shownPath: string; io: CliIo }): Promise<number> {
  const { request, io, shownPath } = options;
  const matches = auditEntryPredicate(request.filter);
  const output = createOutput(io);
  const format = request.json ? formatJson : createTableFormatter(io);
  const { limit } = request;
  // With --limit only the last N matches are kept, in a ring: memory stays bounded by N.
  const kept: (AuditEntry | AuditEvent)[] = [];
  const show = (record: AuditEntry | AuditEvent) => (isEvent(record) ? formatEvent(record, request.json) : format(record));
  let keptStart = 0;
  let skipped = 0;
  let shown = 0;
  for await (const item of options.items) {
    if ('error' in item) {
      skipped += 1;
      io.stderr.write(`${escapeControlCharacters(shownPath)}:${item.line}: skipped: ${escapeControlCharacters(item.error)}\n`);
      continue;
    }
    const record = 'event' in item ? item.event : item.entry;
    if ('event' in item ? !eventMatches(item.event, request.filter) : !matches(item.entry)) continue;
    if (limit !== undefined) {
      if (kept.length < limit) kept.push(record);
      else {
        kept[keptStart] = record;
        keptStart = (keptStart + 1) % limit;
      }
      continue;
    }
    if (shown === 0 && !request.json) await output.write(tableHeader(io));
    shown += 1;
    await output.write(show(record));
  }
  for (let index = 0; index < kept.length; index++) {
    const record = kept[(keptStart + index) % kept.length]!;
    if (shown === 0 && !request.json) await output.write(tableHeader(io));
    shown += 1;
    await output.write(show(record));
  }
  await output.end();
  if (shown === 0 && !request.json) io.stderr.write(`no matching entries in ${escapeControlCharacters(shownPath)}\n`);
  return skipped > 0 ? EXIT.badInput : EXIT.ok;
}

function isEvent(record: AuditEntry | AuditEvent): record is AuditEvent {
  return record.kind === 'definition_changed';
}

/** Events carry no decision: filters on decisions, sources, approvers, runs or sessions leave them out. */
function eventMatches(event: AuditEvent, filter: AuditFilter): boolean {
  const { decision, source, session, chat, run, approver } = filter;
  if ([decision, source, session, chat, run, approver].some((value) => value !== undefined)) return false;
  if (filter.tool !== undefined && filter.tool !== event.tool) return false;
  const time = Date.parse(event.time);
  if (filter.since !== undefined && !(time >= filter.since)) return false;
  if (filter.until !== undefined && !(time <= filter.until)) return false;
  return true;
}

function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** Batches writes and waits for the stream to drain, so a huge log piped into a pager does not pile up in memory. */
function createOutput(io: CliIo): { write(text: string): Promise<void>; end(): Promise<void> } {
  const HIGH_WATER = 64 * 1024;
  let pending: string[] = [];
  let size = 0;
  const stream = io.stdout as CliIo['stdout'] & {
    once?: (event: string, listener: () => void) => unknown;
    off?: (event: string, listener: () => void) => unknown;
    destroyed?: boolean;
  };
  async function drain(): Promise<void> {
    const text = pending.join('');
    pending = [];
    size = 0;
    if (text === '') return;
    const accepted = stream.write(text);
    if (accepted !== false || typeof stream.once !== 'function' || stream.destroyed === true) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        for (const event of ['drain', 'close', 'error']) stream.off?.(event, done);
        resolve();
      };
      for (const event of ['drain', 'close', 'error']) stream.once!(event, done);
    });
  }
  return {
    async write(text) {
      pending.push(text);
      size += text.length;
      if (size >= HIGH_WATER) await drain();
    },
    end: drain,
  };
}
