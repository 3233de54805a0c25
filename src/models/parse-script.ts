import path from 'node:path';
import { closestName } from '../core/closest-name.ts';
import type { z } from 'zod';
import { ScriptError, type ScriptIssue } from './errors/script-error.ts';
import { scriptKeys, scriptSchema, type Script, type ScriptCondition, type ScriptDocument, type ScriptStep } from './script-schema.ts';
import { formatKeyPath, parseYamlWithLocations, type KeyPath, type YamlWithLocations } from './yaml-with-locations.ts';

/** An issue before it is located: a key path rather than a line. */
interface PathIssue {
  path: KeyPath;
  atKey?: boolean;
  message: string;
  expected?: string;
  found?: string;
}

/**
 * Parses a scripted model's script from YAML or JSON text and validates it.
 * Unknown keys, wrong types, steps that say nothing and contradictory
 * conditions are errors; every error names the file, line, column and key
 * path (`demo.yaml:7:5: steps[1].when.last_result: invalid value ...`).
 *
 * @example
 * const script = parseScript({ text: 'steps:\n  - text: "Hello."\n', source: 'hello.yaml' });
 */
export function parseScript(options: { text: string; source?: string }): Script {
  const source = options.source ?? '<inline>';
  const yaml = parseYamlWithLocations(options.text);
  if (yaml.problems.length > 0) {
    throw new ScriptError({
      file: source,
      issues: yaml.problems.map((problem) => ({
        path: formatKeyPath(problem.path),
        message: problem.message,
        ...(problem.expected === undefined ? {} : { expected: problem.expected }),
        ...(problem.found === undefined ? {} : { found: problem.found }),
        ...(problem.position === undefined ? {} : { line: problem.position.line, column: problem.position.column }),
      })),
    });
  }
  const located = (issues: PathIssue[]) => new ScriptError({ file: source, issues: issues.map((issue) => locate(issue, yaml)) });
  if (yaml.data === undefined || yaml.data === null) {
    throw located([{ path: [], message: 'the script is empty', expected: 'a mapping with `steps`', found: 'nothing' }]);
  }
  const parsed = scriptSchema.safeParse(yaml.data);
  if (!parsed.success) throw located(parsed.error.issues.flatMap((issue) => toPathIssues(issue, [], yaml.data)));
  const issues = checkMeaning(parsed.data);
  if (issues.length > 0) throw located(issues);
  return build(parsed.data, source, yaml);
}

/** What the schema cannot say: a step must say or do something; `none` contradicts a tool or text. */
function checkMeaning(document: ScriptDocument): PathIssue[] {
  const issues: PathIssue[] = [];
  for (const [index, step] of document.steps.entries()) {
    const at = ['steps', index] as const;
    if ((step.text === undefined || step.text === '') && (step.tool_calls ?? []).length === 0) {
      issues.push({ path: at, message: 'the step neither says nor does anything', expected: 'a non-empty `text` or at least one entry in `tool_calls`', found: 'neither' });
    }
    const when = step.when;
    if (when === undefined || when === 'otherwise') continue;
    if (when.last_result === undefined && when.tool === undefined && when.contains === undefined) {
      issues.push({ path: [...at, 'when'], message: 'an empty condition', expected: 'last_result, tool or contains (or `when: otherwise`)', found: 'an empty mapping' });
    }
    if (when.last_result === 'none' && (when.tool !== undefined || when.contains !== undefined)) {
      issues.push({
        path: [...at, 'when', 'last_result'],
        message: '`none` means the previous turn made no tool call, so no result can match `tool` or `contains`',
        expected: 'denied, error or succeeded together with tool or contains',
        found: '"none"',
      });
    }
  }
  return issues;
}

