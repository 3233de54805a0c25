import type { Pattern } from '../pattern.ts';
import type { Decision, RunMode } from '../types.ts';
import type { PolicyDocument } from './policy-schema.ts';

/**
 * A loaded policy in the form the gate uses: aliases resolved, patterns
 * compiled, durations in milliseconds. Built by `parsePolicy` or
 * `normalizePolicy`, never by hand.
 */
export interface Policy {
  /** The file it came from, or `<inline>`. */
  readonly source: string;
  readonly mode: RunMode | undefined;
  readonly onDeny: 'continue' | 'stop';
  readonly approvalTimeoutMs: number | undefined;
  readonly checkTimeoutMs: number;
  readonly autoApproveInDaemon: boolean;
  readonly tools: ReadonlyMap<string, ToolRule>;
  readonly filter: { readonly allow: readonly LabelledPattern[] | undefined; readonly deny: readonly LabelledPattern[] };
  readonly askWhen: readonly LabelledPattern[];
  readonly askAlways: boolean;
  readonly unknownTools: { readonly decision: Decision; readonly dangerousKeywords: readonly string[] | undefined };
  readonly redact: { readonly keys: ReadonlySet<string>; readonly outputs: boolean };
  /** The validated document, for the sections later parts read (fs, shell, mcp, sandbox). */
  readonly document: PolicyDocument;
  /**
   * Where a rule label (`shell.rules[2] (match: rm)`, `mcp.servers.files.ask_when[0]`)
   * was written: `toolgate.yaml:14`; undefined for a label that names no key
   * of the file (`tool:checkApproval`), and for a policy not parsed from text.
   */
  readonly ruleAt?: (rule: string) => string | undefined;
}

export interface LabelledPattern {
  /** Where it was written: `filter.deny[1]`. */
  readonly label: string;
  readonly pattern: Pattern;
}

export interface ToolRule {
  readonly label: string;
  readonly decision: Decision;
  readonly description: string | undefined;
  readonly reason: string | undefined;
  readonly required: boolean;
  readonly rules: readonly ArgumentRule[];
}

export interface ArgumentRule {
  readonly label: string;
  readonly conditions: readonly ArgumentCondition[];
  readonly decision: Decision;
  readonly description: string | undefined;
  readonly reason: string | undefined;
  readonly required: boolean;
}

/** A condition on one argument: a full-match pattern, or (for paths) the directory it must be inside. */
export type ArgumentCondition = PatternCondition | InsideCondition;

export interface PatternCondition {
  readonly kind: 'pattern';
  /** As written: `options.force`. */
  readonly path: string;
  readonly segments: readonly (string | number)[];
  readonly pattern: Pattern;
}

/** `{inside: DIR}`: the value, normalised (and resolved against `relativeTo` when relative), is DIR or below it. */
export interface InsideCondition {
  readonly kind: 'inside';
  readonly path: string;
  readonly segments: readonly (string | number)[];
  /** Absolute and normalised. */
  readonly inside: string;
  /** Absolute and normalised; without it a relative value never matches. */
  readonly relativeTo: string | undefined;
}

/**
 * A rule that blocks whatever the arguments: a `block` whose argument rules
 * (if any) all block too. Tools it speaks for are never offered.
 *
 * @example
 * blocksOutright(policy.tools.get('delete_file')!) // true for `delete_file: block`
 */
export function blocksOutright(rule: ToolRule): boolean {
  return rule.decision === 'block' && rule.rules.every((argumentRule) => argumentRule.decision === 'block');
}

/** The seed-003 keywords, used when `unknown_tools.dangerous_keywords: true`. */
export const DEFAULT_DANGEROUS_KEYWORDS: readonly string[] = ['execute', 'command', 'delete', 'remove', 'write', 'shell'];

export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;
