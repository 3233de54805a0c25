/**
 * The policy's `shell` section as the shell tool uses it: rules that match
 * commands on whole words, the default for commands no rule matches, and
 * the examples that prove each rule means what its author thinks.
 */
import path from 'node:path';
import { parse } from 'unbash';
import { PolicyError, type PolicyIssue } from '../../core/errors/policy-error.ts';
import { normalizeDecision } from '../../core/policy/normalize-policy.ts';
import type { Policy } from '../../core/policy/policy.ts';
import type { PolicyDocument } from '../../core/policy/policy-schema.ts';
import type { Decision } from '../../core/types.ts';
import type { Zone } from '../fs/zones.ts';
import { analyzeCommand, type AnalyzedCommand } from './analyze-command.ts';
import { shellWord } from './shell-word.ts';

type ShellSection = NonNullable<PolicyDocument['shell']>;
type RuleDocument = NonNullable<ShellSection['rules']>[number];

export interface ShellRule {
  /** Where it was written: `shell.rules[2]`. */
  label: string;
  /** The words to match, the first one normalised like command names (a basename unless written as a path). */
  words: readonly string[];
  /** As written in the policy. */
  match: string;
  /** The name was written as a path (`./scripts/test.sh`): it matches only that path. */
  pathQualified: boolean;
  decision: Decision;
  description: string | undefined;
  reason: string | undefined;
  /** The rule applies only when every path-like argument lies in one of these zones. */
  pathsIn: readonly Zone[] | undefined;
}

export interface ShellRules {
  rules: readonly ShellRule[];
  /** For commands no rule matches (`shell.default`, ask when absent). */
  defaultDecision: Decision;
}

/**
 * `yes`: the rule's words are the command's first words. `maybe`: a word
 * computed at run time (or a glob, or arguments xargs appends) could make
 * them so. `no`: they are not.
 */
export type RuleMatch = 'yes' | 'maybe' | 'no';

/**
 * Reads the `shell` section. Throws `PolicyError` naming the key for an
 * unreadable `match`, contradictory decisions, an unknown zone in
 * `paths_in` (POLICY_INVALID), or a failing example (POLICY_EXAMPLE_FAILED,
 * `shell.rules[i].examples.match[j]`). Examples check the words only:
 * `paths_in` depends on the filesystem when the command runs.
 *
 * @example
 * const rules = shellRulesFromPolicy({ policy, zones });
 */
export function shellRulesFromPolicy(options: { policy: Policy; zones: readonly Zone[] }): ShellRules {
  const section = options.policy.document.shell ?? {};
  const issues: PolicyIssue[] = [];
  const defaultDecision = readDefault(section.default, issues);
  const rules: ShellRule[] = [];
  (section.rules ?? []).forEach((document, index) => {
    const rule = readRule({ document, label: `shell.rules[${index}]`, zones: options.zones, issues });
    if (rule !== undefined) rules.push(rule);
  });
  if (issues.length > 0) {
    const examplesOnly = issues.every((issue) => issue.path.includes('.examples.'));
    throw new PolicyError({ file: options.policy.source, issues, code: examplesOnly ? 'POLICY_EXAMPLE_FAILED' : 'POLICY_INVALID' });
  }
  return { rules, defaultDecision };
}

/**
 * Whether `rule` matches one analysed simple command, on whole words:
 * `git status` matches `git status -s`, never `git statusx`.
 *
 * @example
 * matchRule(rule, analyzeCommand('git status -s').commands[0]) // 'yes'
 */
export function matchRule(rule: ShellRule, command: AnalyzedCommand): RuleMatch {
  if (command.name === undefined || command.written === undefined) return 'maybe';
  const first = rule.words[0]!;
  if (rule.pathQualified && rule.decision !== 'block') {
    if (path.posix.normalize(command.written) !== first) return 'no';
    // A relative path means another file once the command line has changed directory.
    if (!path.posix.isAbsolute(first) && command.cwd.kind !== 'initial') return 'maybe';
  } else if (command.name !== path.posix.basename(first)) {
    return 'no';
  }
  for (let index = 1; index < rule.words.length; index++) {
    const word = command.words[index];
    if (word === undefined) return command.appendsArguments ? 'maybe' : 'no';
    // An expansion can become any number of words, a glob any file name.
    if (word.kind !== 'static') return 'maybe';
    if (word.value !== rule.words[index]) return 'no';
  }
  return 'yes';
}

/**
 * Whether a rule matches any simple command of a command line (what examples test).
 *
 * @example
 * ruleMatchesCommandLine(gitStatus, 'ls && git status -s') // true
 */
