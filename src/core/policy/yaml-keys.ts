/**
 * A policy is used as a plain object, so every key ends up as a string: `1`
 * and `"1"`, `true` and `"true"`, `~` and `""` become the same property, and
 * the last one silently wins. The parser compares keys by their typed values,
 * so those pairs were not duplicates to it. Here keys are compared the way
 * they will be used (as text), and only scalar keys are accepted: a
 * collection key (`? [shell]`) would become the text `[ shell ]` and an alias
 * key (`*name`) the anchored text, neither of which the file shows.
 */
import { isAlias, isPair, isScalar, visit, type Document, type LineCounter } from 'yaml';
import type { PolicyIssue } from '../errors/policy-error.ts';
import { yamlKeyPath } from './yaml-core-schema-issues.ts';
import { yamlRangeStart } from './yaml-offset.ts';

/**
 * The property name a scalar key becomes in the parsed policy; the same
 * rule as the `yaml` package's `toJS` (a null key is the empty string).
 *
 * @example
 * yamlKeyText(new Scalar(1)) // '1'
 */
export function yamlKeyText(key: unknown): string {
  if (!isScalar(key)) return String(key);
  return key.value === null ? '' : String(key.value);
}

/**
 * The `uniqueKeys` comparator for policy files: two scalar keys are the same
 * key when they become the same property. Other keys are only compared by
 * identity here; {@link nonScalarKeyIssues} refuses them.
 *
 * @example
 * parseDocument(text, { uniqueKeys: sameYamlKey }) // `1: a` then `"1": b` is a DUPLICATE_KEY error
 */
export function sameYamlKey(first: unknown, second: unknown): boolean {
  if (first === second) return true;
  return isScalar(first) && isScalar(second) && yamlKeyText(first) === yamlKeyText(second);
}

/**
 * Every key in `document` that is not written out as a scalar (a flow or
 * block collection, or an alias), with its line, column and key path.
 *
 * @example
 * nonScalarKeyIssues({ document, lineCounter }) // [{ path: 'tools["[ shell ]"]', message: 'a key must be ...', line: 2, column: 5, ... }]
 */
export function nonScalarKeyIssues(options: { document: Document; lineCounter: LineCounter }): PolicyIssue[] {
  const { document, lineCounter } = options;
  const issues: PolicyIssue[] = [];
  visit(document, {
    Pair(_key, pair, ancestors) {
      if (!isPair(pair) || pair.key === null || isScalar(pair.key)) return;
      const offset = yamlRangeStart(pair.key);
      const position = offset === undefined ? undefined : lineCounter.linePos(offset);
      issues.push({
        path: yamlKeyPath([...ancestors, pair]),
        message: 'a key must be written out as plain or quoted text: a policy uses every key as text, so this key would become something the file does not show',
        expected: 'a plain or quoted key',
        found: isAlias(pair.key) ? `the alias ${String(pair.key)}` : `the collection ${String(pair.key)}`,
        ...(position === undefined ? {} : { line: position.line, column: position.col }),
      });
    },
  });
  return issues;
}

