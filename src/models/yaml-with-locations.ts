import { LineCounter, parseDocument } from 'yaml';
import { yamlOffsetOf } from '../core/policy/yaml-offset.ts';

export type KeyPath = readonly (string | number)[];

/** A line and column, both 1-based. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** A problem found while reading the YAML itself (syntax, duplicate keys, alias bombs). */
export interface YamlProblem {
  path: KeyPath;
  message: string;
  expected?: string;
  found?: string;
  position?: SourcePosition;
}

export interface YamlWithLocations {
  /** The plain data, `undefined` when `problems` is not empty. */
  data: unknown;
  problems: YamlProblem[];
  /** Where the node at `path` (or its key, with `atKey`) starts; the nearest existing ancestor when it is missing. */
  locate(path: KeyPath, options?: { atKey?: boolean }): SourcePosition | undefined;
}

/**
 * Reads YAML (or JSON, read as YAML so both get the same line and column
 * numbers) strictly: duplicate keys are problems, aliases expand at most 100
 * times. Keeps the document so later validation errors can point at the line
 * and column of a key path.
 *
 * @example
 * const { data, problems, locate } = parseYamlWithLocations('steps:\n  - text: hi\n');
 * locate(['steps', 0, 'text']); // { line: 2, column: 11 }
 */
export function parseYamlWithLocations(text: string): YamlWithLocations {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true });
  const position = (offset: number | undefined): SourcePosition | undefined => {
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const locate = (path: KeyPath, options: { atKey?: boolean } = {}) => position(yamlOffsetOf({ document, path, atKey: options.atKey === true }));
  if (document.errors.length > 0) {
    const problems: YamlProblem[] = document.errors.map((error) => ({
      path: [],
      message: error.code === 'DUPLICATE_KEY' ? 'duplicate key: a key may appear only once' : firstLine(error.message),
      ...(error.code === 'DUPLICATE_KEY' ? { expected: 'each key once' } : {}),
      ...optionalPosition(position(error.pos[0])),
    }));
    return { data: undefined, problems, locate };
  }
  try {
    return { data: document.toJS({ maxAliasCount: 100 }), problems: [], locate };
  } catch (error) {
    // An alias bomb (aliases of aliases, expanding exponentially) ends here.
    return { data: undefined, problems: [{ path: [], message: `cannot expand the YAML: ${(error as Error).message}`, expected: 'at most 100 alias expansions' }], locate };
  }
}

/**
 * `steps[2].tool_calls[0].tool`, the form every error message uses.
 *
 * @example
 * formatKeyPath(['steps', 2, 'when']); // 'steps[2].when'
 */
export function formatKeyPath(path: KeyPath): string {
  let result = '';
  for (const segment of path) result += typeof segment === 'number' ? `[${segment}]` : result === '' ? segment : `.${segment}`;
  return result;
}

function optionalPosition(position: SourcePosition | undefined): { position?: SourcePosition } {
  return position === undefined ? {} : { position };
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
