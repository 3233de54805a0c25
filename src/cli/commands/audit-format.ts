/**
 * How `toolgate audit` prints records: one JSON line each (--json), or a
 * table sized to the terminal, every field from the log escaped so that
 * nothing a model put in a call can drive the terminal.
 */
import { shownSession, type AuditEvent } from '../../audit/read-audit-log.ts';
import type { AuditEntry } from '../../core/audit-entry.ts';
import { callSummary } from '../../audit/call-summary.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { terminalSafeJson } from '../../core/terminal-safe-json.ts';
import type { CliIo } from '../cli-io.ts';

/**
 * A definition-change event as a line of its own.
 *
 * @example
 * formatEvent(event, false) // '2026-12-08T…  definition changed: files/write_file — …\n'
 */
export function formatEvent(event: AuditEvent, json: boolean): string {
  if (json) return formatJson(event as unknown as AuditEntry);
  const server = typeof event.server === 'string' ? `${event.server}/` : '';
  return `${escapeControlCharacters(event.time)}  definition changed: ${escapeControlCharacters(server + event.tool)}${typeof event.reason === 'string' ? ` — ${escapeControlCharacters(event.reason)}` : ''}\n`;
}

/** The record as stored, with every character the sanitiser would escape written as a JSON `\\u` escape (still the same JSON value). */
export function formatJson(entry: AuditEntry): string {
  return `${terminalSafeJson(entry)}\n`;
}

/**
 * Makes text safe to print: control characters (escape sequences, carriage
 * returns, C1 controls) and bidirectional overrides become visible escapes,
 * so a tool name or reason from a log cannot clear the screen or disguise itself.
 *
 * @example
 * escapeControlCharacters('rm\u001b[2J') // 'rm\\x1b[2J'
 */
export function escapeControlCharacters(text: string): string {
  return sanitizeTerminalText(text);
}

/** The session is not a column: an agent host's (`claude-code:` and a UUID) is 48 characters, shown whole on a line of its own above its rows. */
const COLUMNS = { time: 20, tool: 16, outcome: 16, source: 7, approver: 10, rule: 20, call: 20 } as const;
const SEPARATOR = '  ';
/** Where the reason stops when the output is not a terminal of known width. */
const REASON_WIDTH_UNBOUNDED = 200;
const REASON_WIDTH_MINIMUM = 16;

function reasonWidth(io: CliIo): number {
  const fixed = Object.values(COLUMNS).reduce((sum, width) => sum + width + SEPARATOR.length, 0);
  const columns = io.stdout.isTTY === true ? io.stdout.columns : undefined;
  return columns === undefined || columns <= 0 ? REASON_WIDTH_UNBOUNDED : Math.max(REASON_WIDTH_MINIMUM, columns - fixed);
}

/**
 * The table's header row, sized to the terminal.
 *
 * @example
 * io.stdout.write(tableHeader(io))
 */
export function tableHeader(io: CliIo): string {
  return tableRow(['TIME', 'TOOL', 'VERDICT→DECISION', 'SOURCE', 'APPROVER', 'RULE', 'CALL', 'REASON'], reasonWidth(io));
}

/**
 * Formats records as rows of the table, the reason column as wide as the terminal leaves.
 *
 * @example
 * const row = createTableFormatter(io); io.stdout.write(row(entry))
 */
export function createTableFormatter(io: CliIo): (entry: AuditEntry) => string {
  const width = reasonWidth(io);
  let session: string | undefined;
  return (entry) => {
    const shown = shownSession(entry.session) || '-';
    const heading = shown === session ? '' : `session ${escapeControlCharacters(shown)}\n`;
    session = shown;
    return heading + tableRow(
      [
        shortTime(entry.time),
        entry.tool,
        `${entry.verdict}→${entry.decision}`,
        entry.source,
        entry.approver ?? (entry.reported_by === undefined ? '-' : `hook:${entry.reported_by}`),
        // Where the rule is written, when the entry says: the line a person edits.
        entry.rule_at === undefined ? (entry.rule ?? '-') : `${entry.rule ?? '-'} (${entry.rule_at})`,
        callSummary(entry.args),
        entry.reason,
      ],
      width,
    );
  };
}

/** UTC to the second: the milliseconds stay in --json. */
function shortTime(time: string): string {
  const parsed = Date.parse(time);
  return Number.isFinite(parsed) ? new Date(parsed).toISOString().replace(/\.\d{3}Z$/, 'Z') : time;
}

function tableRow(cells: readonly string[], reasonCellWidth: number): string {
  const widths = [...Object.values(COLUMNS), reasonCellWidth];
  const parts = cells.map((cell, index) => {
    const width = widths[index]!;
    const fitted = fit(escapeControlCharacters(String(cell)), width);
    return index === cells.length - 1 ? fitted : padEnd(fitted, width);
  });
  return `${parts.join(SEPARATOR)}\n`;
}

/** Cuts by code point, never through a surrogate pair, and marks the cut. */
function fit(text: string, width: number): string {
  const characters = Array.from(text);
  return characters.length <= width ? text : `${characters.slice(0, width - 1).join('')}…`;
}

function padEnd(text: string, width: number): string {
  const length = Array.from(text).length;
  return length >= width ? text : text + ' '.repeat(width - length);
}
