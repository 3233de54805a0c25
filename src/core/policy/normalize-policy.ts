import { compilePattern, type Pattern } from '../pattern.ts';
import { fingerprint } from '../fingerprint.ts';
import { DEFAULT_REDACT_KEYS } from '../redact.ts';
import type { Decision } from '../types.ts';
import { PolicyError, type PolicyIssue } from '../errors/policy-error.ts';
import {
  DEFAULT_CHECK_TIMEOUT_MS,
  DEFAULT_DANGEROUS_KEYWORDS,
  type ArgumentCondition,
  type ArgumentRule,
  type LabelledPattern,
  type Policy,
  type ToolRule,
} from './policy.ts';
import { policySchema, type PatternDocument, type PolicyDocument, type ToolEntryDocument } from './policy-schema.ts';
import { zodIssuesToPolicyIssues } from './zod-issues.ts';
import { argumentRuleMatches } from './judge-argument-rules.ts';
import { normalizePosixPath, resolvePosixPath } from '../posix-path.ts';

export { argumentRuleMatches };

/** What argument rules need from where the policy lives: `relative_to: policy` is its directory. */
export interface RuleContext {
  /** The policy file's directory (absolute), when the policy was read from a file. */
  policyDirectory?: string;
}

/** A policy issue before it is located in a file: the path is a list of keys. */
export interface PathIssue extends Omit<PolicyIssue, 'path' | 'line' | 'column'> {
  path: (string | number)[];
  /** Point at the key itself rather than its value (unknown keys). */
  atKey?: boolean;
}

/**
 * Validates a policy given as data (parsed YAML or JSON, or an object built
 * in code) and turns it into a `Policy`. Throws `PolicyError` listing every
 * problem; `locate` maps a key path to a line and column when the caller has
 * the source text.
 *
 * @example
 * const policy = normalizePolicy({ tools: { read_file: 'allow' } });
 */
export function normalizePolicy(
  data: unknown,
  options: { source?: string; locate?: (issue: PathIssue) => PolicyIssue } = {},
): Policy {
  const source = options.source ?? '<inline>';
  const locate = options.locate ?? ((issue: PathIssue) => ({ ...issue, path: formatPath(issue.path) }));
  const prototypeKeys = findPrototypeKeys(data);
  if (prototypeKeys.length > 0) throw new PolicyError({ file: source, issues: prototypeKeys.map(locate) });
  const parsed = policySchema.safeParse(data ?? {});
  if (!parsed.success) {
    throw new PolicyError({ file: source, issues: sortIssues(zodIssuesToPolicyIssues(parsed.error.issues, data).map(locate)) });
  }
  const issues: PathIssue[] = [];
  const policy = build(parsed.data, source, issues);
  if (issues.length > 0) {
    const exampleOnly = issues.every((issue) => issue.message.startsWith('example'));
    throw new PolicyError({
      file: source,
      issues: sortIssues(issues.map(locate)),
      code: exampleOnly ? 'POLICY_EXAMPLE_FAILED' : 'POLICY_INVALID',
    });
  }
  return policy;
}

/**
 * `__proto__` cannot be told apart from JavaScript's prototype by every
 * library on the way (zod drops it from records), so a rule under that name
 * could vanish and leave a policy weaker than written. Refuse it outright.
 */
function findPrototypeKeys(data: unknown, path: (string | number)[] = [], found: PathIssue[] = []): PathIssue[] {
  if (data === null || typeof data !== 'object' || path.length > 64) return found;
  for (const key of Object.getOwnPropertyNames(data)) {
    const segment = Array.isArray(data) && /^\d+$/.test(key) ? Number(key) : key;
    if (key === '__proto__') {
      found.push({ path: [...path, key], atKey: true, message: 'the key "__proto__" cannot be used in a policy', expected: 'another name', found: '"__proto__"' });
      continue;
    }
    if (Array.isArray(data) && key === 'length') continue;
    findPrototypeKeys((data as Record<string, unknown>)[key], [...path, segment], found);
  }
  return found;
}

function build(document: PolicyDocument, source: string, issues: PathIssue[]): Policy {
  const tools = new Map<string, ToolRule>();
  // The source is the file's absolute path when the policy was read from one.
  const context: RuleContext = source.startsWith('/') ? { policyDirectory: normalizePosixPath(`${source}/..`) } : {};
  for (const [name, entry] of Object.entries(document.tools ?? {})) {
    const rule = toolRule(name, entry, ['tools', name], issues, context);
    if (rule !== undefined) tools.set(name, rule);
  }
  const keywords = document.unknown_tools?.dangerous_keywords;
  return {
    source,
    mode: document.mode,
    onDeny: document.on_deny ?? 'continue',
    approvalTimeoutMs: durationMs(document.approval_timeout),
    checkTimeoutMs: durationMs(document.check_timeout) ?? DEFAULT_CHECK_TIMEOUT_MS,
    autoApproveInDaemon: document.auto_approve_in_daemon ?? false,
    tools,
    filter: {
      allow: document.filter?.allow === undefined ? undefined : patterns(document.filter.allow, ['filter', 'allow'], issues),
      deny: patterns(document.filter?.deny ?? [], ['filter', 'deny'], issues),
    },
    askWhen: patterns(document.ask_when ?? [], ['ask_when'], issues),
    askAlways: document.ask_always ?? false,
    unknownTools: {
      decision: document.unknown_tools?.decision ?? 'ask',
      dangerousKeywords:
        keywords === true ? DEFAULT_DANGEROUS_KEYWORDS : keywords === false || keywords === undefined ? undefined : keywords.map((word) => word.toLowerCase()),
    },
    redact: {
      // The usual secret names unless the policy lists its own (seed 003's sanitizeArgs).
      keys: new Set((document.redact?.keys ?? DEFAULT_REDACT_KEYS).map((key) => key.toLowerCase())),
      outputs: document.redact?.outputs ?? false,
    },
    document,
  };
}

