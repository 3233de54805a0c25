import { lstatSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadPolicyFile } from '../../config/load-policy-file.ts';
import { displayPath as relativePath } from '../../tools/fs/resolve-zone-path.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { terminalSafeJson } from '../../core/terminal-safe-json.ts';
import { HeldLookups } from '../../filesystem/file-lookups.ts';
import { historyCalls, type HistoryItem } from '../../replay/history-calls.ts';
import { capYoungGeneration, type YoungGenerationCap } from '../young-generation-cap.ts';
import { createHistoryJudge, replayHistory, type ReplayChange, type ReplayExample, type ReplaySummary, type ReplayVerdict } from '../../replay/replay-history.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { loadPolicyOrExplain, PolicyError, UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { parseAuditTime } from '../audit-time.ts';

export const REPLAY_HELP = `Usage:
  toolgate replay [--policy FILE] [--against FILE] [--since TIME] [--json] [SOURCE...]

Judges the tool calls of past agent sessions under a policy, as toolgate's
hook would have judged them, running nothing and recording nothing: what a
policy would have allowed, asked about and blocked over a month of your own
work, and, with --against, what changing your policy would change.

A SOURCE is a file or a folder (every .jsonl file below it):
  Claude Code's session transcripts   ~/.claude/projects/<project>/*.jsonl
  Codex's session rollouts            $CODEX_HOME/sessions/YYYY/MM/DD/*.jsonl
  toolgate's audit log                .toolgate/audit.jsonl (its verdicts)
  toolgate check --batch lines        {"tool", "args", "server"?}
Which kind a file is, its first line says. Without a SOURCE: Claude Code's
(\$CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects) and Codex's
(\$CODEX_HOME/sessions, else ~/.codex/sessions) transcripts, where they are.
A call read twice (a resumed session's copy, a call in both a transcript and
the audit log) is judged once.

Options:
  --policy FILE     the policy to judge with (default: ./toolgate.yaml, .yml or .json)
  --against FILE    a second policy (your current one): prints the calls whose
                    decision differs between the two, grouped by decision and
                    rule, newly allowed first, with examples
  --since TIME      only calls at or after TIME: an ISO date or time, or how long
                    ago (90m, 7d, 4w)
  --json            the summary as one JSON object
  --calls           instead of the summary, each call as it is judged, one JSON
                    object per line: {"at": "FILE:LINE", "source", "time", "call_id", "tool",
                    "call", "decision", "rule", "rule_at"?, "reason", "unjudged"?,
                    "against"?: {the same, under --against}}
  -h, --help        this help

What is printed: the calls per decision (allow, ask, block) and per rule under
each policy; the calls the policy judged without reading their content (a
tool no rule or declaration names, judged by unknown_tools alone; a command
the shell analysis could not read whole), with examples; the calls the hosts
never hand their hooks (Codex's update_plan...), counted; and every line that
could not be read, with its file and line. Examples show the call as the
audit log does: values of the policy's redact.keys are masked.

The judgement is today's: files and folders the calls name are looked at as
they are now (a zone's root that is gone, a file since deleted). Each call is
judged in its own working directory, as the hook judges it. Under
sandbox.hosts: wrap, a shell command is judged as one the OS sandbox would
hold: replay builds no sandbox and runs nothing.

Exit codes:
  0  every line was read
  2  usage error (a SOURCE that does not exist, a bad --since)
  3  a policy file is missing or invalid
  4  some lines could not be read (they are listed; the rest were replayed)
`;

/**
 * `toolgate replay`: a policy over real histories.
 *
 * @example
 * await runReplayCommand(['--policy', 'new.yaml', '--against', 'toolgate.yaml'], processIo());
 */
