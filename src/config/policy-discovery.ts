/**
 * Saying which policy a run uses, and remembering it: an agent may have
 * written `sub/toolgate.yaml` (or `sub/.toolgate/approvals.json`) anywhere in
 * its zone, and whoever next starts toolgate from `sub/` would get that
 * policy. So every start says which file it loaded, and each run records,
 * per directory, which policy started it and which folders that policy let
 * the agent write; a later start warns when the policy it found (or the
 * approvals file beside it) lies inside one of those folders.
 *
 * The records live in the user's state directory (`TOOLGATE_STATE_HOME`,
 * else `$XDG_STATE_HOME/toolgate`, else `~/.local/state/toolgate`), outside
 * every project, never beside a policy an agent might have planted.
 */
import { writePrivateJson } from '../filesystem/write-private-json.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { LoadedPolicy } from './load-policy-file.ts';
import { isSameOrInside } from './own-state-paths.ts';
import { realPathOf } from '../filesystem/real-path-of.ts';
import { sanitizeTerminalText } from '../core/sanitize-terminal-text.ts';
import { toolgateStateHome } from './user-toolgate-paths.ts';

/** The schema version of the run records file. */
export const RUN_RECORDS_SCHEMA_VERSION = 1;

/** How the policy was chosen: `--policy`, found in the working directory, the built-in default, the demo's. */
export type PolicyOrigin = 'flag' | 'found' | 'built-in' | 'demo';

const runRecord = z.strictObject({
  /** The policy file, or `<built-in default policy>`. */
  policy: z.string(),
  /** Real roots of the policy's rw zones: where its agent could write. */
  writable: z.array(z.string()),
  at: z.string(),
});

const runRecords = z.strictObject({
  v: z.literal(RUN_RECORDS_SCHEMA_VERSION),
  /** By the real path of the directory toolgate was started in. */
  runs: z.record(z.string(), runRecord),
});

type RunRecords = z.infer<typeof runRecords>;

const BUILT_IN = '<built-in default policy>';

/**
 * Where the run records are kept.
 *
 * @example
 * runRecordsFile({ TOOLGATE_STATE_HOME: '/tmp/s' }) // '/tmp/s/last-runs.json'
 */
export function runRecordsFile(env: NodeJS.ProcessEnv): string {
  return path.join(toolgateStateHome(env), 'last-runs.json');
}

/**
 * The lines a command prints (to stderr, once) about the policy it loaded:
 * which file, or the built-in default; and a warning for each earlier run,
 * in this directory or one above it, whose policy let its agent write where
 * this policy file or its approvals file now lies. Reads the records; writes
 * nothing.
 *
 * @example
 * for (const line of describePolicyDiscovery({ loaded, origin: 'found', cwd, env })) io.stderr.write(`${line}\n`);
 * // toolgate: policy /p/sub/toolgate.yaml (found in /p/sub)
 * // toolgate: warning: /p/sub/toolgate.yaml lies in /p, where the agent of the last run in /p (policy /p/toolgate.yaml) could write ...
 */
export function describePolicyDiscovery(options: { loaded: LoadedPolicy; origin: PolicyOrigin; cwd: string; env: NodeJS.ProcessEnv }): string[] {
  const { loaded, origin } = options;
  const lines = [
    origin === 'built-in'
      ? `toolgate: the built-in default policy (no toolgate.yaml, toolgate.yml or toolgate.json in ${options.cwd})`
      : `toolgate: policy ${loaded.path} (${origin === 'flag' ? '--policy' : origin === 'demo' ? 'the demo' : `found in ${options.cwd}`})`,
  ];
  // A file named with --policy (or the demo's) was chosen by a person; a found one, or the built-in policy's approvals, was not.
  if (origin !== 'found' && origin !== 'built-in') return lines;
  const records = readRecords(runRecordsFile(options.env));
  if (records === undefined) return lines;
  const policy = origin === 'built-in' ? BUILT_IN : realPathOf(loaded.path);
  const approvals = realPathOf(path.resolve(loaded.directory, loaded.policy.document.approvals?.path ?? path.join('.toolgate', 'approvals.json')));
  const loadedFiles = origin === 'built-in' ? ([['its approvals file', approvals]] as const) : ([['the policy file', policy], ['its approvals file', approvals]] as const);
  const currentDirectory = realPathOf(options.cwd);
  for (const directory of selfAndAncestors(currentDirectory)) {
    const record = records.runs[directory];
    // The same policy's own state is guarded from its own agent; the built-in policy is the same policy only in the same directory.
    if (record === undefined || (record.policy === policy && (policy !== BUILT_IN || directory === currentDirectory))) continue;
    for (const [what, file] of loadedFiles) {
      const root = record.writable.find((candidate) => isSameOrInside(file, candidate));
      if (root === undefined) continue;
      lines.push(
        `toolgate: warning: ${what} ${file} lies in ${root}, where the agent of the last run in ${directory} (${record.policy === BUILT_IN ? 'the built-in default policy' : `policy ${record.policy}`}) could write: check it was not planted there, or pass --policy with the file you trust`,
      );
    }
  }
  return lines;
}

