import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readAuditLog, readStoredAudit, type AuditLogItem } from '../../audit/read-audit-log.ts';
import { loadPolicyFile, type LoadedPolicy } from '../../config/load-policy-file.ts';
import { displayPath } from '../../tools/fs/resolve-zone-path.ts';
import { projectRootOf, userPolicyFile } from '../../config/find-host-policy.ts';
import { toolgateConfigHome } from '../../config/user-toolgate-paths.ts';
import { ToolgateError } from '../../core/errors/toolgate-error.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { terminalSafeJson } from '../../core/terminal-safe-json.ts';
import { auditInsights, RUBBER_STAMP, type AuditInsights } from '../../insights/audit-insights.ts';
import { suggestRules, type Suggestions } from '../../insights/suggest-rules.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { loadPolicyOrExplain, PolicyError, UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { openSharedStore } from '../shared-store-option.ts';
import { parseAuditTime, resolveLogPath } from './audit-command.ts';

export const INSIGHTS_HELP = `Usage:
  toolgate insights [--log FILE | --policy FILE | --store URL] [--since TIME] [--until TIME]
                    [--budget N] [--json] [--suggest [--scope project|user] [--write]]

Where people's attention goes, from the audit log: every ask a person (or a
timeout) decided, per rule and per approver — how many, how many approved,
how fast (median and 90th percentile time to decide), the busiest hour — and
what deserves a look:
  rubber-stamped?  a rule asked at least ${RUBBER_STAMP.minAsks} times, approved ${RUBBER_STAMP.minApprovalRate * 100}% or more,
                   decided in under ${RUBBER_STAMP.maxMedianMs / 1000} s (median): a tired reviewer approves
                   the harmful ask with the rest
  over budget      a person asked more often in one hour than --budget
                   (default: the policy's attention.asks_per_hour)
  looping          the same call denied 3 times or more in one session

Options:
  --log FILE        the audit log to read (else the one toolgate audit reads)
  --policy FILE     read this policy's log; --suggest proposes rules for it
  --store URL       the audit trail of the servers sharing this PostgreSQL store
  --since TIME      only entries at or after TIME (an ISO date or time, or 7d, 4w)
  --until TIME      only entries at or before TIME
  --budget N        asks per person per hour past which an hour is flagged
  --json            the figures as one JSON object
  --suggest         for each rubber-stamped rule, the narrowest shell rules that
                    would have allowed the commands people approved again and
                    again (the line "approve always" offers: the command's words,
                    in its zone), shown as a diff of the policy file. A rule is
                    proposed only after ${3} approvals and no denial of what it
                    allows, and only once the policy with it is checked to allow
                    those calls and to still ask about or block every
                    destructive control and every call people denied; deletes,
                    history rewrites, pushes, network and cluster commands,
                    and anything outside the zones are withheld, saying why
  --scope S         project (default): the policy in use (--policy, or the one
                    here); user: your user-level policy (~/.config/toolgate/toolgate.yaml)
  --write           write the suggested rules into that file (nothing is written
                    without it; the file must not have changed since it was read)
  -h, --help        this help

Exit codes:
  0  read (and, with --write, written)
  2  usage error
  3  a policy file is missing or invalid
  4  some log lines could not be read (counted; the rest was read)
`;

/**
 * `toolgate insights`: asks, approvals and time to decide, per rule and approver.
 *
 * @example
 * await runInsightsCommand(['--since', '30d', '--suggest'], processIo());
 */
