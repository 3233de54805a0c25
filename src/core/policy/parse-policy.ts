import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { PolicyError, type PolicyIssue } from '../errors/policy-error.ts';
import type { Policy } from './policy.ts';
import { formatPath, normalizePolicy, type PathIssue } from './normalize-policy.ts';

/**
 * Parses a policy from YAML or JSON text (JSON is read as YAML, so both get
 * the same line and column numbers). Duplicate keys are errors, as are
 * unknown keys, wrong types and failing rule examples; every error names the
 * file, line, column and key path.
 *
 * @example
 * const policy = parsePolicy({ text: 'tools:\n  read_file: allow\n', source: 'toolgate.yaml' });
 */
export function parsePolicy(options: { text: string; source?: string }): Policy {
  const source = options.source ?? '<inline>';
  const lineCounter = new LineCounter();
  const document = parseDocument(options.text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true });
  if (document.errors.length > 0) {
    throw new PolicyError({
      file: source,
      issues: document.errors.map((error) => {
        const position = lineCounter.linePos(error.pos[0]);
        return { path: '', message: firstLine(error.message), line: position.line, column: position.col };
      }),
    });
  }
  const data: unknown = document.toJS({ maxAliasCount: 100 });
  return normalizePolicy(data, {
    source,
    locate: (issue) => locateIssue(issue, document, lineCounter),
  });
}

function locateIssue(issue: PathIssue, document: Document, lineCounter: LineCounter): PolicyIssue {
  const { atKey, path, ...rest } = issue;
  const offset = offsetOf(document, path, atKey === true);
  if (offset === undefined) return { ...rest, path: formatPath(path) };
  const position = lineCounter.linePos(offset);
  return { ...rest, path: formatPath(path), line: position.line, column: position.col };
}

/** The source offset of the node at `path`, or of its nearest existing ancestor. */
function offsetOf(document: Document, path: readonly (string | number)[], atKey: boolean): number | undefined {
  let node: unknown = document.contents;
  let offset = rangeStart(node);
  for (let index = 0; index < path.length; index++) {
    const segment = path[index];
    const last = index === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
      if (pair === undefined) return offset;
      if (last && atKey) return rangeStart(pair.key) ?? offset;
      node = pair.value;
      offset = rangeStart(node) ?? rangeStart(pair.key) ?? offset;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      offset = rangeStart(node) ?? offset;
    } else {
      return offset;
    }
  }
  return offset;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range === undefined || range === null ? undefined : range[0];
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
