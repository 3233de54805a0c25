import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { yamlCoreSchemaIssues, YAML_CORE_SCHEMA_OPTIONS } from './yaml-core-schema-issues.ts';
import { nonScalarKeyIssues, sameYamlKey, yamlKeyText } from './yaml-keys.ts';
import { yamlOffsetOf, yamlRangeStart } from './yaml-offset.ts';
import { PolicyError, type PolicyIssue } from '../errors/policy-error.ts';
import type { Policy } from './policy.ts';
import { formatPath, normalizePolicy, type PathIssue } from './normalize-policy.ts';

/** More syntax errors than this: the file is not YAML at all, and listing them would print it whole. */
const MAX_SYNTAX_ISSUES = 5;

/**
 * Parses a policy from YAML or JSON text (JSON is read as YAML, so both get
 * the same line and column numbers). Duplicate keys are errors (compared as
 * the text they become: `1` and `"1"` are one key), as are keys that are not
 * plain or quoted text, unknown keys, wrong types and failing rule examples;
 * so is anything outside YAML 1.2's core schema (merge keys, tags,
 * `%YAML 1.1`). Every error names the file, line, column and key path.
 *
 * @example
 * const policy = parsePolicy({ text: 'tools:\n  read_file: allow\n', source: 'toolgate.yaml' });
 */
export function parsePolicy(options: { text: string; source?: string }): Policy {
  const source = options.source ?? '<inline>';
  const lineCounter = new LineCounter();
  // Keys are compared as the text they become, not by type: `1` and `"1"` are one key.
  const document = parseDocument(options.text, { lineCounter, uniqueKeys: sameYamlKey, prettyErrors: false, strict: true, ...YAML_CORE_SCHEMA_OPTIONS });
  if (document.errors.length > 0) {
    const duplicates = document.errors.some((error) => error.code === 'DUPLICATE_KEY') ? duplicateKeyIssues(options.text, lineCounter) : [];
    const syntax = document.errors.filter((error) => error.code !== 'DUPLICATE_KEY' || duplicates.length === 0);
    if (syntax.length > MAX_SYNTAX_ISSUES) {
      // A file that is not YAML at all (a README, a script) has an error on nearly every line: one line says it.
      const position = lineCounter.linePos(syntax[0]!.pos[0]);
      const message = `this is not a YAML or JSON policy (${syntax.length} syntax errors; the first: ${firstLine(syntax[0]!.message)})`;
      throw new PolicyError({ file: source, issues: [{ path: '', message, line: position.line, column: position.col }] });
    }
    throw new PolicyError({
      file: source,
      issues: [
        ...duplicates,
        // Otherwise fixing the duplicates would only reveal these on the next load.
        ...nonScalarKeyIssues({ document, lineCounter }),
        ...syntax.map((error) => {
          const position = lineCounter.linePos(error.pos[0]);
          return { path: '', message: firstLine(error.message), line: position.line, column: position.col };
        }),
      ],
    });
  }
  const schemaIssues = [...yamlCoreSchemaIssues({ document, text: options.text, lineCounter }), ...nonScalarKeyIssues({ document, lineCounter })];
  // Anything else the parser warns about is not read the way it looks either.
  for (const warning of document.warnings) {
    if (warning.code === 'TAG_RESOLVE_FAILED') continue;
    const position = lineCounter.linePos(warning.pos[0]);
    schemaIssues.push({ path: '', message: firstLine(warning.message), line: position.line, column: position.col });
  }
  if (schemaIssues.length > 0) throw new PolicyError({ file: source, issues: schemaIssues });
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // An alias bomb (aliases of aliases, expanding exponentially) ends here.
    throw new PolicyError({ file: source, issues: [{ path: '', message: `cannot expand the YAML: ${(error as Error).message}`, expected: 'at most 100 alias expansions' }] });
  }
  const policy = normalizePolicy(data, {
    source,
    locate: (issue) => locateIssue(issue, document, lineCounter),
  });
  // Each rule's key path located once: a policy is asked where its rules are for every call judged (a replay, tens of thousands).
  const located = new Map<string, string | undefined>();
  const ruleAt = (rule: string) => {
    const written = writtenKeyPath(rule);
    if (written === undefined) return undefined;
    if (!located.has(written)) located.set(written, ruleLocation({ written, source, document, lineCounter }));
    return located.get(written);
  };
  return { ...policy, ruleAt };
}

/** The key path a rule's name starts with (`shell.rules[3]` of `shell.rules[3] (git push)`). */
function writtenKeyPath(rule: string): string | undefined {
  return /^[^\s(]+/.exec(rule)?.[0];
}

/** `shell.rules[2] (match: rm)` → the line of `shell.rules[2]` in the file, as `source:line`. */
function ruleLocation(options: { written: string; source: string; document: Document; lineCounter: LineCounter }): string | undefined {
  const { written } = options;
  const path: (string | number)[] = [];
  for (const [, key, index] of written.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) path.push(index === undefined ? key! : Number(index));
  // A key left to its default (a zone's approval.write) is located at what holds it (the zone).
  while (path.length > 2 && !options.document.hasIn(path)) path.pop();
  if (path.length === 0 || !options.document.hasIn(path)) return undefined;
  const offset = yamlOffsetOf({ document: options.document, path, atKey: true });
  return offset === undefined ? undefined : `${options.source}:${options.lineCounter.linePos(offset).line}`;
}

/** Every duplicated key with its key path; parsed again with duplicates allowed so they can be walked. */
function duplicateKeyIssues(text: string, lineCounter: LineCounter): PolicyIssue[] {
  const document = parseDocument(text, { uniqueKeys: false, prettyErrors: false, ...YAML_CORE_SCHEMA_OPTIONS });
  const issues: PolicyIssue[] = [];
  const walk = (node: unknown, path: (string | number)[]): void => {
    if (isMap(node)) {
      const seen = new Map<string, unknown>();
      for (const item of node.items) {
        if (!isPair(item)) continue;
        const key = yamlKeyText(item.key);
        if (seen.has(key)) {
          const offset = yamlRangeStart(item.key);
          const position = offset === undefined ? undefined : lineCounter.linePos(offset);
          const message = `duplicate key ${JSON.stringify(key)}: a key may appear only once${typedAlike(seen.get(key), item.key)}`;
          issues.push({ path: formatPath([...path, key]), message, expected: 'each key once', found: `${JSON.stringify(key)} again`, ...(position === undefined ? {} : { line: position.line, column: position.col }) });
        } else {
          seen.set(key, item.key);
        }
        walk(item.value, [...path, key]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => walk(item, [...path, index]));
    }
  };
  walk(document.contents, []);
  return issues;
}

/**
 * Why two keys written differently (`1` and `"1"`) are one key, or nothing
 * when they are written alike: a person reading the file sees two keys.
 */
function typedAlike(first: unknown, second: unknown): string {
  if (!isScalar(first) || !isScalar(second) || first.value === second.value) return '';
  return ` (keys are read as text, so ${writtenKey(first.value)} and ${writtenKey(second.value)} are the same key)`;
}

function writtenKey(value: unknown): string {
  if (value === null) return '~';
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function locateIssue(issue: PathIssue, document: Document, lineCounter: LineCounter): PolicyIssue {
  const { atKey, path, ...rest } = issue;
  const offset = yamlOffsetOf({ document, path, atKey: atKey === true });
  if (offset === undefined) return { ...rest, path: formatPath(path) };
  const position = lineCounter.linePos(offset);
  return { ...rest, path: formatPath(path), line: position.line, column: position.col };
}

/** The source offset of the node at `path`, or of its nearest existing ancestor. */
function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