function build(document: ScriptDocument, source: string, yaml: YamlWithLocations): Script {
  const steps = document.steps.map((step, index): ScriptStep => {
    const position = yaml.locate(['steps', index]);
    return {
      ...(step.when === undefined ? {} : { when: step.when === 'otherwise' ? 'otherwise' : toCondition(step.when) }),
      ...(step.text === undefined || step.text === '' ? {} : { text: step.text }),
      toolCalls: (step.tool_calls ?? []).map((call) => ({ tool: call.tool, args: call.args ?? {} })),
      ...(position === undefined ? {} : { location: `${source}:${position.line}` }),
    };
  });
  return {
    name: document.name ?? defaultName(source),
    ...(document.description === undefined ? {} : { description: document.description }),
    steps,
    source,
  };
}

function toCondition(when: Exclude<NonNullable<ScriptDocument['steps'][number]['when']>, 'otherwise'>): ScriptCondition {
  return {
    ...(when.last_result === undefined ? {} : { lastResult: when.last_result }),
    ...(when.tool === undefined ? {} : { tool: when.tool }),
    ...(when.contains === undefined ? {} : { contains: when.contains }),
  };
}

function defaultName(source: string): string {
  const base = path.basename(source).replace(/\.(ya?ml|json)$/i, '');
  return base === '' || base.startsWith('<') ? 'script' : base;
}

function locate(issue: PathIssue, yaml: YamlWithLocations): ScriptIssue {
  const position = yaml.locate(issue.path, { atKey: issue.atKey === true });
  return {
    path: formatKeyPath(issue.path),
    message: issue.message,
    ...(issue.expected === undefined ? {} : { expected: issue.expected }),
    ...(issue.found === undefined ? {} : { found: issue.found }),
    ...(position === undefined ? {} : { line: position.line, column: position.column }),
  };
}

/** Turns one zod issue into issues a person can act on: the key path, what was expected, what was found. */
function toPathIssues(issue: z.core.$ZodIssue, prefix: KeyPath, data: unknown): PathIssue[] {
  const at = [...prefix, ...issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment))];
  const found = describe(valueAt(data, at));
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => {
        const known = knownKeysAt(at);
        const suggestion = closestName(key, known);
        return {
          path: [...at, key],
          atKey: true,
          message: `unknown key ${JSON.stringify(key)}${suggestion === undefined ? '' : ` (did you mean ${JSON.stringify(suggestion)}?)`}`,
          expected: `one of ${known.join(', ')}`,
          found: JSON.stringify(key),
        };
      });
    case 'invalid_union': {
      // `when` is `otherwise` or a mapping: report the branch that fits the value's shape.
      const fitting = issue.errors.filter((branch) => !branch.some((inner) => inner.path.length === 0 && (inner.code === 'invalid_type' || inner.code === 'invalid_value')));
      if (fitting.length === 1) return fitting[0]!.flatMap((inner) => toPathIssues(inner, at, data));
      return [{ path: at, message: 'invalid value', expected: '"otherwise" or a mapping with last_result, tool or contains', found }];
    }
    case 'invalid_value':
      return [{ path: at, message: 'invalid value', expected: `one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`, found }];
    case 'invalid_type':
      return [{ path: at, message: found === 'nothing' ? 'missing required key' : 'wrong type', expected: issue.expected === 'record' ? 'a mapping' : issue.expected, found }];
    case 'too_small':
      return [{ path: at, message: issue.origin === 'array' ? 'too few entries' : 'too short', expected: `at least ${String(issue.minimum)}`, found }];
    default:
      return [{ path: at, message: issue.message, found }];
  }
}

/** The keys allowed at a path, read from the path's shape (the script's nesting is fixed). */
function knownKeysAt(path: KeyPath): readonly string[] {
  if (path.length === 0) return scriptKeys.script;
  if (path.length === 2) return scriptKeys.step;
  if (path[2] === 'when') return scriptKeys.condition;
  if (path[2] === 'tool_calls') return scriptKeys.toolCall;
  return [];
}

function valueAt(data: unknown, path: KeyPath): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
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