export async function runReplayCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine({
    argv,
    allowPositionals: true,
    options: {
      policy: { type: 'string' },
      against: { type: 'string' },
      since: { type: 'string' },
      json: { type: 'boolean' },
      calls: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(REPLAY_HELP);
    return EXIT.ok;
  }
  const since = values.since === undefined ? undefined : parseAuditTime(values.since, Date.now());
  const sources = positionals.length > 0 ? positionals.map((source) => path.resolve(io.cwd, source)) : defaultSources(io.env);
  for (const source of sources) if (!exists(source)) throw new UsageError(`${source} does not exist`);
  if (sources.length === 0) {
    throw new UsageError('no history given, and none where Claude Code and Codex keep theirs (~/.claude/projects, ~/.codex/sessions): name a transcript, a folder of them or an audit log');
  }
  const loaded = await loadPolicyOrExplain({ policy: values.policy, io });
  let against;
  if (values.against !== undefined) {
    try {
      against = await loadPolicyFile(path.resolve(io.cwd, values.against));
    } catch (error) {
      if (error instanceof PolicyError) {
        io.stderr.write(`toolgate: --against: ${sanitizeTerminalText(error.message)}\n`);
        return EXIT.policy;
      }
      throw error;
    }
  }
  // Both policies judge against one look at the file system.
  const lookups = new HeldLookups();
  const policy = await createHistoryJudge({ loaded, env: io.env, lookups });
  const againstJudge = against === undefined ? undefined : await createHistoryJudge({ loaded: against, env: io.env, lookups });
  let summary: ReplaySummary;
  // A month of history is judged once per distinct call and the verdicts kept: V8's young generation would grow for them to
  // 128 MB of the process's memory.
  const youngGeneration = capYoungGeneration();
  try {
    // --calls: each call's verdict as it is judged, one JSON line each, instead of the summary.
    const onCall = values.calls !== true ? undefined : (call: { at: string; source: string; time: string | undefined; id: string | undefined; verdicts: ReplayVerdict[] }) => {
      const [now, before] = call.verdicts as [ReplayVerdict, ReplayVerdict | undefined];
      const side = (verdict: ReplayVerdict) => ({ decision: verdict.decision, rule: verdict.rule, ...(verdict.ruleAt === undefined ? {} : { rule_at: verdict.ruleAt }), reason: verdict.reason, ...(verdict.unjudged === undefined ? {} : { unjudged: verdict.unjudged }) });
      io.stdout.write(`${terminalSafeJson({ at: call.at, source: call.source, time: call.time ?? null, call_id: call.id ?? null, tool: now.tool, call: now.call, ...side(now), ...(before === undefined ? {} : { against: side(before) }) })}\n`);
    };
    summary = await replayHistory({ items: itemsOf(sources, io.env, youngGeneration), policy, against: againstJudge, since, onCall });
  } finally {
    youngGeneration.release();
    await policy.close();
    await againstJudge?.close();
  }
  if (values.calls === true) {
    // The calls were the output.
  } else if (values.json === true) io.stdout.write(`${terminalSafeJson(summary)}\n`);
  else io.stdout.write(humanSummary(summary, { cwd: io.cwd, home: io.env.HOME ?? os.homedir() }));
  for (const line of summary.malformed.lines) io.stderr.write(`${safe(line.at)}: ${safe(line.problem)}\n`);
  if (summary.malformed.count > summary.malformed.lines.length) io.stderr.write(`…and ${summary.malformed.count - summary.malformed.lines.length} more lines that could not be read\n`);
  return summary.malformed.count > 0 ? EXIT.badInput : EXIT.ok;
}

/** Where Claude Code and Codex keep their transcripts, where those folders exist. */
function defaultSources(env: Readonly<Record<string, string | undefined>>): string[] {
  const home = env.HOME ?? os.homedir();
  const claude = path.join(env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude'), 'projects');
  const codex = path.join(env.CODEX_HOME ?? path.join(home, '.codex'), 'sessions');
  return [claude, codex].filter(exists);
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** Every call of every source, file after file (a folder's .jsonl files in name order, so a replay reads the same way twice). */
function* itemsOf(sources: readonly string[], env: Readonly<Record<string, string | undefined>>, youngGeneration: YoungGenerationCap): Generator<HistoryItem, void, undefined> {
  for (const source of sources) {
    for (const file of filesOf(source)) {
      if ('problem' in file) {
        yield { kind: 'malformed', at: { file: file.file, line: 0 }, problem: file.problem };
        continue;
      }
      try {
        for (const item of historyCalls({ file: file.file, env })) {
          youngGeneration.check();
          yield item;
        }
      } catch (error) {
        yield { kind: 'malformed', at: { file: file.file, line: 0 }, problem: `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
      }
    }
  }
}

/**
 * The regular files a source names: itself, or the .jsonl files below a
 * folder. Symbolic links are not followed below a folder (a link to a parent
 * would loop), and a named pipe is refused (reading it would wait forever).
 */
function* filesOf(source: string): Generator<{ file: string } | { file: string; problem: string }> {
  let stats;
  try {
    // A source named on the command line is followed if it is a link; the entries below a folder are not (readdir's own types).
    stats = statSync(source);
  } catch (error) {
    yield { file: source, problem: `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
    return;
  }
  if (stats.isFile()) {
    yield { file: source };
    return;
  }
  if (!stats.isDirectory()) {
    yield { file: source, problem: 'not a regular file or a folder' };
    return;
  }
  let entries;
  try {
    entries = readdirSync(source, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    yield { file: source, problem: `cannot be listed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
    return;
  }
  for (const entry of entries) {
    const file = path.join(source, entry.name);
    if (entry.isDirectory()) yield* filesOf(file);
    else if (entry.isFile() && entry.name.endsWith('.jsonl')) yield { file };
  }
}

const DECISIONS = ['allow', 'ask', 'block'] as const;
const ARROW: Record<string, string> = { allow: 'newly allowed', ask: 'newly asked', block: 'newly blocked' };

/** The summary for a person: totals, what would change, what was not judged on its content, what could not be read. */
function humanSummary(summary: ReplaySummary, places: { cwd: string; home: string }): string {
  const shown = (file: string) => safe(displayPath(file, places));
  const lines: string[] = [];
  const sources = Object.entries(summary.sources)
    .sort((a, b) => b[1] - a[1])
    .map(([source, count]) => `${safe(source)}: ${count}`)
    .join(', ');
  lines.push(`${summary.calls} calls replayed${sources === '' ? '' : ` (${sources})`}${summary.duplicates > 0 ? `; ${summary.duplicates} read twice, judged once` : ''}${summary.skipped > 0 ? `; ${summary.skipped} before --since` : ''}`);
  lines.push('');
  const width = Math.max(...summary.policies.map((policy) => displayPath(policy.path, places).length), 6);
  lines.push(`${'policy'.padEnd(width)}  ${DECISIONS.map((decision) => decision.padStart(7)).join('')}`);
  for (const policy of summary.policies) lines.push(`${shown(policy.path).padEnd(width)}  ${DECISIONS.map((decision) => String(policy.totals[decision]).padStart(7)).join('')}`);
  const [first] = summary.policies;
  if (first !== undefined && first.rules.length > 0) {
    lines.push('', `By rule, under ${shown(first.path)}:`);
    for (const tally of first.rules.slice(0, 15)) lines.push(`  ${String(tally.count).padStart(6)}  ${tally.decision.padEnd(5)}  ${ruleText(tally, shown)}`);
    if (first.rules.length > 15) lines.push(`  …and ${first.rules.length - 15} more rules (--json lists every one)`);
  }
  if (summary.policies.length === 2) {
    const [now, before] = summary.policies as [(typeof summary.policies)[0], (typeof summary.policies)[0]];
    lines.push('');
    if (summary.changes.length === 0) lines.push(`No call would be decided otherwise under ${shown(now.path)} than under ${shown(before.path)}.`);
    else {
      const changed = summary.changes.reduce((sum, change) => sum + change.count, 0);
      lines.push(`${changed} calls would be decided otherwise under ${shown(now.path)} than under ${shown(before.path)}:`);
      for (const change of summary.changes) lines.push(...changeLines(change, shown));
    }
  }
  if (summary.unjudged.length > 0) {
    lines.push('', `Judged without reading their content (${summary.unjudged.reduce((sum, entry) => sum + entry.count, 0)} calls):`);
    for (const entry of summary.unjudged) {
      lines.push(`  ${String(entry.count).padStart(6)}  ${safe(entry.why)}`);
      for (const example of entry.examples) lines.push(exampleLine(example, shown));
    }
  }
  if (summary.unseen.length > 0) {
    lines.push('', 'Never handed to a hook by their host, so not judged:');
    for (const entry of summary.unseen) lines.push(`  ${String(entry.count).padStart(6)}  ${safe(entry.source)} ${safe(entry.tool)}`);
  }
  if (summary.malformed.count > 0) lines.push('', `${summary.malformed.count} lines could not be read (listed on stderr); the rest were replayed.`);
  return `${lines.join('\n')}\n`;
}

function changeLines(change: ReplayChange, shown: (file: string) => string): string[] {
  const lines = [`  ${String(change.count).padStart(6)}  ${ARROW[change.to.decision]}: ${change.from.decision} (${ruleText(change.from, shown)}) → ${change.to.decision} (${ruleText(change.to, shown)})`];
  for (const example of change.examples) lines.push(exampleLine(example, shown));
  return lines;
}

function exampleLine(example: ReplayExample, shown: (file: string) => string): string {
  return `            e.g. ${safe(example.tool)}: ${safe(example.call.length > 120 ? `${example.call.slice(0, 119)}…` : example.call)}  (${shown(example.at)})`;
}

/** A rule and where it is written (its file shown as other paths are). */
function ruleText(side: { rule: string | null; ruleAt?: string }, shown: (file: string) => string): string {
  if (side.rule === null) return 'no rule';
  if (side.ruleAt === undefined) return safe(side.rule);
  const colon = side.ruleAt.lastIndexOf(':');
  return `${safe(side.rule)}, ${colon === -1 ? safe(side.ruleAt) : `${shown(side.ruleAt.slice(0, colon))}${safe(side.ruleAt.slice(colon))}`}`;
}

/** A path under the working directory relative to it (as messages show paths), else one under the home with ~. */
function displayPath(file: string, places: { cwd: string; home: string }): string {
  const shown = relativePath({ cwd: places.cwd, absolute: file });
  if (shown !== file) return shown;
  const fromHome = relativePath({ cwd: places.home, absolute: file });
  return fromHome === file || fromHome === '.' ? file : `~/${fromHome}`;
}

function safe(text: unknown): string {
  return sanitizeTerminalText(String(text), { collapse: true });
}