export async function runInsightsCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandLine({
    argv,
    options: {
      log: { type: 'string' },
      policy: { type: 'string' },
      store: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      budget: { type: 'string' },
      json: { type: 'boolean' },
      suggest: { type: 'boolean' },
      scope: { type: 'string' },
      write: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(INSIGHTS_HELP);
    return EXIT.ok;
  }
  const now = Date.now();
  const since = values.since === undefined ? undefined : parseAuditTime(values.since, now);
  const until = values.until === undefined ? undefined : parseAuditTime(values.until, now);
  if (since !== undefined && until !== undefined && since > until) throw new UsageError('--since is later than --until: nothing could match');
  if (values.store !== undefined && (values.log !== undefined || values.policy !== undefined) && values.suggest !== true) throw new UsageError('give one of --log, --policy and --store');
  if (values.log !== undefined && values.store !== undefined) throw new UsageError('give --log or --store, not both');
  let budget: number | undefined;
  if (values.budget !== undefined) {
    if (!/^\d+$/.test(values.budget) || Number(values.budget) < 1) throw new UsageError(`--budget must be a whole number of asks per hour, at least 1, not ${JSON.stringify(values.budget)}`);
    budget = Number(values.budget);
  }
  if (values.scope !== undefined && values.scope !== 'project' && values.scope !== 'user') throw new UsageError(`--scope must be project or user, not ${JSON.stringify(values.scope)}`);
  if ((values.scope !== undefined || values.write === true) && values.suggest !== true) throw new UsageError('--scope and --write go with --suggest');

  // The policy suggestions are for, and whose attention budget applies: read before the log, so a bad one stops here.
  let target: { loaded: LoadedPolicy; text: string; scope: 'project' | 'user' } | undefined;
  try {
    if (values.suggest === true) target = await policyToChange(values.scope === 'user' ? 'user' : 'project', values.policy, io);
  } catch (error) {
    if (error instanceof PolicyError) {
      io.stderr.write(`toolgate insights: ${sanitizeTerminalText(error.message, { keepNewlines: true, keepTabs: true })}\n`);
      return EXIT.policy;
    }
    throw error;
  }
  budget ??= target?.loaded.policy.document.attention?.asks_per_hour;

  const source = await logSource({ log: values.log, policy: values.policy, store: values.store }, io);
  try {
    let insights: AuditInsights;
    try {
      insights = await auditInsights({ items: source.items(), since, until, budgetPerHour: budget });
    } catch (error) {
      if (error instanceof ToolgateError && error.code === 'AUDIT_LOG_INVALID') {
        io.stderr.write(`toolgate insights: ${sanitizeTerminalText(error.message)}\n`);
        return EXIT.usage;
      }
      throw error;
    }
    let suggestions: Suggestions | undefined;
    if (target !== undefined) {
      const rubberStamped = new Set(insights.rules.filter((rule) => rule.rubberStamped).map((rule) => rule.rule));
      // A user-level policy's zones are rooted, for each call, at the call's project (its git repository's top).
      const rootOf = target.scope === 'user' ? (cwd: string) => projectRootOf(cwd) : () => target!.loaded.directory;
      suggestions = await suggestRules({ items: withinPeriod(source.items(), since, until), rules: rubberStamped, loaded: target.loaded, env: io.env, text: target.text, rootOf });
    }
    if (values.json === true) io.stdout.write(`${terminalSafeJson({ log: source.shown, ...insights, ...(suggestions === undefined ? {} : { suggestions: { file: suggestions.file, suggestions: suggestions.suggestions, withheld: suggestions.withheld, diff: suggestions.diff } }) })}\n`);
    else io.stdout.write(humanInsights(insights, source.shown, io.cwd) + (suggestions === undefined ? '' : humanSuggestions(suggestions, values.write === true)));
    if (suggestions !== undefined && values.write === true && suggestions.diff !== '') {
      // Only over the text the suggestions were made from: a file changed meanwhile is left alone.
      if (readFileSync(suggestions.file, 'utf8') !== target!.text) {
        io.stderr.write(`toolgate insights: ${sanitizeTerminalText(suggestions.file)} changed while the log was read: nothing written; run again\n`);
        return EXIT.usage;
      }
      replaceFileText({ file: suggestions.file, text: suggestions.text });
      io.stderr.write(`toolgate insights: wrote ${suggestions.suggestions.length} rule${suggestions.suggestions.length === 1 ? '' : 's'} into ${sanitizeTerminalText(suggestions.file)}\n`);
    }
    if (insights.malformed > 0) io.stderr.write(`toolgate insights: ${insights.malformed} lines of the log could not be read (toolgate audit names them); the rest was read\n`);
    return insights.malformed > 0 ? EXIT.badInput : EXIT.ok;
  } finally {
    await source.close();
  }
}

/**
 * Writes `text` as the file's new content, whole or not at all: into a
 * temporary file beside the file a link points to (the link stays a link),
 * with the file's own mode (a policy kept private stays private), synced,
 * then renamed over it; the temporary file is removed if anything fails.
 */
function replaceFileText(options: { file: string; text: string }): void {
  const real = realpathSync(options.file);
  const { mode } = statSync(real);
  const temporary = path.join(path.dirname(real), `.${path.basename(real)}.toolgate-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const descriptor = openSync(temporary, 'wx', mode & 0o777);
    try {
      writeFileSync(descriptor, options.text);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, real);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** The policy file suggestions go into, and its text as read. */
async function policyToChange(scope: 'project' | 'user', policy: string | undefined, io: CliIo): Promise<{ loaded: LoadedPolicy; text: string; scope: 'project' | 'user' }> {
  let loaded: LoadedPolicy;
  if (scope === 'user') {
    const file = userPolicyFile(io.env);
    if (file === undefined) throw new UsageError(`--scope user: there is no user-level policy (toolgate.yaml in ${toolgateConfigHome(io.env)})`);
    loaded = await loadPolicyFile(file);
  } else loaded = await loadPolicyOrExplain({ policy, io });
  return { loaded, text: readFileSync(loaded.path, 'utf8'), scope };
}

/** The log as a source that can be read twice (the figures, then the suggestions). */
async function logSource(options: { log: string | undefined; policy: string | undefined; store: string | undefined }, io: CliIo): Promise<{ items(): AsyncIterable<AuditLogItem>; shown: string; close(): Promise<void> }> {
  if (options.store !== undefined) {
    const { store, shared, where } = await openSharedStore(options.store, 'toolgate insights');
    return { items: () => readStoredAudit(shared), shown: where, close: () => store.close() };
  }
  const file = await resolveLogPath({ log: options.log, policy: options.policy }, io, 'toolgate insights');
  return { items: () => readAuditLog({ path: file }), shown: file, close: async () => undefined };
}

async function* withinPeriod(items: AsyncIterable<AuditLogItem>, since: number | undefined, until: number | undefined): AsyncGenerator<AuditLogItem> {
  for await (const item of items) {
    if ('entry' in item) {
      const time = Date.parse(item.entry.time);
      if ((since !== undefined && time < since) || (until !== undefined && time > until)) continue;
    }
    yield item;
  }
}

function humanInsights(insights: AuditInsights, log: string, cwd: string): string {
  const lines: string[] = [];
  const period = insights.from === null ? 'no entries' : `${insights.from.slice(0, 16).replace('T', ' ')} … ${insights.to!.slice(0, 16).replace('T', ' ')} UTC`;
  lines.push(`${safe(displayPath({ cwd, absolute: log }))}: ${period}`);
  lines.push(`  ${insights.calls} calls judged; ${insights.asks} asks decided by a person or a timeout${insights.unanswered > 0 ? `; ${insights.unanswered} never answered` : ''}`);
  if (insights.rules.length > 0) {
    lines.push('', `  ${'asks'.padStart(6)} ${'approved'.padStart(8)} ${'median'.padStart(7)} ${'p90'.padStart(7)}  rule`);
    for (const rule of insights.rules) {
      const where = rule.ruleAt === undefined ? '' : `, ${displayPath({ cwd, absolute: rule.ruleAt })}`;
      lines.push(`  ${String(rule.asks).padStart(6)} ${percent(rule.approvalRate).padStart(8)} ${seconds(rule.medianMs).padStart(7)} ${seconds(rule.p90Ms).padStart(7)}  ${safe(rule.rule ?? '(no rule)')}${safe(where)} (${safe(rule.tool)})${rule.rubberStamped ? '  ← rubber-stamped?' : ''}`);
    }
  }
  if (insights.approvers.length > 0) {
    lines.push('', `  ${'decided'.padStart(7)} ${'approved'.padStart(8)} ${'median'.padStart(7)} ${'busiest'.padStart(9)}  approver`);
    for (const person of insights.approvers) {
      const over = insights.budgetPerHour !== null && person.hoursOverBudget > 0 ? `  ← over budget in ${person.hoursOverBudget} hour${person.hoursOverBudget === 1 ? '' : 's'}` : '';
      lines.push(`  ${String(person.decided).padStart(7)} ${percent(person.decided === 0 ? 0 : person.approved / person.decided).padStart(8)} ${seconds(person.medianMs).padStart(7)} ${`${person.busiestHour}/h`.padStart(9)}  ${safe(person.approver)}${over}`);
    }
  }
  const flags: string[] = [];
  for (const rule of insights.rules.filter((candidate) => candidate.rubberStamped)) {
    flags.push(`rubber-stamped? ${safe(rule.rule ?? '(no rule)')}: ${rule.asks} asks, ${percent(rule.approvalRate)} approved, decided in ${seconds(rule.medianMs)} (median); \`toolgate insights --suggest\` proposes narrower rules`);
  }
  for (const person of insights.approvers.filter((candidate) => insights.budgetPerHour !== null && candidate.hoursOverBudget > 0)) {
    flags.push(`over budget: ${safe(person.approver)} decided up to ${person.busiestHour} asks in one hour (budget ${insights.budgetPerHour}), in ${person.hoursOverBudget} hour${person.hoursOverBudget === 1 ? '' : 's'}`);
  }
  for (const loop of insights.loops) flags.push(`looping? ${loop.denials}× denied in session ${safe(loop.session)}: ${safe(loop.tool)}: ${safe(loop.call)}`);
  if (flags.length > 0) lines.push('', 'Worth a look:', ...flags.map((flag) => `  ${flag}`));
  if (insights.denialReasons.length > 0) lines.push('', 'Why people denied:', ...insights.denialReasons.map((entry) => `  ${String(entry.count).padStart(4)}×  ${safe(entry.reason)}`));
  return `${lines.join('\n')}\n`;
}

