import { fingerprint } from '../fingerprint.ts';
import { isInsidePath, isNormalizedPath, normalizePosixPath, resolvePosixPath } from '../posix-path.ts';
import type { ArgumentCondition, ArgumentRule, ToolRule } from './policy.ts';

/**
 * What a tool's argument rules say about one call:
 * - `matched`: this rule decides (first match wins);
 * - `unsure`: an allow rule would have covered the call only by reading a
 *   path-like value as written (`drafts/../x`), or a block/ask rule could not
 *   judge a relative path: the call asks (never less than a later block);
 * - `none`: no rule speaks; the tool's own decision applies.
 */
export type ArgumentJudgement =
  | { kind: 'matched'; rule: ArgumentRule }
  | { kind: 'unsure'; rule: ArgumentRule; reason: string }
  | { kind: 'none' };

/**
 * The other paths an absolute, normalised path stands for where the tool
 * runs (symbolic links resolved, other Unicode spellings); an `{inside: DIR}`
 * condition judges every one of them, and DIR's own forms count as DIR. The
 * core has no filesystem: Node entry points pass `filesystemPathForms`.
 */
export type PathForms = (absolutePath: string) => readonly string[];

type ConditionResult = { result: 'match' } | { result: 'no' } | { result: 'unsure'; why: string };
// Shared, so judging an allowed call allocates nothing on the gate's hot path.
const MATCH: ConditionResult = { result: 'match' };
const NO: ConditionResult = { result: 'no' };

/**
 * Judges `args` against the tool rule's argument rules in order. A plain
 * pattern never lets an allow rule cover a value that is not a normalised
 * path (`..` or `.` segments, `//`); a block or ask rule's pattern applies to
 * the value as written and normalised. `{inside: DIR}` conditions normalise
 * (and resolve, with `relative_to`) before comparing.
 *
 * @example
 * judgeArgumentRules(rule, { path: '/home/me/notes/drafts/../important.md' })
 * // { kind: 'unsure', rule, reason: 'path "/home/me/notes/drafts/../important.md" is not a normalised path: ...' }
 */
export function judgeArgumentRules(toolRule: ToolRule, args: unknown, pathForms?: PathForms): ArgumentJudgement {
  let unsure: { rule: ArgumentRule; reason: string } | undefined;
  for (const rule of toolRule.rules) {
    const outcome = judgeRule(rule, args, pathForms);
    if (outcome.result === 'no') continue;
    if (outcome.result === 'match') {
      // After an unsure rule, only a block may still speak: it is stricter than the ask.
      if (unsure === undefined || rule.decision === 'block') return { kind: 'matched', rule };
      continue;
    }
    unsure ??= { rule, reason: outcome.why };
  }
  if (unsure === undefined || toolRule.decision === 'block') return { kind: 'none' };
  return { kind: 'unsure', ...unsure };
}

/**
 * True when every condition of `rule` definitely matches `args` (used for a rule's `examples`). A missing argument never matches.
 *
 * @example
 * argumentRuleMatches(rule, { path: '/home/me/notes/drafts/a.md' }) // true
 */
export function argumentRuleMatches(rule: ArgumentRule, args: unknown): boolean {
  return judgeRule(rule, args).result === 'match';
}

/**
 * `path ~ "pattern"` or `path inside "/dir"`, for reasons.
 *
 * @example
 * describeConditions(rule) // 'path inside "/home/me/notes/drafts"'
 */
export function describeConditions(rule: ArgumentRule): string {
  return rule.conditions
    .map((condition) =>
      condition.kind === 'pattern'
        ? `${condition.path} ~ ${JSON.stringify(condition.pattern.source)}`
        : `${condition.path} inside ${JSON.stringify(condition.inside)}${condition.relativeTo === undefined ? '' : ` (relative to ${JSON.stringify(condition.relativeTo)})`}`,
    )
    .join(', ');
}

function judgeRule(rule: ArgumentRule, args: unknown, pathForms?: PathForms): ConditionResult {
  let unsure: ConditionResult | undefined;
  for (const condition of rule.conditions) {
    const outcome = judgeCondition(condition, readArgument(args, condition.segments), rule.decision === 'allow', pathForms);
    if (outcome.result === 'no') return outcome;
    if (outcome.result === 'unsure') unsure ??= outcome;
  }
  return unsure ?? MATCH;
}

function judgeCondition(condition: ArgumentCondition, value: unknown, allows: boolean, pathForms: PathForms | undefined): ConditionResult {
  if (value === undefined) return NO;
  if (condition.kind === 'pattern') {
    if (typeof value !== 'string') return condition.pattern.test(fingerprint(value)) ? MATCH : NO;
    if (isNormalizedPath(value)) return condition.pattern.test(value) ? MATCH : NO;
    if (!condition.pattern.test(value) && !condition.pattern.test(normalizePosixPath(value))) return NO;
    if (!allows) return MATCH;
    const why =
      `${condition.path} ${JSON.stringify(value)} is not a normalised path (it has "..", "." or "//"), so the pattern ` +
      `${JSON.stringify(condition.pattern.source)} cannot tell where it leads; use {inside: DIR} to judge it as a path`;
    return { result: 'unsure', why };
  }
  if (typeof value !== 'string') return NO;
  const relative = !value.startsWith('/');
  if (value.includes('\u0000') || (relative && condition.relativeTo === undefined)) {
    // Fail closed: an allow rule does not cover what it cannot judge; a block or ask rule asks.
    if (allows) return NO;
    return { result: 'unsure', why: `${condition.path} ${JSON.stringify(value)} is not an absolute path, so whether it is inside ${JSON.stringify(condition.inside)} cannot be judged` };
  }
  const resolved = relative ? resolvePosixPath(condition.relativeTo!, value) : normalizePosixPath(value);
  if (pathForms === undefined) return isInsidePath(resolved, condition.inside) ? MATCH : NO;
  // Where the path really leads, and its other spellings: an allow needs all of them inside, a block or ask any one.
  const directories = [condition.inside, ...pathForms(condition.inside)];
  const within = (form: string) => directories.some((directory) => isInsidePath(form, directory));
  const forms = [resolved, ...pathForms(resolved)];
  if (!forms.some(within)) return NO;
  if (!allows) return MATCH;
  const elsewhere = forms.find((form) => !within(form));
  if (elsewhere === undefined) return MATCH;
  return {
    result: 'unsure',
    why: `${condition.path} ${JSON.stringify(value)} ${elsewhere === resolved ? 'is' : `leads to ${JSON.stringify(elsewhere)} (through a symbolic link, or as another spelling of its name), which is`} not inside ${JSON.stringify(condition.inside)}`,
  };
}

function readArgument(args: unknown, segments: readonly (string | number)[]): unknown {
  let current: unknown = args;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}
