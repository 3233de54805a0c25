/**
 * `toolgate hook` (issue 33), deciding an allowed shell command (`ls` in a
 * zone, a rule allows it), the ways a host can ask:
 *
 * - As a process, as Claude Code and Codex start a command hook: the host's
 *   JSON on stdin, one answer on stdout. The package as a user has it
 *   (packed and installed in a scratch project: the hook bundled into one
 *   file, scripts/bundle-hook.ts), run as `toolgate install` writes it: the
 *   first call decides in-process and starts the decider, which answers the
 *   rounds measured (src/cli/hook-decider.ts), as it answers a host's every
 *   call but the first. Wall
 *   time from spawn to exit, on the pinned Node, against a bare `node -e 0`
 *   spawned the same way with the same stdin, interleaved round by round (the
 *   floor of any hook that is a Node process on this machine). Targets
 *   (issue 53): the hook that judges by itself ≤ 1.5× that floor; the hook
 *   that forwards to `toolgate serve` (--approver server, which still decides
 *   allow and block locally) ≤ 1.1× the least a Node hook that forwards can do
 *   (bench/minimal-forwarding-hook.mjs: node:http and one request cycle),
 *   measured in the same rounds.
 * - Claude Code's `http` hook: `POST /hooks/claude-code` to a running
 *   `toolgate serve` over loopback, one request at a time on a keep-alive
 *   connection, against `GET /healthz` on the same connection. Target: p50
 *   ≤ 2 ms per decision.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { installPackedToolgate } from '../../test/packed-package.ts';
import { ADMIN_TOKEN, createServerProject, NODE, ROOT, startServerProcess } from '../../test/server-harness.ts';
import { loadClient } from '../http-load-client.ts';
import { median, percentile, round, spreadOf, type BenchRow, type BenchSuite } from '../harness.ts';

const POLICY = `version: 1
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: ask, delete: ask } }
shell:
  default: ask
  network: false
  rules:
    - { match: ls, decision: allow }
audit: { enabled: false }
`;

/**
 * A home of the bench's own for every process it spawns: the hook's decider lives in the home's state folder (not the
 * user's), and goes when the folder is removed. Short, for the socket's path (at most 107 bytes).
 */
const home = mkdtempSync('/tmp/tg-bench-');
/** toolgate's homes in it, whatever the environment names (the test suite names its own). */
const homes = { HOME: home, TOOLGATE_STATE_HOME: path.join(home, 'state'), TOOLGATE_CONFIG_HOME: path.join(home, 'config') };

