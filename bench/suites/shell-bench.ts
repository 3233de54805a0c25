import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'unbash';
import { normalizePolicy } from '../../src/core/policy/normalize-policy.ts';
import { zonesFromPolicy } from '../../src/tools/fs/zones.ts';
import { createShellTool } from '../../src/tools/shell/create-shell-tool.ts';
import { measure, round, spreadOf, type BenchRow, type BenchSuite } from '../harness.ts';

/** Realistic agent command lines: simple commands, pipelines, compound lists. */
const MIX = {
  simple: ['git status', 'ls -la', 'git diff --stat', 'grep -rn TODO src', 'cat package.json', 'npm test', 'git log --oneline -20', "find . -name '*.ts'"],
  pipeline: ['ls -la | grep ts', 'git log --oneline | head -20', "cat src/index.ts | grep -n export | wc -l", "find . -name '*.ts' | xargs grep -l createGate", 'npm test 2>&1 | tail -40', "ps aux | grep node | awk '{print $2}'"],
  compound: [
    'git status && git diff --stat',
    'cd src && ls -la && cd ..',
    'npm run build && npm test || echo failed',
    'for f in src/*.ts; do wc -l "$f"; done',
    'if [ -f package.json ]; then cat package.json | head -5; fi',
    'echo "branch: $(git rev-parse --abbrev-ref HEAD)" > /dev/null',
    "git status --porcelain | sed 's/^ M //' | sort -u",
  ],
} as const;

const TARGET_P50_US = 50;

/**
 * The shell tool's decision (parse, analysis, rules, zone checks for
 * redirections and paths_in) through its `checkApproval`, against unbash's
 * parse alone on the same command lines, in the same run.
 */
export const shellSuite: BenchSuite = {
  name: 'shell',
  async run(context) {
    const root = path.join(context.scratch, 'shell');
    mkdirSync(path.join(root, 'ws', 'src'), { recursive: true });
    writeFileSync(path.join(root, 'ws', 'package.json'), '{}\n');
    const policy = normalizePolicy({
      fs: { zones: [{ name: 'ws', root: 'ws', mode: 'rw' }] },
      shell: {
        rules: [
          { match: 'git status', decision: 'allow' },
          { match: 'git diff', decision: 'allow' },
          { match: 'git log', decision: 'allow' },
          { match: 'git push', decision: 'block' },
          { match: 'ls', decision: 'allow' },
          { match: 'grep', decision: 'allow' },
          { match: 'cat', decision: 'allow', paths_in: ['ws'] },
          { match: 'head', decision: 'allow' },
          { match: 'tail', decision: 'allow' },
          { match: 'wc', decision: 'allow' },
          { match: 'sort', decision: 'allow' },
          { match: 'sed', decision: 'allow' },
          { match: 'find', decision: 'allow' },
          { match: 'xargs', decision: 'allow' },
          { match: 'npm test', decision: 'allow' },
          { match: 'rm', decision: 'block' },
        ],
      },
    });
    const zones = zonesFromPolicy({ policy, policyDirectory: root });
    const tool = createShellTool({ policy, zones, cwd: root });
    const checkContext = { sessionId: 'bench', signal: new AbortController().signal };
    const iterations = context.quick ? 3000 : 30_000;
    const repetitions = context.quick ? 3 : 5;
    const rows: BenchRow[] = [];

    const groups: [string, readonly string[]][] = [['mix', Object.values(MIX).flat()], ...Object.entries(MIX)];
    for (const [label, commands] of groups) {
      const calls = commands.map((command, index) => ({ tool: 'shell', args: { command }, callId: `c${index}` }));
      const baseline = await measure({ fn: (index) => parse(commands[index % commands.length]!), iterations, repetitions });
      const ours = await measure({ fn: (index) => tool.checkApproval(calls[index % calls.length]!, checkContext), iterations, repetitions });
      const mix = label === 'mix';
      rows.push({ suite: 'shell', case: `unbash parse (${label})`, p50_us: round(baseline.p50_us), p99_us: round(baseline.p99_us), ops_per_s: Math.round(baseline.ops_per_s), ratio: null, baseline: null });
      rows.push({
        suite: 'shell',
        case: `shell decision (${label})`,
        p50_us: round(ours.p50_us),
        p99_us: round(ours.p99_us),
        ops_per_s: Math.round(ours.ops_per_s),
        ratio: round(ours.p50_us / baseline.p50_us, 2),
        baseline: `unbash parse (${label})`,
        ratio_meaning: 'p50 latency, decision / parse alone (lower is better)',
        ...(mix ? { target: `shell decision p50 <= ${TARGET_P50_US} us`, met: ours.p50_us <= TARGET_P50_US, spread: spreadOf({ of: 'p50 µs', values: ours.repetitions!.p50_us }) } : {}),
        note: `${commands.length} command lines`,
      });
    }
    // The decision of a line seen for the first time: the analysis kept for repeated lines
    // (analyzeCommandOnce) never helps, because each call's line ends with its own comment.
    const mix = Object.values(MIX).flat();
    const fresh = await measure({
      fn: (index) => tool.checkApproval({ tool: 'shell', args: { command: `${mix[index % mix.length]!} # ${index}-${Math.random()}` }, callId: `f${index}` }, checkContext),
      iterations,
      repetitions,
    });
    const repeated = rows.find((row) => row.case.startsWith('shell decision (mix)'))!;
    rows.push({
      suite: 'shell',
      case: 'shell decision (mix), every line new (diagnostic: no analysis kept from an earlier decision of the same line)',
      p50_us: round(fresh.p50_us),
      p99_us: round(fresh.p99_us),
      ops_per_s: Math.round(fresh.ops_per_s),
      ratio: round(fresh.p50_us / repeated.p50_us!, 2),
      baseline: repeated.case,
      ratio_meaning: 'p50 latency, new lines / repeated lines',
    });
    return rows;
  },
};