function humanSuggestions(suggestions: Suggestions, writing: boolean): string {
  const lines = [''];
  if (suggestions.suggestions.length === 0) lines.push(`No rule to suggest for ${safe(suggestions.file)}.`);
  else {
    lines.push(`Suggested rules for ${safe(suggestions.file)}${writing ? '' : ' (nothing written: --write writes them)'}:`);
    for (const suggestion of suggestions.suggestions) {
      lines.push(`  ${safe(suggestion.commands.join(', '))} in zone ${safe(suggestion.zone)}: approved ${suggestion.approvals} times under ${safe(suggestion.forRule ?? '(no rule)')}, e.g. ${suggestion.examples.map((example) => safe(example)).join('; ')}`);
    }
    lines.push('', ...suggestions.diff.trimEnd().split('\n').map((line) => safe(line)));
  }
  if (suggestions.withheld.length > 0) {
    lines.push('', 'Withheld:');
    for (const entry of suggestions.withheld) lines.push(`  ${safe(entry.what)} (${entry.count} approved): ${safe(entry.why)}`);
  }
  return `${lines.join('\n')}\n`;
}

function percent(rate: number): string {
  return `${Math.round(rate * 100)}%`;
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`;
}

function safe(text: unknown): string {
  return sanitizeTerminalText(String(text), { collapse: true });
}