/** Resolves the seed-000 aliases. `preApproved` is allow, `blocked` is block. */
export function normalizeDecision(value: string): Decision {
  if (value === 'preApproved') return 'allow';
  if (value === 'blocked') return 'block';
  return value as Decision;
}

/**
 * Reads a tool entry: a bare decision, or an object whose aliases must agree
 * with its `decision` (a contradiction is an error, never a silent pick).
 */
export function toolRule(name: string, entry: ToolEntryDocument, path: (string | number)[], issues: PathIssue[], context: RuleContext = {}): ToolRule | undefined {
  const label = formatPath(path);
  if (typeof entry === 'string') {
    return { label, decision: normalizeDecision(entry), description: undefined, reason: undefined, required: true, rules: [] };
  }
  const stated: { decision: Decision; key: string }[] = [];
  if (entry.decision !== undefined) stated.push({ decision: normalizeDecision(entry.decision), key: 'decision' });
  if (entry.preApproved !== undefined) stated.push({ decision: entry.preApproved ? 'allow' : 'ask', key: 'preApproved' });
  if (entry.blocked === true) stated.push({ decision: 'block', key: 'blocked' });
  const distinct = new Set(stated.map((item) => item.decision));
  if (distinct.size > 1) {
    issues.push({
      path,
      message: `contradictory decisions for tool ${JSON.stringify(name)}: ${stated.map((item) => item.key).join(' and ')} disagree`,
      expected: 'one decision',
      found: stated.map((item) => `${item.key} means ${item.decision}`).join(', '),
    });
    return undefined;
  }
  const rules = (entry.rules ?? []).map((rule, index) => argumentRule(rule, [...path, 'rules', index], issues, context));
  return {
    label,
    decision: stated[0]?.decision ?? 'ask',
    description: entry.description,
    reason: entry.reason ?? entry.blockReason,
    required: entry.required ?? true,
    rules: rules.filter((rule): rule is ArgumentRule => rule !== undefined),
  };
}

function argumentRule(
  rule: NonNullable<Exclude<ToolEntryDocument, string>['rules']>[number],
  path: (string | number)[],
  issues: PathIssue[],
  context: RuleContext,
): ArgumentRule | undefined {
  const conditions: ArgumentCondition[] = [];
  if (Object.keys(rule.args).length === 0) {
    // An empty condition would match every call: almost certainly a mistake.
    issues.push({ path: [...path, 'args'], message: 'an argument rule needs at least one condition', expected: 'a mapping of argument paths to patterns', found: 'an empty mapping' });
    return undefined;
  }
  for (const [argumentPath, source] of Object.entries(rule.args)) {
    const segments = parseArgumentPath(argumentPath);
    if (segments === undefined) {
      issues.push({ path: [...path, 'args', argumentPath], atKey: true, message: 'invalid argument path', expected: 'names joined by "." with optional [index], e.g. options.files[0]', found: JSON.stringify(argumentPath) });
      continue;
    }
    if (typeof source !== 'string') {
      const condition = insideCondition({ argumentPath, segments, source, path: [...path, 'args', argumentPath], issues, context });
      if (condition !== undefined) conditions.push(condition);
      continue;
    }
    const pattern = compileAt(source, [...path, 'args', argumentPath], issues);
    if (pattern !== undefined) conditions.push({ kind: 'pattern', path: argumentPath, segments, pattern });
  }
  if (conditions.length !== Object.keys(rule.args).length) return undefined;
  const compiled: ArgumentRule = {
    label: formatPath(path),
    conditions,
    decision: normalizeDecision(rule.decision),
    description: rule.description,
    reason: rule.reason,
    required: rule.required ?? true,
  };
  rule.examples?.match?.forEach((example, index) => {
    if (!argumentRuleMatches(compiled, example)) {
      issues.push({ path: [...path, 'examples', 'match', index], message: `example ${fingerprintForMessage(example)} should match this rule but does not` });
    }
  });
  rule.examples?.not_match?.forEach((example, index) => {
    if (argumentRuleMatches(compiled, example)) {
      issues.push({ path: [...path, 'examples', 'not_match', index], message: `example ${fingerprintForMessage(example)} should not match this rule but does` });
    }
  });
  return compiled;
}

