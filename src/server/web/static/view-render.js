/**
 * An ApprovalView (src/presentation) as DOM: the command and where it runs,
 * a coloured diff, a file's content in full with line numbers, fields, text,
 * binary content described. The view's strings are already inert (hidden
 * characters shown as visible escapes); here they are inserted as text and
 * the escapes marked so a reader can tell them from typed backslashes.
 */
import { el } from './dom.js';

/** One view line: its spans, escapes and collapse markers styled apart. */
export function lineNode(line, tag = 'span', className = 'line') {
  const node = el(tag, { className });
  const spans = Array.isArray(line?.spans) ? line.spans : [{ text: String(line?.text ?? ''), kind: 'text' }];
  for (const span of spans) {
    if (span.kind === 'escape') node.append(el('span', { className: 'esc', text: span.text, attrs: { title: 'a hidden or control character, shown escaped' } }));
    else if (span.kind === 'marker') node.append(el('span', { className: 'marker', text: span.text }));
    else node.append(document.createTextNode(String(span.text)));
  }
  return node;
}

function code(lines, className, decorate) {
  const pre = el('pre', { className: `code ${className}` });
  for (const [index, line] of lines.entries()) {
    const row = lineNode(line, 'span', 'line');
    if (decorate !== undefined) decorate(row, line, index);
    pre.append(row);
  }
  return pre;
}

function heading(parts) {
  const present = parts.filter((part) => part !== null && part !== undefined);
  if (present.length === 0) return null;
  const node = el('div', { className: 'block-head' });
  present.forEach((part, index) => {
    if (index > 0) node.append(document.createTextNode(' · '));
    node.append(typeof part === 'string' ? document.createTextNode(part) : lineNode(part, 'span', 'label'));
  });
  return node;
}

const DIFF_CLASSES = { '+': 'add', '-': 'del', ' ': 'ctx', '@': 'hunk', header: 'header', note: 'note', other: 'other' };

/**
 * One block of the view.
 *
 * @example
 * container.append(blockNode({ kind: 'command', command: [{ text: 'ls' }], cwd: { text: '/w' } }));
 */
export function blockNode(block) {
  const wrap = el('div', { className: `block block-${String(block?.kind ?? 'unknown')}` });
  switch (block?.kind) {
    case 'command': {
      const lines = block.command.length === 0 ? [{ text: '' }] : block.command;
      wrap.append(code(lines, 'command', (row, _line, index) => row.prepend(el('span', { className: 'prompt', text: index === 0 ? '$ ' : '> ' }))));
      if (block.cwd !== null) wrap.append(el('div', { className: 'cwd' }, [document.createTextNode('in '), lineNode(block.cwd, 'code', 'cwd-path')]));
      return wrap;
    }
    case 'diff':
      wrap.append(heading([block.path]) ?? '');
      if (block.lines.length === 0) wrap.append(el('p', { className: 'empty', text: '(no changes)' }));
      else wrap.append(code(block.lines, 'diff', (row, line) => row.classList.add(`op-${DIFF_CLASSES[line.op] ?? 'other'}`)));
      return wrap;
    case 'file': {
      wrap.append(heading([block.path, block.language]) ?? '');
      if (block.lines.length === 0) {
        wrap.append(el('p', { className: 'empty', text: '(empty file)' }));
        return wrap;
      }
      wrap.append(
        code(block.lines, 'file', (row, line) => {
          row.prepend(el('span', { className: 'gutter', text: line.blank_run === undefined ? String(line.number) : '' }));
          if (block.comment !== null && String(line.text).trimStart().startsWith(block.comment)) row.classList.add('comment');
        }),
      );
      if (block.truncated) wrap.append(el('p', { className: 'note', text: 'The tool kept only the start of this content.' }));
      return wrap;
    }
    case 'fields': {
      const list = el('dl', { className: 'fields' });
      if (block.fields.length === 0) list.append(el('dd', { text: '(no fields)' }));
      for (const field of block.fields) {
        list.append(lineNode(field.key, 'dt', 'key'));
        list.append(el('dd', {}, [code(field.value, 'value')]));
      }
      wrap.append(list);
      return wrap;
    }
    case 'text':
      if (block.lines.length === 0) wrap.append(el('p', { className: 'empty', text: '(empty)' }));
      else wrap.append(code(block.lines, block.preformatted ? 'data' : 'prose'));
      return wrap;
    case 'binary':
      wrap.append(heading([block.path, block.language]) ?? '');
      wrap.append(lineNode(block.description, 'p', 'binary-description'));
      wrap.append(el('p', { className: 'binary-preview' }, [document.createTextNode('starts with: '), lineNode(block.preview, 'code', 'preview'), block.cut ? document.createTextNode('…') : null]));
      return wrap;
    default:
      wrap.append(el('p', { className: 'note', text: 'This part of the request cannot be shown by this page.' }));
      return wrap;
  }
}

/**
 * The whole presentation part of a dialog: warnings, blocks, and the arguments when the blocks are something else.
 *
 * @example
 * card.append(viewNode(pending.presentation));
 */
export function viewNode(view) {
  const node = el('div', { className: 'view' });
  if (view === null || typeof view !== 'object') {
    node.append(el('p', { className: 'note', text: 'No presentation came with this request.' }));
    return node;
  }
  for (const warning of view.warnings ?? []) node.append(el('p', { className: 'warning', text: `⚠ ${warning}` }));
  if (view.hidden_characters > 0) {
    const count = view.hidden_characters;
    node.append(el('p', { className: 'warning', text: `⚠ ${count} hidden or control ${count === 1 ? 'character is' : 'characters are'} shown escaped (marked like this: ` }, [el('span', { className: 'esc', text: '\\u202e' }), document.createTextNode(')')]));
  }
  if (view.masked_secrets > 0) node.append(el('p', { className: 'secret-note', text: `🔒 ${view.masked_secrets} secret ${view.masked_secrets === 1 ? 'value is' : 'values are'} masked (redact.keys)` }));
  for (const block of view.blocks ?? []) node.append(blockNode(block));
  return node;
}
