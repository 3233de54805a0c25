/**
 * Which upstream tool names the gateway lists: those of the MCP
 * specification's characters (SEP-986: A-Z a-z 0-9 _ - ., 1 to 128 long,
 * checked by the SDK's own `validateToolName`). Any other name could pass
 * for another one (zero-width characters, fullwidth or Cyrillic look-alikes
 * of a name a rule blocks), so it is not listed, and the log shows it
 * escaped, with what it could pass for.
 */
import { validateToolName } from '@modelcontextprotocol/sdk/shared/toolNameValidation.js';
import { sanitizeTerminalText } from '../core/sanitize-terminal-text.ts';
import { unsafeToolName } from '../core/tool-name-safety.ts';

/**
 * Why the gateway does not list a tool of this name, or undefined when it does.
 *
 * @example
 * refusedToolName('read_file') // undefined
 * refusedToolName('read\u200bfile') // '"read\\u200bfile" is not a tool name of the MCP specification's characters ...'
 */
export function refusedToolName(name: string): string | undefined {
  if (validateToolName(name).isValid) return undefined;
  const why = unsafeToolName(name);
  return (
    `${JSON.stringify(sanitizeTerminalText(name))} is not a tool name of the MCP specification's characters (A-Z a-z 0-9 _ - ., 1 to 128 long)` +
    `${why === undefined ? '' : `: it ${why}`}; a name that may pass for another is not listed`
  );
}
