import type { PresentedRequest } from '../core/approver.ts';
import { redact } from '../core/redact.ts';
import { sanitizeTerminalText } from '../approvers/terminal/sanitize-terminal-text.ts';

/** What the gateway knows about the tool behind a request, beyond the request itself. */
export interface ApprovalMessageContext {
  server: string;
  upstreamName: string;
  /** Set while the tool's definition has changed since it was last decided on. */
  changeNote?: string | undefined;
  redactKeys: ReadonlySet<string>;
}

const MAX_DESCRIPTION = 800;
const MAX_ARGUMENTS = 2000;

/**
 * The text a person reads in an MCP client's approval dialog: which tool on
 * which server, what it says it does, whether its definition changed, and the
 * arguments with secrets redacted. Every part comes from the model or the
 * server, so control characters, escape sequences and bidi overrides are
 * shown as visible escapes, and long parts are cut with a count of what was
 * left out.
 *
 * @example
 * approvalMessage({ request, context: { server: 'files', upstreamName: 'write_file', redactKeys } })
 * // 'toolgate: approve this tool call?\n\nTool: files__write_file ("write_file" on MCP server "files")\n...'
 */
export function approvalMessage(options: { request: PresentedRequest; context: ApprovalMessageContext | undefined }): string {
  const { request, context } = options;
  const lines = ['toolgate: approve this tool call?', ''];
  const where = context === undefined ? '' : ` (${JSON.stringify(context.upstreamName)} on MCP server ${JSON.stringify(context.server)})`;
  lines.push(`Tool: ${request.tool}${where}`);
  // The change note goes first, on its own lines: a changed description (as long as it likes) must not push it out of view.
  if (context?.changeNote !== undefined) lines.push('', context.changeNote);
  const note = context?.changeNote;
  const description = (note === undefined ? request.description : request.description.replace(note, '')).trim();
  if (description !== '') lines.push('', `About: ${cut(description, MAX_DESCRIPTION)}`);
  lines.push('', 'Arguments (secrets redacted):', cut(formatArguments(request.call.args, context?.redactKeys ?? new Set()), MAX_ARGUMENTS));
  return sanitizeTerminalText(lines.join('\n'), { keepNewlines: true, keepTabs: true });
}

function formatArguments(args: unknown, keys: ReadonlySet<string>): string {
  try {
    return JSON.stringify(redact(args ?? {}, keys), null, 2) ?? 'null';
  } catch {
    return '[arguments that cannot be shown as JSON]';
  }
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters not shown)`;
}
