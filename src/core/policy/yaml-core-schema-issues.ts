/**
 * A policy means what it says only if every reader reads it the same way.
 * YAML 1.1 features change meaning behind the text: a merge key (`<<: *template`)
 * pulls in decisions that the mapping does not show, `%YAML 1.1` turns `yes`
 * and `on` into booleans, and tags (`!!binary`, `!!set`, `!custom`) convert
 * values in ways other tools reading the same file may not. Policy files are
 * YAML 1.2 with the core schema, and anything outside it is a load error at
 * its line and column.
 */
import { isPair, isScalar, isSeq, visit, type Document, type LineCounter, type Node } from 'yaml';
import type { PolicyIssue } from '../errors/policy-error.ts';
import { formatPath } from './normalize-policy.ts';

/** The options that make the `yaml` parser read exactly YAML 1.2's core schema. */
export const YAML_CORE_SCHEMA_OPTIONS = { version: '1.2', schema: 'core', merge: false, resolveKnownTags: false } as const;

/** Tags of the core schema: they name what the plain scalar would be anyway, or a plain collection. */
const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((name) => `tag:yaml.org,2002:${name}`));

/**
 * Every place where `document` steps outside YAML 1.2's core schema:
 * a `%YAML` directive for another version, a merge key, a tag that is not a
 * core-schema tag. Parse with {@link YAML_CORE_SCHEMA_OPTIONS} first.
 *
 * @example
 * const document = parseDocument(text, { lineCounter, ...YAML_CORE_SCHEMA_OPTIONS });
 * yamlCoreSchemaIssues({ document, text, lineCounter }) // [{ path: '', message: 'a YAML merge key ...', line: 4, column: 5 }]
 */
export function yamlCoreSchemaIssues(options: { document: Document; text: string; lineCounter: LineCounter }): PolicyIssue[] {
  const { document, lineCounter } = options;
  const issues: PolicyIssue[] = [];
  const at = (offset: number | undefined) => {
    if (offset === undefined) return {};
    const position = lineCounter.linePos(offset);
    return { line: position.line, column: position.col };
  };
  const directive = document.directives?.yaml;
  if (directive?.explicit === true && directive.version !== '1.2') {
    const offset = /^%YAML\b/m.exec(options.text)?.index;
    issues.push({ path: '', message: `%YAML ${directive.version} is not accepted: a policy is read as YAML 1.2 (core schema), where words like yes and on are strings and merge keys do not exist`, expected: 'no %YAML directive, or %YAML 1.2', found: `%YAML ${directive.version}`, ...at(offset) });
  }
  visit(document, {
    Pair(_key, pair, ancestors) {
      if (isPair(pair) && isScalar(pair.key) && pair.key.value === '<<') {
        issues.push({ path: yamlKeyPath([...ancestors, pair]), message: 'a YAML merge key (<<) copies keys from elsewhere that this mapping does not show, and YAML 1.2 has no merge keys: write the keys out', expected: 'plain keys', found: '<<', ...at(pair.key.range?.[0]) });
      }
    },
    Node(_key, node: Node, ancestors) {
      if (node.tag !== undefined && !CORE_TAGS.has(node.tag)) {
        issues.push({ path: yamlKeyPath([...ancestors, node]), message: `the tag ${node.tag.replace(/^tag:yaml\.org,2002:/, '!!')} is not part of YAML 1.2's core schema: write the plain value`, expected: 'an untagged value', found: node.tag, ...at(node.range?.[0]) });
      }
    },
  });
  return issues.sort((first, second) => (first.line ?? 0) - (second.line ?? 0) || (first.column ?? 0) - (second.column ?? 0));
}

/**
 * `tools.x.<<` from the visitor's ancestors: pairs give their keys, sequences the index of the child.
 *
 * @example
 * visit(document, { Pair(_key, pair, ancestors) { yamlKeyPath([...ancestors, pair]) } }) // 'tools.read_file'
 */
export function yamlKeyPath(chain: readonly unknown[]): string {
  const segments: (string | number)[] = [];
  chain.forEach((item, index) => {
    if (isPair(item)) segments.push(isScalar(item.key) ? String(item.key.value) : String(item.key));
    else if (isSeq(item)) {
      const child = chain[index + 1];
      const at = item.items.indexOf(child as never);
      if (at >= 0) segments.push(at);
    }
  });
  return formatPath(segments);
}