/**
 * Records that a run started in `cwd` with this policy, and where its agent
 * can write. Never throws: a record that cannot be kept only means no
 * warning next time, and says so.
 *
 * @example
 * const problem = recordPolicyRun({ loaded, origin: 'found', cwd, env });
 * if (problem !== undefined) io.stderr.write(`${problem}\n`);
 */
export function recordPolicyRun(options: { loaded: LoadedPolicy; origin: PolicyOrigin; cwd: string; env: NodeJS.ProcessEnv; clock?: () => Date }): string | undefined {
  const { loaded } = options;
  const file = runRecordsFile(options.env);
  try {
    const records: RunRecords = readRecords(file) ?? { v: RUN_RECORDS_SCHEMA_VERSION, runs: {} };
    const writable = (loaded.policy.document.fs?.zones ?? []).filter((zone) => zone.mode === 'rw').map((zone) => realPathOf(path.resolve(loaded.directory, zone.root)));
    records.runs[realPathOf(options.cwd)] = {
      policy: options.origin === 'built-in' ? BUILT_IN : realPathOf(loaded.path),
      writable: [...new Set(writable)],
      at: (options.clock ?? (() => new Date()))().toISOString(),
    };
    writePrivateJson(file, records);
    return undefined;
  } catch (error) {
    return `toolgate: note: could not record this run in ${file} (${(error as Error).message}); the next start here cannot warn about a planted policy`;
  }
}

/**
 * The policy the last run started in `cwd` (this very directory) used: a
 * real file path, or `built-in` for the built-in default policy. The state
 * commands (`approvals`, `audit`) read it to find that run's state.
 *
 * @example
 * lastRunPolicy({ cwd: process.cwd(), env: process.env }) // { policy: '/p/other.yaml', at: '2026-...' } | { policy: 'built-in', ... } | undefined
 */
export function lastRunPolicy(options: { cwd: string; env: NodeJS.ProcessEnv }): { policy: string; at: string } | undefined {
  const record = readRecords(runRecordsFile(options.env))?.runs[realPathOf(options.cwd)];
  if (record === undefined) return undefined;
  return { policy: record.policy === BUILT_IN ? 'built-in' : record.policy, at: record.at };
}

function readRecords(file: string): RunRecords | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = runRecords.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function selfAndAncestors(directory: string): string[] {
  const result = [directory];
  for (let current = directory; path.dirname(current) !== current; current = path.dirname(current)) result.push(path.dirname(current));
  return result;
}

/**
 * What `toolgate run`, `check`, `mcp` and `serve` do once the policy is loaded: print
 * `describePolicyDiscovery`'s lines, then (unless the command only
 * simulates) record the run.
 *
 * @example
 * announcePolicy({ loaded, origin: values.policy === undefined ? 'found' : 'flag', cwd: io.cwd, env: io.env, write: (line) => io.stderr.write(line), record: true });
 */
export function announcePolicy(options: { loaded: LoadedPolicy; origin: PolicyOrigin; cwd: string; env: NodeJS.ProcessEnv; write: (text: string) => void; record: boolean }): void {
  // Paths are names anyone (an earlier run's agent too) could have chosen: they print through the one sanitiser.
  for (const line of describePolicyDiscovery(options)) options.write(`${sanitizeTerminalText(line, { keepTabs: true })}\n`);
  if (!options.record || options.origin === 'demo') return;
  const problem = recordPolicyRun(options);
  if (problem !== undefined) options.write(`${sanitizeTerminalText(problem, { keepTabs: true, keepNewlines: true })}\n`);
}
