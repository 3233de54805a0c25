/**
 * The shell tool's verdict on one command line: every simple command,
 * redirection and construct the analysis found is decided on its own, then
 * any block blocks, any ask asks, and the line is allowed only when every
 * part is. Each finding says which part decided what and why (`--explain`).
 */
import { commandConsequence } from './command-consequences.ts';
import os from 'node:os';
import path from 'node:path';
import { deriveSandboxProfile } from '../../sandbox/derive-sandbox-profile.ts';
import type { SandboxNetwork, SandboxProfile } from '../../sandbox/sandbox-profile.ts';
import { resolveInZones, type Zone } from '../fs/zones.ts';
import type { Decision } from '../../core/types.ts';
import { codeLoadingFile } from '../fs/code-loading-files.ts';
import type { AnalyzedCommand, AnalyzedRedirection } from './analyze-command.ts';
import { analyzeCommandOnce } from './analysis-cache.ts';
import { decideCommandPaths } from './decide-command-paths.ts';
import type { Hazard } from './hazard.ts';
import { entryConcernReason, judgePath } from './judge-path.ts';
import { decideLayoutChanges } from './line-layout-changes.ts';
import { profileAccessOfFile } from './profile-access.ts';
import { ownStateConcern } from '../../config/own-state-paths.ts';
import { checkPathsIn, effectiveCwd, wordPath, type PathsVerdict } from './shell-paths.ts';
import { matchRuleDetail, type RuleMatchDetail, type ShellRule, type ShellRules } from './shell-rules.ts';
import type { ShellFinding } from './shell-finding.ts';

export type { ShellFinding } from './shell-finding.ts';

export interface ShellVerdict {
  decision: Decision;
  findings: ShellFinding[];
  /** The findings that made the line ask or block, as sentences. */
  reasons: string[];
  /** The rule that decided when a single rule did (its `description` is shown to the person). */
  rule: ShellRule | undefined;
  /**
   * The part of the policy that decided, when one did: `shell.rules[2]
   * (match: rm)`, `shell.default (ask)`, `shell.network`; undefined when
   * several did, or the analysis itself (a path, a hazard).
   */
  decidedBy: string | undefined;
  /** What commands of the line do that cannot be undone, one plain line each (`command-consequences.ts`): shown, never deciding. */
  consequences?: string[];
}

/** Longer command lines are not analysed: they ask. */
export const MAX_COMMAND_LENGTH = 256 * 1024;

/** Directories whose programs are the ones a bare name finds; a path elsewhere is another program. */
const SYSTEM_DIRECTORIES = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin', '/opt/homebrew/bin', '/opt/homebrew/sbin', '/run/current-system/sw/bin']);