/**
 * `{inside: DIR, relative_to?: BASE}`: DIR absolute, or relative to BASE when
 * given; BASE absolute, or `policy` for the policy file's directory. Both are
 * normalised here, so matching compares normalised paths only.
 */
function insideCondition(options: {
  argumentPath: string;
  segments: (string | number)[];
  source: { inside: string; relative_to?: string | undefined };
  path: (string | number)[];
  issues: PathIssue[];
  context: RuleContext;
}): ArgumentCondition | undefined {
  const { source, path, issues } = options;
  let relativeTo: string | undefined;
  if (source.relative_to !== undefined) {
    if (source.relative_to === 'policy') {
      relativeTo = options.context.policyDirectory;
      if (relativeTo === undefined) {
        issues.push({ path: [...path, 'relative_to'], message: 'relative_to: policy needs a policy read from a file', expected: 'an absolute directory', found: '"policy"' });
        return undefined;
      }
    } else if (source.relative_to.startsWith('/') && !source.relative_to.includes('\u0000')) {
      relativeTo = normalizePosixPath(source.relative_to);
    } else {
      issues.push({ path: [...path, 'relative_to'], message: 'relative_to must be an absolute directory or "policy"', expected: 'a path starting with "/", or policy (the policy file\'s directory)', found: JSON.stringify(source.relative_to) });
      return undefined;
    }
  }
  if (source.inside.includes('\u0000') || (!source.inside.startsWith('/') && relativeTo === undefined)) {
    issues.push({
      path: [...path, 'inside'],
      message: 'inside must be an absolute directory (or relative, with relative_to)',
      expected: 'a path starting with "/", e.g. /home/me/notes/drafts',
      found: JSON.stringify(source.inside),
    });
    return undefined;
  }
  const inside = relativeTo === undefined ? normalizePosixPath(source.inside) : resolvePosixPath(relativeTo, source.inside);
  return { kind: 'inside', path: options.argumentPath, segments: options.segments, inside, relativeTo };
}

function parseArgumentPath(path: string): (string | number)[] | undefined {
  const segments: (string | number)[] = [];
  const expression = /([^.[\]]+)|\[(\d+)\]|(\.)/gy;
  let expectName = true;
  let match: RegExpExecArray | null;
  let consumed = 0;
  while ((match = expression.exec(path)) !== null) {
    consumed = expression.lastIndex;
    if (match[1] !== undefined) {
      if (!expectName) return undefined;
      segments.push(match[1]);
      expectName = false;
    } else if (match[2] !== undefined) {
      if (expectName) return undefined;
      segments.push(Number(match[2]));
    } else {
      if (expectName) return undefined;
      expectName = true;
    }
  }
  if (consumed !== path.length || expectName || segments.length === 0) return undefined;
  return segments;
}

/** Compiles a list of pattern entries, checking each one's examples. */
export function patterns(entries: readonly PatternDocument[], path: (string | number)[], issues: PathIssue[]): LabelledPattern[] {
  const compiled: LabelledPattern[] = [];
  entries.forEach((entry, index) => {
    const entryPath = [...path, index];
    const source = typeof entry === 'string' ? entry : entry.pattern;
    const pattern = compileAt(source, typeof entry === 'string' ? entryPath : [...entryPath, 'pattern'], issues);
    if (pattern === undefined) return;
    if (typeof entry !== 'string') checkNameExamples(pattern, entry.examples, entryPath, issues);
    compiled.push({ label: formatPath(entryPath), pattern });
  });
  return compiled;
}

export function checkNameExamples(
  pattern: Pattern,
  examples: { match?: string[] | undefined; not_match?: string[] | undefined } | undefined,
  path: (string | number)[],
  issues: PathIssue[],
): void {
  examples?.match?.forEach((example, index) => {
    if (!pattern.test(example)) {
      issues.push({ path: [...path, 'examples', 'match', index], message: `example ${JSON.stringify(example)} should match ${JSON.stringify(pattern.source)} but does not` });
    }
  });
  examples?.not_match?.forEach((example, index) => {
    if (pattern.test(example)) {
      issues.push({ path: [...path, 'examples', 'not_match', index], message: `example ${JSON.stringify(example)} should not match ${JSON.stringify(pattern.source)} but does` });
    }
  });
}

function compileAt(source: string, path: (string | number)[], issues: PathIssue[]): Pattern | undefined {
  try {
    return compilePattern(source);
  } catch (error) {
    issues.push({ path, message: (error as Error).message, expected: 'an RE2 pattern' , found: JSON.stringify(source) });
    return undefined;
  }
}

/** In file order, so a person fixes them top to bottom. */
function sortIssues(issues: PolicyIssue[]): PolicyIssue[] {
  return issues.sort((left, right) => (left.line ?? 0) - (right.line ?? 0) || (left.column ?? 0) - (right.column ?? 0));
}

/** `5m` → 300000. Numbers are seconds. */
export function durationMs(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value * 1000;
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/.exec(value);
  if (match === null) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * unit;
}

/** `['tools', 'send_email', 'rules', 0]` → `tools.send_email.rules[0]`. */
export function formatPath(path: readonly (string | number)[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

function fingerprintForMessage(value: unknown): string {
  const text = fingerprint(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
