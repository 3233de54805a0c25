/**
 * Building DOM without HTML: every piece of text goes in as a text node
 * (textContent), never through innerHTML, so text from a model or a tool
 * can only ever be shown, never run.
 */

/**
 * An element with classes, text and children.
 *
 * @example
 * el('p', { className: 'reason', text: view.reason })
 */
export function el(tag, options = {}, children = []) {
  const node = document.createElement(tag);
  if (options.className !== undefined) node.className = options.className;
  if (options.text !== undefined && options.text !== null) node.textContent = String(options.text);
  if (options.attrs !== undefined) for (const [name, value] of Object.entries(options.attrs)) node.setAttribute(name, String(value));
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

/** A button that runs `action` on click. */
export function button(label, className, action) {
  const node = el('button', { className, text: label, attrs: { type: 'button' } });
  node.addEventListener('click', action);
  return node;
}

/** Removes every child of `node`. */
export function clear(node) {
  while (node.firstChild !== null) node.firstChild.remove();
}
