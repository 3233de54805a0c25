/**
 * What a client may do with a server's resources and prompts (and the
 * completions that suggest their arguments), from `mcp.servers.<name>`:
 *
 *   resources: allow | ask | block | { default, rules: [{ uri: PATTERN, decision }] }
 *   prompts:   allow | ask | block | { default, rules: [{ name: PATTERN, decision }] }
 *
 * Absent, they follow the server's `default` (ask when it has none; block
 * when the policy blocks unknown tools), so a server the policy blocks
 * serves nothing of them unless they are allowed. As everywhere in toolgate,
 * every matching rule speaks and the most restrictive wins; the default
 * speaks only when no rule matches.
 */
import type { PathIssue } from '../core/policy/normalize-policy.ts';
import { formatPath, normalizeDecision, patterns } from '../core/policy/normalize-policy.ts';
import type { Pattern } from '../core/pattern.ts';
import { isNormalizedPath, normalizePosixPath } from '../core/posix-path.ts';
import type { Decision } from '../core/types.ts';

export interface AccessPolicy {
  defaultDecision: Decision;
  /** Where the default came from: `mcp.servers.docs.resources.default`, or the server's default. */
  defaultLabel: string;
  rules: ReadonlyArray<{ label: string; pattern: Pattern; decision: Decision }>;
  /** True when nothing can ever be allowed or asked (a plain `block`, or a block default with no other rule). */
  blocksAll: boolean;
}

/** The document form, as the schema reads it. */
export type AccessDocument = string | { default?: string; rules?: Array<Record<string, unknown> & { decision: string }> } | undefined;

const RESTRICTIVENESS: Record<Decision, number> = { allow: 0, ask: 1, block: 2 };

/**
 * Reads `resources` or `prompts` of one server (`field` is what rules match: `uri` or `name`).
 *
 * @example
 * readAccessPolicy({ document: { default: 'block', rules: [{ uri: 'file:///docs/.*', decision: 'allow' }] }, field: 'uri', path: ['mcp', 'servers', 'docs', 'resources'], fallback: { decision: 'ask', label: 'mcp.servers.docs.default' }, issues });
 */
export function readAccessPolicy(options: {
  document: AccessDocument;
  field: 'uri' | 'name';
  path: (string | number)[];
  fallback: { decision: Decision; label: string };
  issues: PathIssue[];
}): AccessPolicy {
  const { document, field, path, fallback, issues } = options;
  if (document === undefined) return { defaultDecision: fallback.decision, defaultLabel: fallback.label, rules: [], blocksAll: fallback.decision === 'block' };
  if (typeof document === 'string') {
    const decision = normalizeDecision(document);
    return { defaultDecision: decision, defaultLabel: formatPath(path), rules: [], blocksAll: decision === 'block' };
  }
  const defaultDecision = document.default === undefined ? fallback.decision : normalizeDecision(document.default);
  const defaultLabel = document.default === undefined ? fallback.label : formatPath([...path, 'default']);
  const rules: Array<{ label: string; pattern: Pattern; decision: Decision }> = [];
  (document.rules ?? []).forEach((rule, index) => {
    const source = rule[field];
    const at = [...path, 'rules', index];
    if (typeof source !== 'string') {
      issues.push({ path: at, atKey: true, message: `the rule has no \`${field}\` pattern`, expected: `{ ${field}: PATTERN, decision: allow | ask | block }` });
      return;
    }
    const [compiled] = patterns([source], [...at, field], issues);
    if (compiled !== undefined) rules.push({ label: formatPath(at), pattern: compiled.pattern, decision: normalizeDecision(rule.decision) });
  });
  return { defaultDecision, defaultLabel, rules, blocksAll: defaultDecision === 'block' && rules.every((rule) => rule.decision === 'block') };
}

/**
 * The decision for one URI or name, and the rule that made it.
 *
 * @example
 * judgeAccess(policy, 'file:///docs/readme.md') // { decision: 'allow', rule: 'mcp.servers.docs.resources.rules[0]' }
 */
export function judgeAccess(policy: AccessPolicy, target: string): { decision: Decision; rule: string } {
  // A URI with "..", "." or "//" segments, or percent-encoded dots and slashes, may lead elsewhere than it reads:
  // block and ask rules speak when they match it as written or normalised, and an allow rule only asks.
  const unsure = !isNormalizedPath(target) || /%2e|%2f|%5c/i.test(target);
  const normalised = unsure ? normalizedUri(target) : target;
  let verdict: { decision: Decision; rule: string } | undefined;
  for (const rule of policy.rules) {
    if (!rule.pattern.test(target) && !(unsure && rule.pattern.test(normalised))) continue;
    const decision: Decision = unsure && rule.decision === 'allow' ? 'ask' : rule.decision;
    if (verdict === undefined || RESTRICTIVENESS[decision] > RESTRICTIVENESS[verdict.decision]) verdict = { decision, rule: rule.label };
  }
  if (verdict !== undefined) return verdict;
  // The default speaks for what no rule names; an unsure target is never allowed by a default that a rule could have narrowed.
  if (unsure && policy.defaultDecision === 'allow' && policy.rules.length > 0) return { decision: 'ask', rule: policy.defaultLabel };
  return { decision: policy.defaultDecision, rule: policy.defaultLabel };
}

/** `scheme://authority` kept, the path normalised (`..`, `.` and `//` resolved): where the URI leads. */
function normalizedUri(target: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(target);
  if (scheme === null) return normalizePosixPath(target);
  const rest = target.slice(scheme[0].length);
  const cut = rest.search(/[?#]/);
  const path = cut === -1 ? rest : rest.slice(0, cut);
  return `${scheme[0]}${path === '' ? '' : normalizePosixPath(path.startsWith('/') ? path : `/${path}`)}${cut === -1 ? '' : rest.slice(cut)}`;
}