export function ruleMatchesCommandLine(rule: ShellRule, commandLine: string): boolean {
  return analyzeCommand(commandLine).commands.some((command) => matchRule(rule, command) === 'yes');
}

function readDefault(value: ShellSection['default'], issues: PolicyIssue[]): Decision {
  if (value === undefined) return 'ask';
  if (typeof value === 'string') return normalizeDecision(value);
  const decision = aliasDecision({ allowed: value.allowed, approval: value.approval, path: 'shell.default', issues });
  return decision ?? 'ask';
}

function readRule(options: { document: RuleDocument; label: string; zones: readonly Zone[]; issues: PolicyIssue[] }): ShellRule | undefined {
  const { document, label, issues } = options;
  const words = matchWords(document.match);
  if (words === undefined) {
    issues.push({ path: `${label}.match`, message: 'a rule matches plain words, such as "git status" (no operators, quotes that hide expansions, globs or variables)', expected: 'a command prefix', found: JSON.stringify(document.match) });
    return undefined;
  }
  const stated: { decision: Decision; key: string }[] = [];
  if (document.decision !== undefined) stated.push({ decision: normalizeDecision(document.decision), key: 'decision' });
  const aliased = aliasDecision({ allowed: document.allowed, approval: document.approval, path: label, issues });
  if (aliased !== undefined) stated.push({ decision: aliased, key: document.allowed === false ? 'allowed' : 'approval' });
  if (new Set(stated.map((item) => item.decision)).size > 1) {
    issues.push({ path: label, message: `contradictory decisions for ${JSON.stringify(document.match)}: ${stated.map((item) => `${item.key} means ${item.decision}`).join(', ')}`, expected: 'one decision' });
    return undefined;
  }
  let pathsIn: Zone[] | undefined;
  if (document.paths_in !== undefined) {
    pathsIn = [];
    document.paths_in.forEach((name, index) => {
      const zone = options.zones.find((candidate) => candidate.name === name);
      if (zone === undefined) {
        const known = options.zones.map((candidate) => candidate.name).join(', ');
        issues.push({ path: `${label}.paths_in[${index}]`, message: `unknown zone ${JSON.stringify(name)}; the zones are ${known === '' ? 'none (fs.zones is empty)' : known}`, expected: 'a zone name from fs.zones', found: JSON.stringify(name) });
      } else {
        pathsIn!.push(zone);
      }
    });
  }
  const first = words[0]!;
  const pathQualified = first.includes('/');
  const rule: ShellRule = {
    label,
    words: [pathQualified ? path.posix.normalize(first) : first, ...words.slice(1)],
    match: document.match,
    pathQualified,
    decision: stated[0]?.decision ?? 'ask',
    description: document.description,
    reason: document.reason,
    pathsIn,
  };
  document.examples?.match?.forEach((example, index) => {
    if (!ruleMatchesCommandLine(rule, example)) {
      issues.push({ path: `${label}.examples.match[${index}]`, message: `example ${JSON.stringify(example)} should match ${JSON.stringify(document.match)} but does not` });
    }
  });
  document.examples?.not_match?.forEach((example, index) => {
    if (ruleMatchesCommandLine(rule, example)) {
      issues.push({ path: `${label}.examples.not_match[${index}]`, message: `example ${JSON.stringify(example)} should not match ${JSON.stringify(document.match)} but does` });
    }
  });
  return rule;
}

/** Seed 001's aliases: `allowed: false` is block; `approval: false` is allow, `approval: true` is ask. */
function aliasDecision(options: { allowed: boolean | undefined; approval: boolean | undefined; path: string; issues: PolicyIssue[] }): Decision | undefined {
  const { allowed, approval } = options;
  if (allowed === false && approval === false) {
    options.issues.push({ path: options.path, message: 'allowed: false (block) contradicts approval: false (allow)', expected: 'one decision' });
    return undefined;
  }
  if (allowed === false) return 'block';
  if (approval === false) return 'allow';
  if (approval === true) return 'ask';
  return undefined;
}

/** The static words of a rule's `match`, or undefined when it is not one plain simple command. */
function matchWords(match: string): string[] | undefined {
  const script = parse(match);
  if ((script.errors?.length ?? 0) > 0 || script.commands.length !== 1) return undefined;
  const statement = script.commands[0]!;
  const command = statement.command;
  if (statement.background === true || command.type !== 'Command' || command.name === undefined || command.prefix.length > 0) return undefined;
  const words: string[] = [];
  for (const item of [command.name, ...command.suffix]) {
    if (item.type !== 'Word') return undefined;
    const word = shellWord(item);
    if (word.kind !== 'static' || word.tilde) return undefined;
    words.push(word.value);
  }
  return words;
}
