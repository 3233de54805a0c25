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
import { commandSpec, programFamily } from './command-forms.ts';
import type { CommandSpec } from './commands/grammar.ts';
import { readCommand, type CommandReading } from './command-reading.ts';
import { matchReading, ruleForm, type RuleForm } from './rule-matching.ts';
import { runnerCommands, runnerForms } from './runner-commands.ts';
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
 * Whether `rule` matches one analysed simple command, on what the command
 * does rather than on its literal words: `git status` matches `git status -s`
 * and `git --no-pager status`, never `git statusx`. The answer is two-sided:
 * for an allow rule `yes` means the command surely is the rule's command
 * (every option between its words known to be harmless); for a block or ask
 * rule anything the command may be counts (`git -p push`, `git p` where p may
 * be an alias, `npx git push`), as `maybe` when not certain.
 *
 * @example
 * matchRule(rule, analyzeCommand('git status -s').commands[0]) // 'yes'
 */
export function matchRule(rule: ShellRule, command: AnalyzedCommand): RuleMatch {
  return matchRuleDetail(rule, command).match;
}

export interface RuleMatchDetail {
  match: RuleMatch;
  /** The command's words the rule's words landed on (0 is the name): a rule covers hazards on these. */
  positions: readonly number[];
  /** Why it is only `maybe`, or that another command runs it, when that is so. */
  why: string | undefined;
}

/**
 * `matchRule` with where the rule's words landed and why a match is not
 * certain.
 *
 * @example
 * matchRuleDetail(gitPushBlock, analyzeCommand('git p').commands[0]) // { match: 'maybe', why: 'p is not a git command toolgate knows: it may be an alias...' }
 */
export function matchRuleDetail(rule: ShellRule, command: AnalyzedCommand): RuleMatchDetail {
  return matchRuleWords({ rule, command, depth: 0 });
}

const NO_MATCH: RuleMatchDetail = { match: 'no', positions: [], why: undefined };
/** How many package runners inside each other are followed. */
const MAX_RUNNER_DEPTH = 3;

function matchRuleWords(options: { rule: ShellRule; command: AnalyzedCommand; depth: number }): RuleMatchDetail {
  const { rule, command } = options;
  if (command.name === undefined || command.written === undefined) return { match: 'maybe', positions: [], why: 'the command name is only known at run time' };
  const restrictive = rule.decision !== 'allow';
  const first = rule.words[0]!;
  // Most rules name another program: an allow rule says no before anything is looked up (the decision's hot path).
  if (!restrictive && !rule.pathQualified && command.name !== first) return NO_MATCH;
  const form = formOf(rule);
  let sameProgram = true;
  if (rule.pathQualified && rule.decision !== 'block') {
    if (path.posix.normalize(command.written) !== first) return NO_MATCH;
    // A relative path means another file once the command line has changed directory.
    if (!path.posix.isAbsolute(first) && command.cwd.kind !== 'initial') return { match: 'maybe', positions: [], why: 'the command line changes directory first' };
  } else if (command.name !== form.name) {
    // pip3 is pip: restrictive rules reach it, allow rules keep to the name they wrote.
    sameProgram = false;
    if (!restrictive || programFamily(command.name) !== form.family) return restrictive ? throughRunner(options, NO_MATCH) : NO_MATCH;
  }
  const readings = form.spec === undefined ? undefined : readingsOf(command, form.spec);
  let all = true;
  let any = false;
  let harmless = sameProgram;
  let positions: number[] | undefined;
  let open = false;
  let alternative = false;
  for (const reading of readings ?? [undefined]) {
    // `npm publis` is `npm publish` for a block or ask rule; an allow rule reads it as a word npm may not know.
    if (reading !== undefined && (restrictive ? reading.abbreviated : reading.abbreviation) === true) continue;
    const result = matchReading({ form, reading, words: command.words, appendsArguments: command.appendsArguments, restrictive });
    if (reading?.alternative === true) {
      // What the command also does (`git send-pack` pushes) can only make a restrictive rule apply, as maybe.
      if (result.status !== 'no' && restrictive) {
        any = true;
        all = false;
        alternative = true;
      }
      continue;
    }
    if (result.status === 'no') {
      all = false;
      continue;
    }
    any = true;
    if (reading?.open === true) open = true;
    if (result.status === 'maybe') all = false;
    harmless &&= result.harmless;
    positions ??= result.positions;
  }
  if (!any) return restrictive ? throughRunner(options, NO_MATCH) : NO_MATCH;
  // `GIT` is git only on a case-insensitive filesystem.
  const caseOnly = command.name !== form.name && command.name.toLowerCase() === form.name.toLowerCase();
  const sure = all && (restrictive || harmless) && !caseOnly;
  const considered = (readings ?? []).filter((reading) => reading.alternative !== true && (restrictive ? reading.abbreviated : reading.abbreviation) !== true);
  const why = sure ? undefined : caseOnly ? `on a case-insensitive filesystem ${command.name} runs ${form.name}` : whyMaybe({ rule, command, open, all, alternative, readings: considered });
  const detail: RuleMatchDetail = { match: sure ? 'yes' : 'maybe', positions: positions ?? [0], why };
  return restrictive && !sure ? throughRunner(options, detail) : detail;
}

