/**
 * `toolgate replay` over a synthetic month of one developer: 100,000 tool
 * calls (5,000 with --quick), shell-heavy, some 70% in Claude Code session
 * transcripts and 30% in Codex rollouts, in a few hundred session files
 * written in the CLIs' own line shapes (test/fixtures/replay: Claude Code
 * 2.1.332, Codex 0.171.0) with the lines they write between calls (API
 * requests, attachments, tool results, token counts, reasoning). Generated
 * from a seeded PRNG, so every run replays the same history.
 *
 * The project the calls ran in is a git repository of its own with the
 * files the calls name, outside this checkout (as a user's project is).
 * Measured in processes of their own on the pinned Node, each timed from
 * spawn to exit:
 * - the floor: reading every file line by line and JSON.parsing every line
 *   (bench/replay-child.ts floor), the least any reader of these files does;
 * - `toolgate replay --json --policy P DIR` as a user runs it (the built
 *   package's bin/toolgate.js, compiled JavaScript, built first into the
 *   bench's scratch), interleaved with the floor round by round, and its
 *   peak RSS (process.resourceUsage().maxRSS at exit, from a module given to
 *   --import);
 * - once (not with --quick), replay's engine alone (bench/replay-child.ts engine:
 *   createHistoryJudge, replayHistory over historyCalls of every file), timed
 *   inside its process against the floor's own inside time (informative:
 *   the cost without process start and module loading).
 * Targets (the issue): replay ≤ 3× the floor's wall time, peak RSS ≤ 200 MB.
 * Replay records nothing: what a run leaves in the policy's audit log is
 * reported in the replay row's note.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildToolgate } from '../../test/packed-package.ts';
import { median, round, spreadOf, type BenchRow, type BenchSuite } from '../harness.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const CHILD = path.join(ROOT, 'bench/replay-child.ts');

const TARGET_RATIO = 3;
const TARGET_RSS_MB = 200;
const SEED = 20261101;

/** The host tests' policy (test/agent-host-harness.ts, HOST_TEST_POLICY), its MCP server a program that is never started, and the read-only commands a developer allows. */
export const POLICY = `version: 1
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: allow, delete: ask } }
shell:
  default: ask
  network: false
  rules:
    - { match: echo, decision: allow }
    - { match: cat, decision: allow }
    - { match: git status, decision: allow }
    - { match: git diff, decision: allow }
    - { match: git log, decision: allow }
    - { match: ls, decision: allow }
    - { match: rg, decision: allow }
    - { match: rm, decision: block, reason: "rm is blocked in this project" }
mcp:
  servers:
    files:
      command: /bin/true
      args: ["."]
      default: ask
      tools:
        read_text_file: allow
        write_file: block
`;