/** One process from spawn to exit, its stdin given; wall time in ms. */
function timedSpawn(args: string[], stdin: string, env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(NODE, args, { stdio: ['pipe', 'ignore', 'ignore'], env: { ...process.env, ...homes, ...env } });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${args.join(' ')} exited ${code}`))));
    child.stdin.end(stdin);
  });
}

export const hookSuite: BenchSuite = {
  name: 'hook',
  async run(context) {
    const directory = mkdtempSync(path.join(context.scratch, 'hook-'));
    mkdirSync(directory, { recursive: true });
    const policyFile = path.join(directory, 'toolgate.yaml');
    writeFileSync(policyFile, POLICY);
    const input = JSON.stringify({ session_id: 'bench', cwd: directory, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_bench' });
    const { bin } = installPackedToolgate(path.join(context.scratch, 'package'));
    const hookArgs = [bin, 'hook', 'claude-code', '--policy', policyFile];
    const rounds = context.quick ? 8 : 25;
    // The first start fills the compile cache, as a host's first call does, and starts the decider, which answers the rest.
    await timedSpawn(hookArgs, input);
    const deciders = path.join(homes.TOOLGATE_STATE_HOME, 'deciders');
    const token = () => existsSync(deciders) && readdirSync(deciders).some((name) => name.endsWith('.token'));
    for (let waited = 0; !token(); waited += 50) {
      if (waited > 10_000) throw new Error(`the hook started no decider in ${home}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await timedSpawn(['-e', '0'], input);
    const floor: number[] = [];
    const hook: number[] = [];
    for (let round = 0; round < rounds; round++) {
      floor.push(await timedSpawn(['-e', '0'], input));
      hook.push(await timedSpawn(hookArgs, input));
    }
    const ratios = hook.map((ms, index) => ms / floor[index]!);
    const ratio = median(ratios);
    const rows: BenchRow[] = [
      { suite: 'hook', case: 'node -e 0, spawned with the hook input on stdin (the floor of a hook that is a Node process)', p50_us: round(median(floor) * 1000), p99_us: null, ops_per_s: null, ratio: null, baseline: null },
      {
        suite: 'hook',
        case: 'toolgate hook claude-code as a process (the installed package), judging an allowed shell command (ls) with its own policy, audit off',
        p50_us: round(median(hook) * 1000),
        p99_us: null,
        ops_per_s: null,
        ratio: round(ratio, 2),
        baseline: 'node -e 0, spawned with the hook input on stdin (the floor of a hook that is a Node process)',
        ratio_meaning: 'wall time, hook / node -e 0, median of interleaved rounds (lower is better)',
        spread: spreadOf({ of: 'ratio', values: ratios, digits: 2 }),
        target: 'hook process <= 1.5x node -e 0',
        met: ratio <= 1.5,
        note: `${rounds} interleaved rounds; answered by the decider the first call started (the policy read and judged for every call)`,
      },
    ];

    const project = createServerProject({ policy: 'crash-policy.yaml', parent: context.scratch });
    writeFileSync(project.policyFile, POLICY.replace('root: .', 'root: ./ws'));
    const server = await startServerProcess({ project });
    const client = loadClient({ url: server.url, token: ADMIN_TOKEN, connections: 1 });
    try {
      const call = { session_id: 'bench', cwd: project.workspace, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_bench' };
      const requests = context.quick ? 200 : 1000;
      const measure = async (send: () => Promise<{ status: number; body: any }>): Promise<Float64Array> => {
        const latencies = new Float64Array(requests);
        for (let index = 0; index < requests; index++) {
          const before = performance.now();
          const answer = await send();
          latencies[index] = performance.now() - before;
          if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        }
        return latencies.sort();
      };
      // The hook as a process again, forwarding to this server (--approver server): it loads no judge of its own.
      const forwardArgs = [bin, 'hook', 'claude-code', '--approver', 'server', '--server', server.url];
      const forwardInput = JSON.stringify(call);
      await timedSpawn(forwardArgs, forwardInput, { TOOLGATE_TOKEN: ADMIN_TOKEN });
      const minimalArgs = [path.join(ROOT, 'bench/minimal-forwarding-hook.mjs'), server.url];
      await timedSpawn(minimalArgs, forwardInput, { TOOLGATE_TOKEN: ADMIN_TOKEN });
      const forwardFloor: number[] = [];
      const minimal: number[] = [];
      const forwarded: number[] = [];
      for (let round = 0; round < rounds; round++) {
        forwardFloor.push(await timedSpawn(['-e', '0'], forwardInput));
        minimal.push(await timedSpawn(minimalArgs, forwardInput, { TOOLGATE_TOKEN: ADMIN_TOKEN }));
        forwarded.push(await timedSpawn(forwardArgs, forwardInput, { TOOLGATE_TOKEN: ADMIN_TOKEN }));
      }
      const MINIMAL = 'the least a Node hook that forwards can do (bench/minimal-forwarding-hook.mjs: stdin, one node:http POST, the answer on stdout)';
      const overMinimal = forwarded.map((ms, index) => ms / minimal[index]!);
      const overBare = forwarded.map((ms, index) => ms / forwardFloor[index]!);
      rows.push(
        {
          suite: 'hook',
          case: MINIMAL,
          p50_us: round(median(minimal) * 1000),
          p99_us: null,
          ops_per_s: null,
          ratio: round(median(minimal.map((ms, index) => ms / forwardFloor[index]!)), 2),
          baseline: 'node -e 0, spawned with the hook input on stdin (the floor of a hook that is a Node process)',
          ratio_meaning: 'wall time, minimal forwarder / node -e 0: what talking HTTP from a fresh Node process costs at all',
          note: `${rounds} interleaved rounds`,
        },
        {
          suite: 'hook',
          case: 'toolgate hook claude-code --approver server as a process (the installed package), forwarding an allowed shell command to a running toolgate serve',
          p50_us: round(median(forwarded) * 1000),
          p99_us: null,
          ops_per_s: null,
          ratio: round(median(overBare), 2),
          baseline: 'node -e 0, spawned with the hook input on stdin (the floor of a hook that is a Node process)',
          ratio_meaning: 'wall time, hook / node -e 0, median of interleaved rounds (lower is better)',
          target: 'hook process <= 1.1x the minimal forwarder',
          met: median(overMinimal) <= 1.1,
          spread: spreadOf({ of: 'ratio', values: overBare, digits: 2 }),
          note: `${rounds} interleaved rounds; ${round(median(overMinimal), 2)}x the minimal forwarder (the target's ratio)`,
        },
      );
      // As toolgate install --http writes the URL: naming the shell (without it, every shell command asks).
      const decide = () => client.request('POST', '/hooks/claude-code?shell=%2Fbin%2Fbash', call);
      const first = await decide();
      if (first.body?.hookSpecificOutput?.permissionDecision !== 'allow') throw new Error(`the bench call is not allowed: ${JSON.stringify(first.body)}`);
      await measure(decide);
      const health = await measure(() => client.request('GET', '/healthz'));
      // Five repetitions, for the spread of the p50 the target is about.
      const repetitions = await Promise.resolve().then(async () => {
        const all: Float64Array[] = [];
        for (let index = 0; index < 5; index++) all.push(await measure(decide));
        return all;
      });
      const p50s = repetitions.map((latencies) => percentile(latencies, 0.5) * 1000);
      const decided = Float64Array.from(repetitions.flatMap((latencies) => Array.from(latencies))).sort();
      const p50 = median(p50s);
      rows.push(
        { suite: 'hook', case: 'GET /healthz on the same keep-alive connection (the floor of any answer over HTTP here)', p50_us: round(percentile(health, 0.5) * 1000), p99_us: round(percentile(health, 0.99) * 1000), ops_per_s: null, ratio: null, baseline: null },
        {
          suite: 'hook',
          case: "POST /hooks/claude-code to a running toolgate serve (Claude Code's http hook), allowed shell command, one at a time",
          p50_us: round(p50),
          p99_us: round(percentile(decided, 0.99) * 1000),
          ops_per_s: null,
          ratio: round(p50 / (percentile(health, 0.5) * 1000), 2),
          baseline: 'GET /healthz on the same keep-alive connection (the floor of any answer over HTTP here)',
          ratio_meaning: 'p50 latency, hook decision / healthz (lower is better)',
          target: 'p50 <= 2 ms',
          met: p50 <= 2000,
          spread: spreadOf({ of: 'p50 us', values: p50s, digits: 0 }),
          note: `5 repetitions of ${requests} requests`,
        },
      );
    } finally {
      client.close();
      await server.kill9();
      // Its decider goes once its folder is gone.
      rmSync(home, { recursive: true, force: true });
    }
    return rows;
  },
};
