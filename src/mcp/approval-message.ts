import type { PresentedRequest } from '../core/approver.ts';
import { sanitizeTerminalText } from '../core/sanitize-terminal-text.ts';
import { approvalView, singleParagraph } from '../presentation/approval-view.ts';
import { blockAsText, blockHeading } from '../presentation/view-as-text.ts';

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
  // Revealed only when the person asked to see the secrets; logs and streams never get this text.
  const reveal = options.revealSecrets === true;
  const view = approvalView(request, { redactKeys: reveal ? new Set() : (context?.redactKeys ?? new Set()), revealSecrets: reveal });
  const lines = ['toolgate: approve this tool call?', ''];
  const where = context === undefined ? '' : ` (${JSON.stringify(context.upstreamName)} on MCP server ${JSON.stringify(context.server)})`;
  lines.push(`Tool: ${view.tool}${where}`);
  // The change note goes first, on its own lines: a changed description (as long as it likes) must not push it out of view.
  if (context?.changeNote !== undefined) lines.push('', context.changeNote);
  const masked = view.arguments_masked_secrets;
  const heading = reveal ? 'Arguments (secret values shown, as you asked):' : masked === 0 ? 'Arguments:' : `Arguments (${masked} secret ${masked === 1 ? 'value' : 'values'} masked):`;
  lines.push('', heading, cut(blockAsText(view.arguments), MAX_ARGUMENTS));
  // A presentation other than the arguments themselves (a diff, a file, a command) is what the call will do: shown too.
  for (const block of request.presentation === undefined ? [] : view.blocks) {
    if (block.kind !== 'fields') lines.push('', blockHeading(block), cut(blockAsText(block), MAX_ARGUMENTS));
  }
  lines.push('', `"For the rest of this session" covers ${view.session_scope}.`);
  const note = context?.changeNote;
  // The summary is the description folded into one paragraph, so the note is folded the same way to be taken out of it.
  const shownNote = note === undefined ? undefined : sanitizeTerminalText(singleParagraph(note), { collapse: true });
  const description = (shownNote === undefined || shownNote === '' ? view.summary : view.summary.replace(shownNote, '')).trim();
  if (description !== '') lines.push('', `About: ${cut(description, MAX_DESCRIPTION)}`);
  return sanitizeTerminalText(lines.join('\n'), { keepNewlines: true, keepTabs: true });
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters not shown)`;
}