/** Writes the history, runs the floor and the CLI in interleaved rounds and the engine once (not with --quick): a row each, the targets on the CLI's. */
export const replaySuite: BenchSuite = {
  name: 'replay',
  async run(context) {
    // Outside this checkout (context.scratch is in it): toolgate keeps its own installation's files from every tool, and git
    // finds this checkout's .git above a project without one, neither of which a user's project meets.
    const base = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-replay-'));
    try {
      // toolgate as a user runs it: the built package's bin (built into this checkout's scratch, where its dependencies resolve).
      const stage = path.join(context.scratch, 'replay-package');
      buildToolgate(stage);
      return await runSuite({ base, quick: context.quick, cli: path.join(stage, 'bin/toolgate.js') });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  },
};

async function runSuite(options: { base: string; quick: boolean; cli: string }): Promise<BenchRow[]> {
  const { base, quick, cli: CLI } = options;
  const totalCalls = quick ? 5_000 : 100_000;
  const project = path.join(base, 'project');
  const history = path.join(base, 'history');
  const home = path.join(base, 'home');
  for (const directory of [project, history, home, path.join(home, 'state'), path.join(home, 'config')]) mkdirSync(directory, { recursive: true });
  const generated = generateHistory({ project, history, totalCalls, files: quick ? 20 : 300 });
  const policyFile = path.join(project, 'toolgate.yaml');
  writeFileSync(policyFile, POLICY);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, SHELL: '/bin/bash', NO_COLOR: '1', TOOLGATE_STATE_HOME: path.join(home, 'state'), TOOLGATE_CONFIG_HOME: path.join(home, 'config') };
  const cliArgs = (source: string) => [CLI, 'replay', '--json', '--policy', policyFile, source];

  // Warm-up: the CLI's compile cache, and the history read once (the rounds all read it from the page cache).
  await timedChild({ args: [CHILD, 'floor', history], cwd: project, env });
  await timedChild({ args: cliArgs(generated.oneFile), cwd: project, env });

  // Each run starts without the project's .toolgate folder: what one run leaves there (an audit log) is not the next one's.
  const state = path.join(project, '.toolgate');
  let audited: { records: number; bytes: number } | undefined;
  const rounds = quick ? 2 : 3;
  const floor: ChildRun[] = [];
  const cli: ChildRun[] = [];
  for (let index = 0; index < rounds; index++) {
    process.stderr.write(`bench: replay round ${index + 1} of ${rounds}...\n`);
    floor.push(await timedChild({ args: [CHILD, 'floor', history], cwd: project, env }));
    rmSync(state, { recursive: true, force: true });
    cli.push(await timedChild({ args: cliArgs(history), cwd: project, env }));
    audited ??= auditLogOf(path.join(state, 'audit.jsonl'));
  }
  // The engine alone, once (informative; not with --quick, which is kept short).
  rmSync(state, { recursive: true, force: true });
  const engine = quick ? [] : [await timedChild({ args: [CHILD, 'engine', policyFile, history], cwd: project, env })];
  const floorOut = floor.map((run) => outputOf<{ files: number; lines: number; bytes: number; ms: number }>(run));
  const engineOut = engine.map((run) => outputOf<{ calls: number; unseen: number; malformed: number; ms: number }>(run));
  const cliOut = cli.map((run) => outputOf<{ calls: number; malformed: { count: number }; unseen: { count: number }[]; policies: { totals: Record<string, number> }[] }>(run));
  // The history is what it was made to be: every call judged, no line unread.
  for (const [index, summary] of cliOut.entries()) {
    const unseen = summary.unseen.reduce((sum, entry) => sum + entry.count, 0);
    if (summary.calls !== generated.judged || unseen !== generated.unseen || summary.malformed.count !== 0 || cli[index]!.code !== 0) {
      throw new Error(`toolgate replay read ${summary.calls} calls (${unseen} unseen, ${summary.malformed.count} lines malformed, exit ${cli[index]!.code}) of the ${generated.judged} (${generated.unseen} unseen) written: ${cli[index]!.stderr.slice(0, 2000)}`);
    }
  }
  for (const out of engineOut) if (out.calls !== generated.judged || out.malformed !== 0) throw new Error(`the engine read ${out.calls} calls, ${out.malformed} lines malformed, of ${generated.judged}`);
  if (floorOut[0]!.lines !== generated.lines) throw new Error(`the floor read ${floorOut[0]!.lines} lines of the ${generated.lines} written`);

  const calls = generated.judged + generated.unseen;
  const floorMs = median(floor.map((run) => run.ms));
  const cliMs = median(cli.map((run) => run.ms));
  const ratios = cli.map((run, index) => run.ms / floor[index]!.ms);
  const ratio = median(ratios);
  const rssMb = cli.map((run) => run.maxRSSkB / 1024);
  const peakRss = Math.max(...rssMb);
  const floorRss = Math.max(...floor.map((run) => run.maxRSSkB / 1024));
  const engineInsideMs = median(engineOut.map((out) => out.ms));
  const floorInsideMs = median(floorOut.map((out) => out.ms));
  const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
  const FLOOR = 'read + JSON.parse every line of the same history, no judging (bench/replay-child.ts floor), as a process';
  const decisions = cliOut[0]!.policies[0]!.totals;
  const described = `${calls.toLocaleString('en-US')} calls (${generated.bySource.claude.toLocaleString('en-US')} Claude Code, ${generated.bySource.codex.toLocaleString('en-US')} Codex; ${Math.round(generated.shellShare * 100)}% shell, ${generated.distinctCommands.toLocaleString('en-US')} distinct commands = ${Math.round((generated.distinctCommands / generated.shellCalls) * 100)}%) in ${generated.files} files, ${mb(floorOut[0]!.bytes)} MB, ${floorOut[0]!.lines.toLocaleString('en-US')} lines`;
  const rows: BenchRow[] = [
    {
      suite: 'replay',
      case: FLOOR,
      p50_us: round(floorMs * 1000, 0),
      p99_us: null,
      ops_per_s: Math.round((calls / floorMs) * 1000),
      ratio: null,
      baseline: null,
      note: `${described}; p50 = median wall time of a run over ${rounds} rounds, ops/s = calls/s; peak RSS ${round(floorRss, 1)} MB; ${round(floorInsideMs / 1000, 2)} s inside the process`,
    },
    {
      suite: 'replay',
      case: 'toolgate replay --json --policy P DIR (the built package: bin/toolgate.js), the whole history under one policy',
      p50_us: round(cliMs * 1000, 0),
      p99_us: null,
      ops_per_s: Math.round((calls / cliMs) * 1000),
      ratio: round(ratio, 2),
      baseline: FLOOR,
      ratio_meaning: 'wall time from spawn to exit, replay / floor, median of interleaved rounds (lower is better)',
      target: `replay <= ${TARGET_RATIO}x the floor`,
      met: ratio <= TARGET_RATIO,
      spread: spreadOf({ of: 'ratio', values: ratios, digits: 2 }),
      note: `${rounds} interleaved rounds; decided ${decisions.allow} allow, ${decisions.ask} ask, ${decisions.block} block; ${generated.unseen} calls hosts never hook${audited === undefined ? '' : `; wrote ${audited.records.toLocaleString('en-US')} records (${mb(audited.bytes)} MB) to the policy's audit log`}`,
    },
    {
      suite: 'replay',
      case: `toolgate replay peak RSS (maxRSS of the process), ${calls.toLocaleString('en-US')} calls`,
      p50_us: null,
      p99_us: null,
      ops_per_s: null,
      ratio: round(peakRss / floorRss, 2),
      baseline: FLOOR,
      ratio_meaning: `peak RSS, replay ${round(peakRss, 1)} MB / floor ${round(floorRss, 1)} MB`,
      target: `peak RSS <= ${TARGET_RSS_MB} MB`,
      met: peakRss <= TARGET_RSS_MB,
      spread: spreadOf({ of: 'peak RSS MB', values: rssMb, digits: 1 }),
      note: `${round(peakRss, 1)} MB, the highest of ${rounds} runs`,
    },
  ];
  if (engineOut.length === 0) return rows;
  rows.push({
    suite: 'replay',
    case: "replay's engine in one process (createHistoryJudge + replayHistory over historyCalls of every file), timed inside it",
    p50_us: round(engineInsideMs * 1000, 0),
    p99_us: null,
    ops_per_s: Math.round((calls / engineInsideMs) * 1000),
    ratio: round(engineInsideMs / floorInsideMs, 2),
    baseline: 'the floor timed inside its process (the same reads and parses, no process start)',
    ratio_meaning: 'time inside the process, engine / floor, medians (lower is better); without process start and module loading',
    note: `one run after the rounds; peak RSS ${round(Math.max(...engine.map((run) => run.maxRSSkB / 1024)), 1)} MB`,
  });
  return rows;
}