/** Characters that make what a person reads differ from what bash runs. */
const INVISIBLE = /[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/;
/** Spaces that bash does not treat as spaces. */
const UNICODE_SPACE = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/;

const TERMINAL_TARGETS = /^\/dev\/(null|stdout|stderr|stdin|tty|fd\/[0-9]+)$/;

/**
 * Decides a command line against the rules and zones, and against what the
 * OS sandbox derived from the same policy would allow (`profile`: the
 * paths a command may read and write; `network`: `shell.network`), so the
 * policy layer is never weaker than the sandbox: a path outside it, or the
 * network when it is off, blocks. Never throws: an analysis failure asks.
 * Without `profile`, the one derived from `zones` alone is used; without
 * `network`, the network is off (the policy's default). `cwd` is a real
 * path (a zone root, or a directory the zone resolver resolved).
 *
 * @example
 * const verdict = await decideShellCommand({ command: 'git status && rm -rf x', cwd, rules, zones, profile, network });
 * verdict.decision // 'block' when a rule blocks rm
 * verdict.reasons  // ['rm -rf x: ...']
 */
export async function decideShellCommand(options: {
  command: string;
  cwd: string;
  rules: ShellRules;
  zones: readonly Zone[];
  home?: string;
  profile?: SandboxProfile;
  network?: SandboxNetwork;
}): Promise<ShellVerdict> {
  const findings: ShellFinding[] = [];
  const consequences: string[] = [];
  try {
    const { command } = options;
    if (command.length > MAX_COMMAND_LENGTH) return verdictOf([ask(command.slice(0, 80), `the command line is longer than ${MAX_COMMAND_LENGTH} characters and is not analysed`)], options.rules);
    if (INVISIBLE.test(command)) findings.push(ask(command, 'the command line has control or invisible characters, so what is shown may not be what runs'));
    if (UNICODE_SPACE.test(command)) findings.push(ask(command, 'the command line has Unicode spaces, which bash treats as part of a word, not as a separator'));
    const analysis = analyzeCommandOnce(command);
    for (const concern of analysis.concerns) findings.push({ decision: 'ask', subject: concern.subject, reason: concern.reason, rule: null, via: concern.via });
    const home = options.home ?? os.homedir();
    const profile = options.profile ?? deriveSandboxProfile({ zones: options.zones, network: false, homeDirectory: home });
    const context: DecisionContext = { cwd: options.cwd, rules: options.rules, zones: options.zones, home, profile, network: options.network ?? { mode: 'none' }, realDirectories: new Map([[options.cwd, options.cwd]]) };
    for (const simple of analysis.commands) {
      const consequence = commandConsequence(simple);
      if (consequence !== undefined) consequences.push(consequence);
      const finding = await decideSimpleCommand(simple, context);
      findings.push(finding);
      // A blocked command is blocked; what else it would touch only adds noise to the reasons.
      if (finding.decision !== 'block') findings.push(...(await decideCommandPaths({ command: simple, context })));
    }
    for (const redirection of analysis.redirections) {
      const finding = await decideRedirection(redirection, context);
      if (finding !== undefined) findings.push(finding);
    }
    // Paths through what another command of the line links, renames, removes or extracts were judged against the filesystem before it.
    findings.push(...(await decideLayoutChanges({ analysis, cwd: options.cwd, home, source: command })));
    // Blank and comment-only lines ask: there is nothing a person meant to run. Assignments and tests alone are harmless.
    if (analysis.statements === 0 && findings.length === 0) findings.push(ask(command, 'the command line has no command in it'));
  } catch (error) {
    findings.push(ask(options.command, `the command line could not be decided (${error instanceof Error ? error.message : String(error)})`));
  }
  const verdict = verdictOf(findings, options.rules);
  return consequences.length === 0 ? verdict : { ...verdict, consequences };
}

interface DecisionContext {
  cwd: string;
  rules: ShellRules;
  zones: readonly Zone[];
  home: string;
  profile: SandboxProfile;
  network: SandboxNetwork;
  /** Real paths of working directories, for this decision only. */
  realDirectories: Map<string, string | undefined>;
}

async function decideSimpleCommand(command: AnalyzedCommand, context: DecisionContext): Promise<ShellFinding> {
  const finding = (decision: Decision, reason: string, rule: string | null): ShellFinding => ({ decision, subject: command.text, reason, rule, via: command.via });
  if (command.name === undefined) return finding('ask', reasonsOf(command.hazards), null);

  const paths = new Map<ShellRule, Promise<PathsVerdict>>();
  // Where each rule's words landed in this command (`git --no-pager status`: 0 and 2).
  const matches = new Map<ShellRule, RuleMatchDetail>();
  const pathsFor = (rule: ShellRule): Promise<PathsVerdict> => {
    let verdict = paths.get(rule);
    if (verdict === undefined) {
      verdict = rule.pathsIn === undefined ? Promise.resolve({ kind: 'inside' }) : checkPathsIn({ command, skip: Math.max(0, ...(matches.get(rule)?.positions ?? [rule.words.length - 1])) + 1, zones: rule.pathsIn, cwd: context.cwd, home: context.home, realDirectories: context.realDirectories });
      paths.set(rule, verdict);
    }
    return verdict;
  };

  const possibleBlocks: string[] = [];
  const possibleAsks: string[] = [];
  const skipped: string[] = [];
  const candidates: ShellRule[] = [];
  for (const rule of context.rules.rules) {
    // Two-sided (shell-rules.ts): an allow rule says yes only where it surely matches, a block or ask rule wherever it may.
    const detail = matchRuleDetail(rule, command);
    const match = detail.match;
    if (match === 'no') continue;
    matches.set(rule, detail);
    const why = detail.why === undefined ? '' : ` (${detail.why})`;
    if (rule.decision === 'block') {
      if (match === 'maybe') {
        possibleBlocks.push(`it could turn out to be ${JSON.stringify(rule.match)}, which ${rule.label} blocks${why}`);
        continue;
      }
      const where = await pathsFor(rule);
      if (where.kind === 'inside') return finding('block', `${rule.reason ?? `${JSON.stringify(rule.match)} is blocked (${rule.label})`}${why}`, rule.label);
      if (where.kind === 'unsure') possibleBlocks.push(`${rule.label} blocks ${JSON.stringify(rule.match)} in ${zoneNames(rule)} and ${where.reason}`);
      continue;
    }
    if (match !== 'yes') {
      if (rule.decision === 'ask') possibleAsks.push(`it could turn out to be ${JSON.stringify(rule.match)}, which ${rule.label} asks about${why}`);
      continue;
    }
    const where = await pathsFor(rule);
    if (where.kind === 'inside') candidates.push(rule);
    else skipped.push(`${rule.label} (${JSON.stringify(rule.match)}) applies only in ${zoneNames(rule)}: ${where.reason}`);
  }
  if (possibleBlocks.length > 0) return finding('ask', possibleBlocks.join('; '), null);
  if (possibleAsks.length > 0) return finding('ask', possibleAsks.join('; '), null);

  // The most specific rule decides; on a tie, ask wins over allow.
  const chosen = candidates.reduce<ShellRule | undefined>((best, rule) => {
    if (best === undefined || rule.words.length > best.words.length) return rule;
    if (rule.words.length === best.words.length && rule.decision === 'ask' && best.decision === 'allow') return rule;
    return best;
  }, undefined);
  const notes = skipped.length > 0 ? `; ${skipped.join('; ')}` : '';
  let decision: Decision;
  let reason: string;
  let label: string | null = null;
  if (chosen !== undefined) {
    label = chosen.label;
    decision = chosen.decision;
    reason = chosen.reason ?? `matches ${JSON.stringify(chosen.match)} (${chosen.label}: ${chosen.decision})`;
  } else if (command.role === 'script') {
    // Its script's commands are findings of their own, and they decide; the shell adds nothing to them.
    decision = 'allow';
    reason = `${command.roleReason ?? `${command.name} runs a literal script`}, judged as the commands in it${notes}`;
  } else if (command.role !== 'plain') {
    decision = 'ask';
    reason = `${command.roleReason ?? `${command.name} runs other code`}, and no rule names it${notes}`;
  } else if (command.explicitOnly) {
    decision = 'ask';
    reason = `no rule matches this command, and inside a substitution only a rule can allow a command${notes}`;
  } else {
    decision = context.rules.defaultDecision;
    label = 'shell.default';
    reason = `no rule matches this command, so shell.default applies (${decision})${notes}`;
  }
  const uncovered = command.hazards.filter((hazard) => !covers(chosen === undefined ? undefined : matches.get(chosen), hazard));
  if (command.written!.includes('/') && chosen?.pathQualified !== true && !SYSTEM_DIRECTORIES.has(path.posix.dirname(path.posix.normalize(command.written!)))) {
    uncovered.push({ index: undefined, kind: 'exec', reason: `${command.written} is run by its path, so it is not necessarily the ${command.name} the rules mean` });
  }
  if (decision === 'allow' && uncovered.length > 0) return finding('ask', `${reasonsOf(uncovered)} (${reason})`, label);
  if (decision === 'ask' && uncovered.length > 0) reason = `${reason}; ${reasonsOf(uncovered)}`;
  return finding(decision, reason, label);
}

/** A rule covers a hazard on a word its own words landed on (`git -c` covers `git -c x=y status`). */
function covers(match: RuleMatchDetail | undefined, hazard: Hazard): boolean {
  return match !== undefined && hazard.index !== undefined && match.positions.includes(hazard.index);
}

async function decideRedirection(redirection: AnalyzedRedirection, context: DecisionContext): Promise<ShellFinding | undefined> {
  const base: { subject: string; via: string | undefined; rule: string | null } = { subject: redirection.text, via: redirection.via, rule: null };
  const target = redirection.target;
  if (target.kind !== 'static') return { ...base, decision: 'ask', reason: `the redirection target ${target.text} is only known at run time` };
  const file = wordPath(target, context.home);
  if (file === undefined) return { ...base, decision: 'ask', reason: `the redirection target ${target.text} expands to a directory only known at run time` };
  if (/^\/dev\/(tcp|udp)\//.test(file)) {
    if (context.network.mode !== 'all') return { ...base, rule: 'shell.network', decision: 'block', reason: 'the redirection opens a network connection, and network is off in this policy (shell.network): no shell rule changes that (a rule that allows or asks cannot open the network); only the shell.network key does' };
    return { ...base, decision: 'ask', reason: 'the redirection opens a network connection' };
  }
  if (TERMINAL_TARGETS.test(file)) return undefined;
  const cwd = effectiveCwd({ state: redirection.cwd, cwd: context.cwd });
  if (redirection.operation === 'read') {
    if (cwd === undefined && !path.isAbsolute(file)) return { ...base, decision: 'ask', reason: `reads ${file} in a directory only known at run time (after cd)` };
    const judgement = await judgePath({ path: file, cwd: cwd ?? context.cwd, operation: 'read', subject: 'the redirection', context });
    return judgement.decision === 'allow' ? undefined : { ...base, decision: judgement.decision, reason: judgement.reason };
  }
  if (cwd === undefined && !path.isAbsolute(file)) return { ...base, decision: 'ask', reason: `writes ${file} in a directory only known at run time (after cd)` };
  const resolved = resolveInZones({ zones: context.zones, path: file, cwd: cwd ?? context.cwd, operation: 'write' });
  if (!resolved.ok) return { ...base, decision: 'block', reason: `writes a file it may not: ${resolved.reason}` };
  const zone = resolved.zone;
  const shown = `${zone.name}:${resolved.relative}`;
  // Credentials and toolgate's own files are hidden from the sandbox even inside a zone.
  if (profileAccessOfFile(context.profile, resolved.absolute) !== 'read-write') return { ...base, decision: 'block', reason: `writes ${shown}, which the sandbox keeps hidden or read-only (credentials or toolgate's own files)` };
  const decision = zone.approval.write;
  // A folder above toolgate's own files, or a policy or state file it would load (src/config/own-state-paths.ts).
  const concern = decision === 'block' ? undefined : ownStateConcern({ absolute: resolved.absolute, operation: 'write', hidden: context.profile.hidden, shown });
  if (concern !== undefined) return { ...base, decision: concern.decision, reason: `writes ${concern.reason}` };
  // `>> alias` appends to every name of a hard-linked file, wherever the others lie; `> fifo` can wait forever.
  const aliased = decision === 'block' ? undefined : entryConcernReason({ absolute: resolved.absolute, where: shown, subject: 'the redirection', verb: 'writes', zone });
  if (aliased !== undefined) return { ...base, decision: 'ask', reason: aliased };
  // `> .git/config`, `> .envrc`: what git or another tool would run next (src/tools/fs/code-loading-files.ts).
  const loading = decision === 'block' ? undefined : codeLoadingFile({ absolute: resolved.absolute, root: zone.root });
  if (loading !== undefined) return { ...base, decision: 'ask', reason: `writes ${shown}, ${loading}, so changing it asks in every zone` };
  if (decision === 'allow') return { ...base, decision, reason: `writes ${shown}; zone ${zone.name} allows writes` };
  if (decision === 'block') return { ...base, decision, reason: `writes ${shown}; zone ${zone.name} blocks writes` };
  return { ...base, decision: 'ask', reason: `writes ${shown}; zone ${zone.name} asks before writes` };
}

function verdictOf(findings: ShellFinding[], rules: ShellRules): ShellVerdict {
  const decision: Decision = findings.some((finding) => finding.decision === 'block') ? 'block' : findings.some((finding) => finding.decision === 'ask') ? 'ask' : 'allow';
  const deciding = findings.filter((finding) => finding.decision === decision);
  const reasons = decision === 'allow' ? [] : deciding.map((finding) => `${finding.subject}${finding.via === undefined ? '' : ` (${finding.via})`}: ${finding.reason}`);
  const labels = new Set(deciding.map((finding) => finding.rule));
  // An ask names the one rule of the policy among its reasons (shell.default, a rule), beside what the zones say of its paths.
  const named = [...labels].filter((label) => label !== null && label !== undefined);
  const only = labels.size === 1 ? [...labels][0] : decision === 'ask' && named.length === 1 ? named[0] : undefined;
  const rule = only === undefined || only === null ? undefined : rules.rules.find((candidate) => candidate.label === only);
  const decidedBy = rule !== undefined ? `${rule.label} (match: ${rule.match})` : only === 'shell.default' ? `shell.default (${decision})` : (only ?? undefined);
  return { decision, findings, reasons, rule, decidedBy };
}

function ask(subject: string, reason: string): ShellFinding {
  return { decision: 'ask', subject, reason, rule: null, via: undefined };
}

function reasonsOf(hazards: readonly Hazard[]): string {
  return hazards.map((hazard) => hazard.reason).join('; ');
}

function zoneNames(rule: ShellRule): string {
  return (rule.pathsIn ?? []).map((zone) => zone.name).join(', ');
}
