/**
 * A view's blocks as plain text, for a dialog that shows only text (MCP
 * elicitation): the same lines the terminal draws, without styles. The text
 * is as inert as the view it comes from.
 */
import type { ViewBlock } from './approval-view-types.ts';
import { fieldsAsJsonLines } from './fields-block.ts';

/**
 * One block as lines of plain text.
 *
 * @example
 * blockAsText({ kind: 'command', command: [{ text: 'ls -la' }], cwd: { text: '/work' } }) // '$ ls -la\nin /work'
 */
export function blockAsText(block: ViewBlock): string {
  switch (block.kind) {
    case 'command': {
      const lines = (block.command.length === 0 ? [{ text: '' }] : block.command).map((line, index) => `${index === 0 ? '$' : '>'} ${line.text}`);
      if (block.cwd !== null) lines.push(`in ${block.cwd.text}`);
      return lines.join('\n');
    }
    case 'diff':
      return block.lines.length === 0 ? '(no changes)' : block.lines.map((line) => line.text).join('\n');
    case 'file': {
      const last = block.lines[block.lines.length - 1];
      if (last === undefined) return '(empty file)';
      const digits = String(last.number + (last.blank_run ?? 1) - 1).length;
      const lines = block.lines.map((line) => `${(line.blank_run === undefined ? String(line.number) : '').padStart(digits)}  ${line.text}`);
      if (block.truncated) lines.push('(only the start of the content is shown)');
      return lines.join('\n');
    }
    case 'fields':
      return fieldsAsJsonLines(block)
        .map((parts) => parts.map((part) => part.text).join(''))
        .join('\n');
    case 'text':
      return block.lines.length === 0 ? '(empty)' : block.lines.map((line) => line.text).join('\n');
    case 'binary':
      return `${block.description.text}\nstarts with: ${block.preview.text}${block.cut ? '…' : ''}`;
  }
}

/**
 * A heading for a block in a text dialog.
 *
 * @example
 * blockHeading({ kind: 'diff', path: { text: 'a.txt' }, lines: [] }) // 'Changes to a.txt:'
 */
export function blockHeading(block: ViewBlock): string {
  switch (block.kind) {
    case 'command':
      return 'Command:';
    case 'diff':
      return block.path === null ? 'Changes:' : `Changes to ${block.path.text}:`;
    case 'file':
      return block.path === null ? 'File content:' : `Content of ${block.path.text}:`;
    case 'fields':
      return 'Fields:';
    case 'text':
      return 'Details:';
    case 'binary':
      return block.path === null ? 'Binary content:' : `Binary content of ${block.path.text}:`;
  }
}
