import type { PresentedRequest } from '../core/approver.ts';
import { maskSecrets } from '../core/redact.ts';
import { sessionApprovalScope } from '../core/session-approval-scope.ts';
import { shortFieldsFirstKeys } from '../core/short-fields-first.ts';
import { sanitizeTerminalText } from '../core/sanitize-terminal-text.ts';

/** What the gateway knows about the tool behind a request, beyond the request itself. */
export interface ApprovalMessageContext {
  server: string;
  upstreamName: string;
  /** Set while the tool's definition has changed since it was last decided on. */
  changeNote?: string | undefined;
  redactKeys: ReadonlySet<string>;
}

/** A server's description is a summary here: one paragraph, this long at most, and after the arguments. */
const MAX_DESCRIPTION = 300;
const MAX_ARGUMENTS = 2000;

/**
 * The text a person reads in an MCP client's approval dialog: which tool on
 * which server, whether its definition changed, the arguments (short fields
 * first, secrets masked with their size), what "for the rest of this session"
 * would cover, and last what the tool says it does, cut to one short
 * paragraph so a server's description cannot push the arguments out of
 * view. Every part comes from the model or the server, so control
 * characters, escape sequences and bidi overrides are shown as visible
 * escapes, and long parts are cut with a count of what was left out.
 *
 * @example
 * approvalMessage({ request, context: { server: 'files', upstreamName: 'write_file', redactKeys } })
 * // 'toolgate: approve this tool call?\n\nTool: files__write_file ("write_file" on MCP server "files")\n...'
 */
export function approvalMessage(options: { request: PresentedRequest; context: ApprovalMessageContext | undefined; revealSecrets?: boolean | undefined }): string {
  const { request, context } = options;
  const lines = ['toolgate: approve this tool call?', ''];
  const where = context === undefined ? '' : ` (${JSON.stringify(context.upstreamName)} on MCP server ${JSON.stringify(context.server)})`;
  lines.push(`Tool: ${request.tool}${where}`);
  // The change note goes first, on its own lines: a changed description (as long as it likes) must not push it out of view.
  if (context?.changeNote !== undefined) lines.push('', context.changeNote);
  // Revealed only when the person asked to see the secrets; logs and streams never get this text.
  const keys = options.revealSecrets === true ? new Set<string>() : (context?.redactKeys ?? new Set<string>());
  const { text: argumentText, masked } = formatArguments(request.call.args, keys);
  const heading = options.revealSecrets === true ? 'Arguments (secret values shown, as you asked):' : masked === 0 ? 'Arguments:' : `Arguments (${masked} secret ${masked === 1 ? 'value' : 'values'} masked):`;
  lines.push('', heading, cut(argumentText, MAX_ARGUMENTS));
  lines.push('', `"For the rest of this session" covers ${sessionScopeText(request)}.`);
  const note = context?.changeNote;
  const description = singleParagraph(note === undefined ? request.description : request.description.replace(note, ''));
  if (description !== '') lines.push('', `About: ${cut(description, MAX_DESCRIPTION)}`);
  return sanitizeTerminalText(lines.join('\n'), { keepNewlines: true, keepTabs: true });
}

function sessionScopeText(request: PresentedRequest): string {
  try {
    return sessionApprovalScope({ request, call: request.call }).text;
  } catch {
    return 'later calls with an equal approval payload';
  }
}

/** Short fields first (a long body must not push `to` out of view), secrets masked. */
function formatArguments(args: unknown, keys: ReadonlySet<string>): { text: string; masked: number } {
  try {
    const { value, masked } = maskSecrets(args ?? {}, keys);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { text: JSON.stringify(value, null, 2) ?? 'null', masked };
    const record = value as Record<string, unknown>;
    const members = shortFieldsFirstKeys(record).map((key) => `  ${JSON.stringify(key)}: ${(JSON.stringify(record[key], null, 2) ?? 'null').replace(/\n/g, '\n  ')}`);
    return { text: members.length === 0 ? '{}' : `{\n${members.join(',\n')}\n}`, masked };
  } catch {
    return { text: '[arguments that cannot be shown as JSON]', masked: 0 };
  }
}

/** Line breaks and runs of blanks folded into single spaces (a lone `\r` stays, to be shown escaped). */
function singleParagraph(text: string): string {
  return text.replace(/(?:\r?\n|[ \t])+/g, ' ').trim();
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters not shown)`;
}