interface ChildRun {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
  /** process.resourceUsage().maxRSS as the process exited. */
  maxRSSkB: number;
}

/** What a run left in the audit log: replay records nothing, so anything there is a finding. */
function auditLogOf(file: string): { records: number; bytes: number } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let records = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) records++;
  return { records, bytes: Buffer.byteLength(text) };
}

/** A child's one JSON object on stdout. */
function outputOf<T>(run: ChildRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`a child exited ${run.code} without its JSON on stdout: ${run.stderr.slice(0, 2000)}`);
  }
}

/** A module given to --import: the process's peak RSS written where TOOLGATE_BENCH_RSS_FILE names, as it exits. */
const RSS_PROBE = `data:text/javascript,${encodeURIComponent(
  "import { writeFileSync } from 'node:fs'; process.on('exit', () => writeFileSync(process.env.TOOLGATE_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)));",
)}`;
let probes = 0;

/** One Node process from spawn to exit, on the pinned Node: its wall time, output and peak RSS. */
function timedChild(options: { args: string[]; cwd: string; env: Record<string, string> }): Promise<ChildRun> {
  const rssFile = path.join(options.env.HOME!, `rss-${probes++}.txt`);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(NODE, ['--import', RSS_PROBE, ...options.args], { cwd: options.cwd, env: { ...options.env, TOOLGATE_BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - started;
      const run = { ms, code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
      let maxRSSkB: number;
      try {
        maxRSSkB = Number(readFileSync(rssFile, 'utf8'));
      } catch {
        reject(new Error(`${options.args.join(' ')} exited ${code} without its peak RSS: ${run.stderr.slice(0, 2000)}`));
        return;
      }
      if (code !== 0 && !options.args.includes('replay')) reject(new Error(`${options.args.join(' ')} exited ${code}: ${run.stderr.slice(0, 2000)}`));
      else resolve({ ...run, maxRSSkB });
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------------------
// The synthetic history.

/** mulberry32: a small seeded PRNG, the same numbers on every machine. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Generated {
  files: number;
  lines: number;
  /** Calls replay judges, and calls it counts as never hooked (Codex's update_plan). */
  judged: number;
  unseen: number;
  bySource: { claude: number; codex: number };
  shellCalls: number;
  shellShare: number;
  distinctCommands: number;
  /** One transcript alone in its folder, for the warm-up. */
  oneFile: string;
}

const DIRECTORIES = ['src/cli', 'src/core', 'src/server', 'src/config', 'src/util', 'src/store'];
const NAMES = ['parse-args', 'load-config', 'http-client', 'cache', 'logger', 'format-date', 'retry', 'queue', 'router', 'session', 'auth', 'token', 'render', 'schema', 'migrate', 'index', 'types', 'errors', 'metrics', 'watcher', 'diff', 'paths', 'plugin', 'worker', 'stream'];
const IDENTIFIERS = ['loadConfig', 'parseArgs', 'createServer', 'handleRequest', 'TODO', 'FIXME', 'retryWithBackoff', 'SessionStore', 'renderTemplate', 'validateSchema', 'runMigration', 'formatDate', 'logger.warn', 'export function', 'import type', 'process.env', 'throw new Error', 'async function', 'useCache', 'TokenBucket', 'emitMetric', 'watchFiles', 'computeDiff', 'resolvePath', 'registerPlugin', 'spawnWorker', 'readStream', 'describe(', 'it.skip', 'console.log'];
const PACKAGES = ['zod', 'undici', 'yaml', 'vitest', 'typescript', 'chalk', 'commander', 'pino', 'lru-cache', 'semver'];
const WORDS = ['the', 'config', 'value', 'return', 'const', 'await', 'function', 'request', 'error', 'session', 'token', 'cache', 'path', 'file', 'result', 'options', 'string', 'number', 'import', 'export', 'from', 'if', 'else', 'null', 'undefined', 'true', 'false', 'new', 'this', 'map', 'filter', 'length', 'index', 'items', 'retry', 'queue', 'worker', 'stream', 'schema', 'router'];

/**
 * Writes the project's files and the history below `history` (Claude Code's
 * in a folder per project, Codex's by date) from the seeded PRNG: the same
 * history on every run and machine. Exported to write one to look at or
 * profile against.
 *
 * @example
 * generateHistory({ project: '/tmp/h/project', history: '/tmp/h/history', totalCalls: 100_000, files: 300 }) // { judged: 98489, unseen: 1511, … }
 */
export function generateHistory(options: { project: string; history: string; totalCalls: number; files: number }): Generated {
  const random = prng(SEED);
  const int = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const hex = (length: number) => {
    let text = '';
    while (text.length < length) text += Math.floor(random() * 0x100000000).toString(16).padStart(8, '0');
    return text.slice(0, length);
  };
  const base62 = (length: number) => {
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    let text = '';
    for (let index = 0; index < length; index++) text += alphabet[Math.floor(random() * 62)];
    return text;
  };
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  // Text of code and command output: windows of one corpus.
  const corpusLines: string[] = [];
  for (let index = 0; index < 1500; index++) {
    const indent = '  '.repeat(int(0, 3));
    const words = Array.from({ length: int(2, 12) }, () => pick(WORDS)).join(' ');
    corpusLines.push(`${indent}${words}${pick([';', ' {', '', ',', ' }', '(x) => x;'])}`);
  }
  const corpus = corpusLines.join('\n');
  const text = (length: number) => {
    const start = int(0, corpus.length - length - 1);
    return corpus.slice(start, start + length);
  };
  const outputLength = () => (chance(0.03) ? int(4_000, 16_000) : chance(0.3) ? int(600, 3_000) : int(20, 500));

  // The project: files the calls name, some of them there (an edit's diff reads its file).
  const project = options.project;
  const sourceFiles = DIRECTORIES.flatMap((directory) => NAMES.map((name) => `${directory}/${name}.ts`));
  const testFiles = NAMES.map((name) => `test/${name}.test.ts`);
  const allFiles = [...sourceFiles, ...testFiles, 'README.md', 'package.json', 'tsconfig.json', 'scripts/build.mjs', 'scripts/release.mjs', 'docs/architecture.md'];
  const contents = new Map<string, string>();
  for (const file of allFiles) {
    if (!file.startsWith('src/core') && !file.startsWith('test/') && !['README.md', 'package.json', 'tsconfig.json', 'scripts/build.mjs'].includes(file)) continue;
    const content = text(int(1_000, 8_000));
    contents.set(file, content);
    mkdirSync(path.join(project, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(project, file), content);
  }

  // Every folder the calls name is there, and the project is a git repository of its own (as a developer's is: git's
  // commands then read its .git, not that of a repository the scratch folder is in).
  for (const directory of [...DIRECTORIES, 'test', 'scripts', 'docs', '.git/objects', '.git/refs/heads', '.git/refs/tags']) mkdirSync(path.join(project, directory), { recursive: true });
  writeFileSync(path.join(project, '.git/HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(path.join(project, '.git/config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n');

  // Shell commands: the common ones over and over, a long tail of one-offs (line ranges, messages, file names).
  let distinctSalt = 0;
  const file = () => (chance(0.8) ? pick(sourceFiles) : pick(allFiles));
  const SHELL: Array<[number, () => { command: string; description: string; timeout?: number }]> = [
    [9, () => ({ command: 'git status', description: pick(['Check git status', 'Show working tree status', 'Check what changed']) })],
    [5, () => ({ command: 'git diff', description: pick(['Show unstaged changes', 'Review the diff']) })],
    [2, () => ({ command: 'git diff --stat', description: 'Summarize changes' })],
    [3, () => ({ command: `git diff ${file()}`, description: 'Show changes to the file' })],
    [2, () => ({ command: 'git log --oneline -n 20', description: 'Show recent commits' })],
    [1, () => ({ command: `git log --oneline -n ${int(5, 40)} -- ${pick(DIRECTORIES)}`, description: 'Show recent commits touching the folder' })],
    [1.5, () => ({ command: `git add -A && git commit -m "${pick(['Fix', 'Add', 'Refactor', 'Test', 'Document'])} ${pick(NAMES)} ${pick(WORDS)} ${pick(WORDS)} (#${int(100, 999)})"`, description: 'Commit the changes' })],
    [0.5, () => ({ command: `git show HEAD~${int(1, 9)} --stat`, description: 'Show an earlier commit' })],
    [1, () => ({ command: `git log -p -n ${int(1, 5)} -- ${file()}`, description: "Show the file's recent changes" })],
    [3, () => ({ command: 'ls', description: 'List files' })],
    [3, () => ({ command: 'ls -la', description: pick(['List files', 'List all files with details']) })],
    [2, () => ({ command: `ls ${pick(DIRECTORIES)}`, description: 'List the folder' })],
    [4, () => ({ command: `cat ${file()}`, description: 'Show the file' })],
    [1.5, () => ({ command: `head -n ${pick([20, 50, 100])} ${file()}`, description: 'Show the start of the file' })],
    [7, () => {
      const from = int(1, 400);
      return { command: `sed -n '${from},${from + pick([20, 40, 60, 80, 120])}p' ${file()}`, description: 'Show lines of the file' };
    }],
    [1, () => ({ command: `sed -i 's/${pick(IDENTIFIERS)}/${pick(IDENTIFIERS)}/g' ${file()}`, description: 'Rename in the file' })],
    [0.5, () => ({ command: `wc -l ${pick(DIRECTORIES)}/*.ts`, description: 'Count lines' })],
    [1, () => ({ command: `tail -n ${int(10, 200)} /tmp/test-output-${int(1, 999)}.log`, description: 'Show the end of the log' })],
    [4, () => ({ command: `rg -n '${pick(IDENTIFIERS)}' ${pick(['src', 'src test', pick(DIRECTORIES)])}`, description: 'Search the code' })],
    [1.5, () => ({ command: `grep -rn "${pick(IDENTIFIERS)}" ${pick(['src', 'test', '.'])} | head -n ${pick([20, 50])}`, description: 'Search the code' })],
    [2, () => ({ command: `rg -n '${pick(IDENTIFIERS)}' ${file()}`, description: 'Search the file' })],
    [1.5, () => ({ command: `grep -n "${pick(IDENTIFIERS)}" ${file()}`, description: 'Search the file' })],
    [0.5, () => ({ command: `rg --files | rg ${pick(NAMES)}`, description: 'Find the file' })],
    [5, () => ({ command: 'npm test', description: pick(['Run the tests', 'Run tests']), timeout: 300000 })],
    [3, () => ({ command: 'npm run build', description: 'Build the project', timeout: 300000 })],
    [1.5, () => ({ command: 'npm run lint', description: 'Lint' })],
    [3, () => ({ command: `npx vitest run ${pick(testFiles)}`, description: 'Run the test file', timeout: 300000 })],
    [1.5, () => ({ command: `npx vitest run ${pick(testFiles)} -t '${pick(WORDS)} ${pick(WORDS)}'`, description: 'Run one test', timeout: 300000 })],
    [2, () => ({ command: 'npx tsc --noEmit -p .', description: 'Type-check' })],
    [1.5, () => ({ command: `npm test 2>&1 | tail -n ${pick([20, 40, 80])}`, description: 'Run the tests, last lines' })],
    [0.3, () => ({ command: `npm install ${pick(PACKAGES)}@^${int(1, 9)}.${int(0, 20)}.0`, description: 'Add a dependency' })],
    [1, () => ({ command: 'node scripts/build.mjs', description: 'Run the build script' })],
    [0.5, () => ({ command: `node scripts/build.mjs --only ${pick(NAMES)} --out dist/${int(1, 999)}`, description: 'Build one part' })],
    [0.5, () => ({ command: `node scripts/release.mjs --dry-run --tag v${int(0, 3)}.${int(0, 30)}.${int(0, 9)}`, description: 'Try the release' })],
    [0.3, () => ({ command: `node -e 'console.log(require("./package.json").${pick(['version', 'name', 'scripts'])})'`, description: 'Read package.json' })],
    [1, () => ({ command: `find . -name '*.ts' -path '*${pick(DIRECTORIES)}*' | head -n 50`, description: 'Find files' })],
    [1, () => ({ command: `find src -name '${pick(NAMES)}*'`, description: 'Find files' })],
    [0.3, () => ({ command: `mkdir -p ${pick(DIRECTORIES)}/${pick(NAMES)}-${int(1, 99)}`, description: 'Make a folder' })],
    [0.3, () => ({ command: `mv ${file()} ${pick(DIRECTORIES)}/${pick(NAMES)}-${int(1, 99)}.ts`, description: 'Move the file' })],
    [0.5, () => ({ command: pick(['rm -rf dist', 'rm -rf build', 'rm -rf node_modules/.cache']), description: 'Clean' })],
    [0.3, () => ({ command: `curl -s https://registry.npmjs.org/${pick(PACKAGES)} | head -c ${int(200, 2000)}`, description: 'Look at the registry' })],
    [0.5, () => ({ command: `cd ${pick(DIRECTORIES)} && ls`, description: 'List the folder' })],
    [1, () => ({ command: pick(['pwd', 'echo done', 'echo $?', 'node --version']), description: 'Check' })],
    [0.2, () => ({ command: `python3 - <<'EOF'\nimport json\ndata = json.load(open('package.json'))\nprint(data.get('${pick(['scripts', 'dependencies', 'version'])}'))\n# ${distinctSalt++}\nEOF`, description: 'Read package.json' })],
    [0.3, () => ({ command: `for f in ${pick(DIRECTORIES)}/*.ts; do wc -l "$f"; done | sort -n | tail -n ${int(5, 20)}`, description: 'Largest files' })],
    [0.3, () => ({ command: `jq '.${pick(['scripts', 'dependencies', 'devDependencies'])}' package.json`, description: 'Read package.json' })],
  ];
  const shellTotal = SHELL.reduce((sum, [weight]) => sum + weight, 0);
  const shellCall = () => {
    let roll = random() * shellTotal;
    for (const [weight, make] of SHELL) {
      roll -= weight;
      if (roll <= 0) return make();
    }
    return SHELL[0]![1]();
  };

  // Session files: ~70% Claude Code, ~30% Codex, each host's calls over its files in uneven shares.
  const claudeFiles = Math.round(options.files * 0.7);
  const codexFiles = options.files - claudeFiles;
  const claudeCalls = Math.round(options.totalCalls * 0.7);
  const split = (total: number, parts: number) => {
    const weights = Array.from({ length: parts }, () => 0.2 + random() * 1.8);
    const sum = weights.reduce((a, b) => a + b, 0);
    const counts = weights.map((weight) => Math.max(1, Math.floor((weight / sum) * total)));
    counts[counts.length - 1]! += total - counts.reduce((a, b) => a + b, 0);
    return counts;
  };
  const month = Date.parse('2026-11-01T08:00:00Z');
  const commands = new Set<string>();
  const stats = { lines: 0, judged: 0, unseen: 0, shell: 0, claude: 0, codex: 0 };
  let oneFile = '';

  const claudeDirectory = path.join(options.history, 'claude', 'projects', project.replaceAll('/', '-'));
  mkdirSync(claudeDirectory, { recursive: true });
  for (const [sessionIndex, count] of split(claudeCalls, claudeFiles).entries()) {
    const sessionId = uuid();
    const version = '2.1.332';
    let time = month + Math.floor((sessionIndex / claudeFiles) * 29 * 86_400_000) + int(0, 3_600_000);
    const stamp = () => new Date((time += int(800, 40_000))).toISOString();
    const common = () => ({ userType: 'external', entrypoint: 'cli', cwd: project, sessionId, version, gitBranch: 'main' });
    const lines: string[] = [];
    let parent: string | null = null;
    const push = (record: Record<string, unknown>) => lines.push(JSON.stringify(record));
    const linked = (record: Record<string, unknown>) => {
      const id = uuid();
      push({ parentUuid: parent, isSidechain: false, ...record, uuid: id, timestamp: stamp(), ...common() });
      parent = id;
    };
    const rendered = (content: string) => [{ content: `<system-reminder>\n${content}\n</system-reminder>` }];
    const hooked = chance(0.5);
    push({ type: 'queue-operation', operation: 'enqueue', timestamp: stamp(), sessionId, content: 'Look at the failing tests and fix them.' });
    push({ type: 'queue-operation', operation: 'dequeue', timestamp: stamp(), sessionId });
    const prompt = () => linked({ promptId: uuid(), type: 'user', message: { role: 'user', content: `${pick(['Fix', 'Add', 'Refactor', 'Explain', 'Test'])} ${text(int(40, 400))}` }, permissionMode: 'default', promptSource: 'cli', sentAtMs: time });
    prompt();
    linked({ attachment: { type: 'environment', snapshot: { workingDirectory: project, isWorktree: false, isGitRepo: true, additionalWorkingDirectories: [], platform: 'linux', shell: 'bash', osVersion: 'Linux 6.18.44' } }, type: 'attachment', rendered: rendered(`# Environment\n - Primary working directory: ${project}\n - Is a git repository: true\n - Platform: linux\n - Shell: bash\n${text(900)}`), renderedRole: 'system' });
    linked({ attachment: { type: 'model', identity: { modelId: 'claude-sonnet-4-5', marketingName: 'Sonnet 4.5', knowledgeCutoff: 'January 2025' }, text: 'You are powered by the model named Sonnet 4.5.' }, type: 'attachment', rendered: rendered('You are powered by the model named Sonnet 4.5.'), renderedRole: 'system' });
    linked({ attachment: { type: 'skill_listing', content: text(13_000) }, type: 'attachment', rendered: rendered(text(600)), renderedRole: 'system' });
    linked({ attachment: { type: 'prompt_snapshot', systemPrompt: [text(15_000), text(12_000)] }, type: 'attachment' });
    push({ type: 'api-request-shape', sessionId, shapeHash: hex(64), timestamp: stamp(), version, shape: { system: [{ type: 'text', text: text(20_000) }], tools: Array.from({ length: 12 }, () => ({ name: pick(NAMES), description: text(1_500) })) } });
    const message = (content: unknown[], stop: string) => ({
      id: `msg_01${base62(22)}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: int(200, 4000), cache_creation_input_tokens: int(0, 5000), cache_read_input_tokens: int(0, 90_000), output_tokens: int(20, 900), service_tier: 'standard' },
    });
    const recent: unknown[] = [];
    let untilPrompt = int(8, 25);
    for (let call = 0; call < count; call++) {
      if (--untilPrompt === 0) {
        untilPrompt = int(8, 25);
        prompt();
        linked({ attachment: { type: 'total_tokens_reminder', text: `<total_tokens>${int(1e6, 15e6)} tokens left</total_tokens>` }, type: 'attachment', rendered: rendered(`<total_tokens>${int(1e6, 15e6)} tokens left</total_tokens>`), renderedRole: 'system' });
      }
      const requestId = uuid();
      push({ type: 'api-request', sessionId, id: requestId, timestamp: stamp(), version, querySource: 'repl_main_thread', shapeHash: hex(64), params: { model: 'claude-sonnet-4-5', betas: ['claude-code-20250219', 'interleaved-thinking-2025-05-14', 'context-management-2025-06-27'], max_tokens: 32000, thinking: { budget_tokens: 31999, type: 'enabled', display: 'omitted' } }, thread: { type: 'none' }, echoWireToolInputs: false, keep: 0, tail: [hex(64), hex(64)], cacheControl: [{ path: ['system', 0], value: { type: 'ephemeral' } }, { path: ['messages', int(0, 40), 'content', int(0, 8)], value: { type: 'ephemeral' } }], requestDigest: hex(64) });
      if (chance(0.4)) linked({ message: message([{ type: 'text', text: text(int(80, 900)) }], 'tool_use'), requestRef: requestId, type: 'assistant' });
      // The call.
      const id = `toolu_01${base62(22)}`;
      let name: string;
      let input: Record<string, unknown>;
      let result: string;
      const roll = random();
      if (roll < 0.75) {
        const made = shellCall();
        name = 'Bash';
        input = { command: made.command, description: made.description, ...(made.timeout === undefined ? {} : { timeout: made.timeout }) };
        commands.add(made.command);
        stats.shell++;
        result = text(outputLength());
      } else if (roll < 0.86) {
        name = 'Read';
        const target = file();
        input = chance(0.3) ? { file_path: path.join(project, target), offset: int(1, 300), limit: pick([100, 200, 400]) } : { file_path: path.join(project, target) };
        result = text(chance(0.5) ? int(2_000, 12_000) : int(200, 2_000));
      } else if (roll < 0.93) {
        name = 'Edit';
        const target = chance(0.7) ? pick([...contents.keys()]) : file();
        const old = contents.get(target)?.slice(0, int(20, 200)) ?? text(int(20, 200));
        input = { replace_all: false, file_path: path.join(project, target), old_string: old, new_string: `${old}\n${text(int(10, 300))}` };
        result = `The file ${path.join(project, target)} has been updated.`;
      } else if (roll < 0.96) {
        name = 'Write';
        const target = `${pick(DIRECTORIES)}/${pick(NAMES)}-${int(1, 200)}.ts`;
        input = { file_path: path.join(project, target), content: text(int(200, 4_000)) };
        result = `File created successfully at: ${path.join(project, target)}`;
      } else if (roll < 0.98) {
        name = pick(['mcp__files__read_text_file', 'mcp__files__list_directory', 'mcp__files__write_file', 'mcp__github__get_issue']);
        input = name === 'mcp__github__get_issue' ? { owner: 'acme', repo: 'app', issue_number: int(1, 900) } : name.endsWith('write_file') ? { path: path.join(project, file()), content: text(int(50, 500)) } : { path: path.join(project, chance(0.5) ? file() : pick(DIRECTORIES)) };
        result = text(outputLength());
      } else {
        name = pick(['Glob', 'Grep', 'TodoWrite']);
        input = name === 'Glob' ? { pattern: `${pick(DIRECTORIES)}/**/*.ts` } : name === 'Grep' ? { pattern: pick(IDENTIFIERS), path: path.join(project, 'src'), output_mode: 'content' } : { todos: [{ content: text(60), status: 'in_progress', activeForm: text(40) }, { content: text(60), status: 'pending', activeForm: text(40) }] };
        result = text(outputLength());
      }
      stats.judged++;
      const block = { type: 'tool_use', id, name, input };
      const assistantId = uuid();
      push({ parentUuid: parent, isSidechain: false, message: message([block], 'tool_use'), toolInputStreamMs: int(1, 40), apiBlockIndex: 0, requestRef: requestId, requestedModel: 'claude-sonnet-4-5', promptCacheRequested: '5m', type: 'assistant', uuid: assistantId, timestamp: stamp(), perTurnEffort: null, madeBy: 'model', ...common() });
      parent = assistantId;
      if (hooked) linked({ attachment: { type: 'hook_success', hookName: `PreToolUse:${name}`, toolUseID: id, hookEvent: 'PreToolUse', content: '', stdout: '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"toolgate: shell.rules[0] allows it"}}\n', stderr: '', exitCode: 0, command: `toolgate hook claude-code --policy ${project}/toolgate.yaml || exit 2`, durationMs: int(20, 200) }, type: 'attachment' });
      linked({ promptId: uuid(), type: 'user', message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: result, is_error: false }] }, toolUseResult: name === 'Bash' ? { stdout: result, stderr: '', interrupted: false, isImage: false, noOutputExpected: false } : { type: 'text' }, sandboxed: false, sourceToolAssistantUUID: assistantId });
      linked({ attachment: { type: 'total_tokens_reminder', text: `<total_tokens>${int(1e6, 15e6)} tokens left</total_tokens>` }, type: 'attachment', rendered: rendered(`<total_tokens>${int(1e6, 15e6)} tokens left</total_tokens>`), renderedRole: 'system' });
      // The request's content blobs: the last calls, and the result.
      recent.push(block);
      if (recent.length > 2) recent.shift();
      push({ type: 'api-request-blob', sessionId, hash: hex(64), message: { role: 'assistant', content: recent } });
      push({ type: 'api-request-blob', sessionId, hash: hex(64), message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: `${result.slice(0, 1_500)}\n\n<system-reminder>\n<total_tokens>${int(1e6, 15e6)} tokens left</total_tokens>\n</system-reminder>`, is_error: false }] } });
      if (chance(0.1)) push({ type: 'tools-used', tools: [name], sessionId });
      if (chance(0.1)) push({ type: 'last-prompt', lastPrompt: text(40), leafUuid: parent, sessionId });
    }
    linked({ message: message([{ type: 'text', text: text(int(100, 1200)) }], 'end_turn'), type: 'assistant' });
    push({ type: 'cost-state', sessionId, totalCostUSD: round(random() * 5, 4), totalAPIDuration: int(1e4, 1e6), totalToolDuration: int(1e3, 1e5), totalLinesAdded: int(0, 900), totalLinesRemoved: int(0, 400), totalDuration: int(1e5, 1e7), startTime: month, modelUsage: { 'claude-sonnet-4-5': { inputTokens: int(1e4, 1e6), outputTokens: int(1e3, 1e5), costUSD: round(random() * 5, 4) } }, hasUnknownModelCost: false });
    const target = path.join(claudeDirectory, `${sessionId}.jsonl`);
    writeFileSync(target, `${lines.join('\n')}\n`);
    stats.lines += lines.length;
    stats.claude += count;
    if (sessionIndex === 0) {
      oneFile = path.join(options.history, '..', 'one', path.basename(target));
      mkdirSync(path.dirname(oneFile), { recursive: true });
      writeFileSync(oneFile, `${lines.join('\n')}\n`);
    }
  }

  const baseInstructions = text(20_000);
  for (const [sessionIndex, count] of split(options.totalCalls - claudeCalls, codexFiles).entries()) {
    const sessionId = `01a2${hex(4)}-${hex(4)}-7${hex(3)}-8${hex(3)}-${hex(12)}`;
    let time = month + Math.floor((sessionIndex / codexFiles) * 29 * 86_400_000) + int(0, 3_600_000);
    const startedAt = new Date(time);
    const stamp = () => new Date((time += int(500, 30_000))).toISOString();
    let ordinal = 0;
    const lines: string[] = [];
    const push = (type: string, payload: Record<string, unknown>, extra: Record<string, unknown> = {}) => lines.push(JSON.stringify({ timestamp: stamp(), ordinal: ordinal++, type, payload, ...extra }));
    let turnId = `01a2${hex(4)}-${hex(4)}-7${hex(3)}-b${hex(3)}-${hex(12)}`;
    push('session_meta', { account_scoped: true, session_id: sessionId, id: sessionId, timestamp: startedAt.toISOString(), cwd: project, runtime_workspace_roots: [project], originator: 'codex_cli_rs', cli_version: '0.171.0', source: 'cli', thread_source: 'user', model_provider: 'openai', base_instructions: { text: baseInstructions } });
    push('event_msg', { type: 'task_started', turn_id: turnId, started_at: Math.floor(time / 1000), model_context_window: 258400, collaboration_mode_kind: 'default' });
    push('response_item', { type: 'message', id: `msg_${hex(32)}`, role: 'developer', content: [{ type: 'input_text', text: text(3_000) }] });
    push('world_state', { full: true, state: { agents_md: {}, environments: { environments: { local: { cwd: project, status: 'available', shell: 'bash' } }, current_date: startedAt.toISOString().slice(0, 10), timezone: 'Etc/UTC' }, host_skills: { body: text(2_500) } } });
    const turn = () => {
      turnId = `01a2${hex(4)}-${hex(4)}-7${hex(3)}-b${hex(3)}-${hex(12)}`;
      push('response_item', { type: 'message', id: `msg_${hex(32)}`, role: 'user', content: [{ type: 'input_text', text: text(int(40, 600)) }] });
      push('turn_context', { turn_id: turnId, root_turn_id: turnId, disabled_plugin_ids: [], cwd: project, approval_policy: 'on-request', approvals_reviewer: 'user', permission_profile: { type: 'workspace-write' }, model: 'gpt-5.4', collaboration_mode: { mode: 'default', settings: { model: 'gpt-5.4', reasoning_effort: 'medium', developer_instructions: null } }, multi_agent_version: 'v1', realtime_active: false, summary: 'auto', sandbox_policy: { type: 'workspace-write', writable_roots: [project], network_access: false } });
    };
    turn();
    let untilTurn = int(8, 25);
    let history = 4;
    const usage = () => ({ input_tokens: int(1e3, 9e4), cached_input_tokens: int(0, 8e4), cache_write_input_tokens: 0, output_tokens: int(10, 2000), reasoning_output_tokens: int(0, 1500), total_tokens: int(1e3, 1e5) });
    for (let call = 0; call < count; call++) {
      if (--untilTurn === 0) {
        untilTurn = int(8, 25);
        turn();
      }
      if (chance(0.5)) push('response_item', { type: 'reasoning', id: `rs_${hex(40)}`, summary: [], content: null, encrypted_content: Buffer.from(text(int(400, 1_600))).toString('base64') });
      const callId = `call_${base62(24)}`;
      const roll = random();
      let payload: Record<string, unknown>;
      if (roll < 0.8) {
        const made = shellCall();
        commands.add(made.command);
        stats.shell++;
        stats.judged++;
        const args = { cmd: made.command, ...(chance(0.15) ? { workdir: path.join(project, pick(DIRECTORIES)) } : { workdir: project }), yield_time_ms: 10000, max_output_tokens: 10000 };
        payload = { type: 'function_call', status: 'completed', id: `fc_${callId}`, name: 'exec_command', arguments: JSON.stringify(args), call_id: callId };
      } else if (roll < 0.93) {
        // Codex 0.171 patches through exec_command with apply_patch's heredoc, its hook seeing an apply_patch.
        const target = chance(0.6) ? pick([...contents.keys()]) : file();
        const old = contents.get(target)?.split('\n')[0] ?? text(40);
        const patch = `apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: ${target}\n@@\n-${old}\n+${text(int(10, 200)).replaceAll('\n', '\n+')}\n*** End Patch\nEOF\n`;
        stats.judged++;
        payload = { type: 'function_call', status: 'completed', id: `fc_${callId}`, name: 'exec_command', arguments: JSON.stringify({ cmd: patch, workdir: project }), call_id: callId };
      } else if (roll < 0.98) {
        stats.unseen++;
        payload = { type: 'function_call', status: 'completed', id: `fc_${callId}`, name: 'update_plan', arguments: JSON.stringify({ plan: [{ step: text(50), status: 'completed' }, { step: text(50), status: 'in_progress' }] }), call_id: callId };
      } else {
        stats.judged++;
        payload = { type: 'function_call', status: 'completed', id: `fc_${callId}`, name: 'mcp__files__read_text_file', arguments: JSON.stringify({ path: path.join(project, file()) }), call_id: callId };
      }
      push('response_item', { ...payload, internal_chat_message_metadata_passthrough: { turn_id: turnId } }, { metadata: { describedsequence: history++, sampled_through_sequence: history - 2, client_authored: false, user_input_order: call + 1, model_search_state: 'unused' } });
      push('token_usage_record', { thread_id: sessionId, turn_id: turnId, session_id: sessionId, root_turn_id: turnId, response_id: `resp_${hex(24)}`, usage: usage(), turn_token_usage: usage(), thread_token_usage: usage() });
      if (chance(0.5)) push('event_msg', { type: 'item_completed', thread_id: sessionId, turn_id: turnId, item: { type: 'AgentMessage', id: uuid(), content: [{ type: 'text', text: text(int(40, 300)) }] }, started_at_ms: time, completed_at_ms: time + int(1, 900) });
      const output = `Chunk ID: ${hex(6)}\nWall time: ${(random() * 5).toFixed(4)} seconds\nProcess exited with code 0\nOriginal token count: ${int(2, 4000)}\nOutput:\n${text(outputLength())}`;
      push('response_item', { type: 'function_call_output', id: `fco_${uuid()}`, call_id: callId, output, internal_chat_message_metadata_passthrough: { turn_id: turnId, create_time: time / 1000 } }, { metadata: { describedsequence: history++, sampled_through_sequence: history - 2, client_authored: false, fallback_token_limit_override: 3000, model_search_state: 'unused' } });
      push('event_msg', { type: 'token_count', info: { total_token_usage: usage(), last_token_usage: usage(), last_usage_includes_reasoning: false, model_context_window: 258400 }, rate_limits: { limit_id: 'codex', limit_name: null, primary: { used_percent: int(0, 90), window_minutes: 300 }, secondary: null, credits: null, plan_type: 'plus' } });
    }
    push('event_msg', { type: 'task_complete', turn_id: turnId, last_agent_message: text(int(100, 800)), started_at: Math.floor(startedAt.getTime() / 1000), completed_at: Math.floor(time / 1000), duration_ms: time - startedAt.getTime() });
    const day = startedAt.toISOString().slice(0, 10).split('-');
    const directory = path.join(options.history, 'codex', 'sessions', ...day);
    mkdirSync(directory, { recursive: true });
    writeFileSync(path.join(directory, `rollout-${startedAt.toISOString().slice(0, 19).replaceAll(':', '-')}-${sessionId}.jsonl`), `${lines.join('\n')}\n`);
    stats.lines += lines.length;
    stats.codex += count;
  }
  return {
    files: claudeFiles + codexFiles,
    lines: stats.lines,
    judged: stats.judged,
    unseen: stats.unseen,
    bySource: { claude: stats.claude, codex: stats.codex },
    shellCalls: stats.shell,
    shellShare: stats.shell / options.totalCalls,
    distinctCommands: commands.size,
    oneFile,
  };
}
