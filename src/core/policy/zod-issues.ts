import type { z } from 'zod';
import { closestName } from '../closest-name.ts';
import type { PathIssue } from './normalize-policy.ts';
import { policyJsonSchema } from './policy-schema.ts';

/**
 * Turns zod's issues into policy issues a person can act on: the key path,
 * what was expected and what was found. For a union (a tool entry may be a
 * word or an object) it reports the branch that fits the value's shape, so a
 * typo inside an object is reported as that typo, not as "invalid input".
 */
export function zodIssuesToPolicyIssues(issues: readonly z.core.$ZodIssue[], data: unknown): PathIssue[] {
  const result: PathIssue[] = [];
  for (const issue of issues) collect(issue, [], data, result);
  return result;
}

function collect(issue: z.core.$ZodIssue, prefix: PropertyKey[], data: unknown, result: PathIssue[]): void {
  const path = [...prefix, ...issue.path].map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
  const found = describe(valueAt(data, path));
  switch (issue.code) {
    case 'unrecognized_keys':
      for (const key of issue.keys) {
        const known = knownKeys(path);
        const suggestion = closestName(key, known);
        result.push({
          path: [...path, key],
          atKey: true,
          message: `unknown key ${JSON.stringify(key)}${suggestion === undefined ? '' : ` (did you mean ${JSON.stringify(suggestion)}?)`}`,
          expected: known.length > 0 ? `one of ${known.join(', ')}` : 'no other keys',
          found: JSON.stringify(key),
        });
      }
      return;
    case 'invalid_union': {
      const value = valueAt(data, path);
      const fitting = issue.errors.filter((branch) => !branch.some((inner) => inner.path.length === 0 && inner.code === 'invalid_type'));
      const chosen = fitting.length === 1 ? fitting[0]! : fitting.find((branch) => branch.every((inner) => inner.code !== 'invalid_value' || inner.path.length > 0));
      if (chosen !== undefined && typeof value === 'object' && value !== null) {
        for (const inner of chosen) collect(inner, path, data, result);
        return;
      }
      const expectations = issue.errors.map((branch) => expectationOf(branch[0])).filter((text): text is string => text !== undefined);
      result.push({ path, message: 'invalid value', expected: [...new Set(expectations)].join(' or ') || 'a valid value', found });
      return;
    }
    case 'invalid_value':
      result.push({ path, message: 'invalid value', expected: `one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`, found });
      return;
    case 'invalid_type':
      result.push({ path, message: found === 'nothing' ? 'missing required key' : 'wrong type', expected: issue.expected, found });
      return;
    case 'invalid_format':
      result.push({ path, message: 'invalid format', expected: issue.format === 'regex' ? 'a duration such as "30s", "5m" or a number of seconds' : issue.format, found });
      return;
    case 'too_small':
      result.push({ path, message: issue.message, expected: `at least ${String(issue.minimum)}`, found });
      return;
    default:
      result.push({ path, message: issue.message, found });
  }
}

function expectationOf(issue: z.core.$ZodIssue | undefined): string | undefined {
  if (issue === undefined) return undefined;
  if (issue.code === 'invalid_value') return issue.values.map((value) => JSON.stringify(value)).join(' | ');
  if (issue.code === 'invalid_type') return issue.expected;
  if (issue.code === 'invalid_format') return 'a duration such as "30s"';
  return undefined;
}

type JsonSchema = { properties?: Record<string, JsonSchema>; additionalProperties?: JsonSchema | boolean; items?: JsonSchema; anyOf?: JsonSchema[] };
let cachedSchema: JsonSchema | undefined;

/** The keys allowed at `path`, read from the same schema that rejected the key. */
function knownKeys(path: readonly (string | number)[]): string[] {
  cachedSchema ??= policyJsonSchema() as JsonSchema;
  let nodes: JsonSchema[] = [cachedSchema];
  for (const segment of path) {
    const next: JsonSchema[] = [];
    for (const node of nodes.flatMap((candidate) => [candidate, ...(candidate.anyOf ?? [])])) {
      if (typeof segment === 'number' && node.items !== undefined) next.push(node.items);
      if (typeof segment === 'string') {
        const property = node.properties?.[segment];
        if (property !== undefined) next.push(property);
        else if (typeof node.additionalProperties === 'object') next.push(node.additionalProperties);
      }
    }
    nodes = next;
  }
  const keys = nodes.flatMap((node) => [node, ...(node.anyOf ?? [])]).flatMap((node) => Object.keys(node.properties ?? {}));
  return [...new Set(keys)].filter((key) => key !== '$schema');
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return `${typeof value} ${String(value)}`;
}