function whyMaybe(options: { rule: ShellRule; command: AnalyzedCommand; open: boolean; all: boolean; alternative: boolean; readings: readonly CommandReading[] }): string {
  const { command, readings } = options;
  if (options.alternative) return `it also does what ${JSON.stringify(options.rule.match)} does`;
  if (command.appendsArguments) return `${command.name} receives more arguments at run time`;
  if (command.words.some((word) => word.kind !== 'static')) return 'a word of it is only known at run time';
  if (options.open) return `it names a subcommand ${command.name} does not have built in, which may be a user-defined alias, a plugin or an abbreviation`;
  const abbreviated = readings.find((reading) => reading.abbreviation === true);
  if (abbreviated !== undefined) {
    const meanings = [...new Set(readings.filter((reading) => reading.abbreviation === true).map((reading) => `${command.name} ${reading.path.join(' ')}`))];
    if (meanings.length > 1) return `it may abbreviate any of ${meanings.map((meaning) => JSON.stringify(meaning)).join(', ')}, depending on ${command.name}'s version`;
  }
  if (readings.length > 1) return 'it can be read more than one way (an option toolgate does not know may take the next word as its value, or an option makes it another subcommand)';
  if (options.all) return 'an option between its words is not known to be harmless';
  return 'the rule\'s words may be among its arguments in another place or spelling';
}

/** A package runner (npx, npm exec, pnpm dlx, uv run...) runs the rule's command for it. */
function throughRunner(options: { rule: ShellRule; command: AnalyzedCommand; depth: number }, direct: RuleMatchDetail): RuleMatchDetail {
  const { rule, command } = options;
  const name = command.name!;
  if (options.depth >= MAX_RUNNER_DEPTH || runnerForms(name).length === 0) return direct;
  const spec = commandSpec(name);
  const readings = spec === undefined ? undefined : readingsOf(command, spec);
  let best = direct;
  const ruleName = formOf(rule).name;
  for (const inner of runnerCommands({ name, words: command.words, readings })) {
    if (inner.start === undefined) return { match: 'maybe', positions: [], why: `${inner.via}, so it may run ${JSON.stringify(rule.match)}` };
    // The runner's program may itself run the rest (`npx cross-env A=1 git push`): any later word naming the rule's program counts.
    for (let start = inner.start; start < command.words.length; start++) {
      const word = command.words[start]!;
      const first = start === inner.start;
      if (!first && (word.kind !== 'static' || path.posix.basename(word.value) !== ruleName)) continue;
      const innerWords = command.words.slice(start);
      const innerName = word.kind === 'static' ? word.value : undefined;
      const innerCommand: AnalyzedCommand = { ...command, text: innerWords.map((item) => item.text).join(' '), words: innerWords, written: innerName, name: innerName === undefined ? undefined : innerName.includes('/') ? path.posix.basename(path.posix.normalize(innerName)) : innerName, appendsArguments: false };
      const result = matchRuleWords({ rule, command: innerCommand, depth: options.depth + 1 });
      if (result.match === 'no') continue;
      const match = result.match === 'yes' && first ? 'yes' : 'maybe';
      const detail: RuleMatchDetail = { match, positions: result.positions.map((position) => position + start), why: `${first ? inner.via : `${inner.via}, which may run the rest of its arguments`}${result.why === undefined ? '' : `; ${result.why}`}` };
      if (match === 'yes') return detail;
      if (best.match === 'no') best = detail;
    }
  }
  return best;
}

/** A rule's words read once: its form, and the program name (and family) it names. */
type CompiledRule = RuleForm & { name: string; family: string };
const forms = new WeakMap<ShellRule, CompiledRule>();
function formOf(rule: ShellRule): CompiledRule {
  let form = forms.get(rule);
  if (form === undefined) {
    const name = path.posix.basename(rule.words[0]!);
    const family = programFamily(name);
    form = { ...ruleForm(rule.words, family), name, family };
    forms.set(rule, form);
  }
  return form;
}

const readingCache = new WeakMap<AnalyzedCommand, CommandReading[]>();
function readingsOf(command: AnalyzedCommand, spec: CommandSpec): CommandReading[] {
  let readings = readingCache.get(command);
  if (readings === undefined) {
    readings = readCommand({ spec, words: command.words, appendsArguments: command.appendsArguments });
    readingCache.set(command, readings);
  }
  return readings;
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

/**
 * One allow rule made outside the policy (an "approve always" scope): read
 * exactly as a policy rule is, so it means what the policy line it is shown
 * as would mean. Undefined for words a rule cannot match or an unknown zone.
 *
 * @example
 * allowRule({ match: 'git push', pathsIn: ['workspace'], label: 'approvals (always)', zones })
 */
export function allowRule(options: { match: string; pathsIn: readonly string[]; label: string; zones: readonly Zone[] }): ShellRule | undefined {
  const issues: PolicyIssue[] = [];
  const rule = readRule({ document: { match: options.match, decision: 'allow', paths_in: [...options.pathsIn] }, label: options.label, zones: options.zones, issues });
  return issues.length === 0 ? rule : undefined;
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
  // Read the rule's words with its program's grammar once, not on every command.
  formOf(rule);
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
