import { isMap, isPair, isScalar, isSeq, type Document, type Node } from 'yaml';

/**
 * The source offset of the node at `path` in a parsed YAML document (or of
 * its nearest existing ancestor), for error messages with line and column.
 * `atKey` points at the key itself rather than its value (unknown keys).
 *
 * @example
 * const offset = yamlOffsetOf({ document, path: ['tools', 'send_email'], atKey: true });
 */
export function yamlOffsetOf(options: { document: Document; path: readonly (string | number)[]; atKey: boolean }): number | undefined {
  const { path, atKey } = options;
  let node: unknown = options.document.contents;
  let offset = yamlRangeStart(node);
  for (const [index, segment] of path.entries()) {
    const last = index === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
      if (pair === undefined) return offset;
      if (last && atKey) return yamlRangeStart(pair.key) ?? offset;
      node = pair.value;
      offset = yamlRangeStart(node) ?? yamlRangeStart(pair.key) ?? offset;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      offset = yamlRangeStart(node) ?? offset;
    } else {
      return offset;
    }
  }
  return offset;
}

/** Where a YAML node starts in the source, if it has a range. */
export function yamlRangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range === undefined || range === null ? undefined : range[0];
}
