/**
 * A project for the "what allowed commands do" suites: a zone `ws` that asks
 * before writes and blocks deletes (a git repository with a committed
 * README and victim file), a zone `free` that allows both (a repository
 * too), and a policy that allows a handful of commands broadly (`git`,
 * `npm`, `cat`, `ls`, `grep`, `xxd`, `split`...), in `auto_deny` mode: an
 * ask is a denial, so an executed command ran only when the policy allowed
 * it. Commands go through the gate and the built-in shell tool, with or
 * without a real bubblewrap sandbox behind it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { createGate } from '../src/core/gate.ts';
import type { Policy } from '../src/core/policy/policy.ts';
import { wrapWithBwrap } from '../src/sandbox/bwrap-sandbox.ts';
import { zonesFromPolicy, type Zone } from '../src/tools/fs/zones.ts';
import { createShellTool, type ShellTool } from '../src/tools/shell/create-shell-tool.ts';

export interface WorkspaceCodeFixture {
  root: string;
  policyFile: string;
  /** Zone ws: write ask, delete block; a repository. */
  ws: string;
  /** Zone free: write allow, delete allow; a repository. */
  free: string;
  policy: Policy;
  zones: Zone[];
  tool: ShellTool;
  /** The verdict, without running anything (`cwd` relative to the project root, default ws). */
  decide(command: string, cwd?: string): Promise<{ decision: string; reasons: string[] }>;
  /** Runs through the gate (auto_deny) and the shell tool, sandboxed by real bwrap or not. */
  run(command: string, options: { sandboxed: boolean; cwd?: string }): Promise<RunOutcome>;
  cleanup(): void;
}

export interface RunOutcome {
  /** allow, approved, denied, block. */
  decision: string;
  ran: boolean;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  reason: string;
}

export const WORKSPACE_RULES = ['git', 'npm', 'cat', 'ls', 'grep', 'xxd', 'split', 'wc', 'head', 'echo', 'printf', 'sort', 'iconv', 'du', 'tar', 'cd'];

/**
 * Runs git the way a person sets a repository up (identity given inline, no global config needed).
 *
 * @example
 * git(fixture.ws, 'add', '.');
 */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Builds the project.
 *
 * @example
 * const fixture = await createWorkspaceCodeFixture();
 * expect((await fixture.decide('git status')).decision).toBe('allow');
 */
export async function createWorkspaceCodeFixture(): Promise<WorkspaceCodeFixture> {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-workspace-code-')));
  const ws = path.join(root, 'ws');
  const free = path.join(root, 'free');
  for (const [directory, files] of [
    [ws, { 'README.md': '# project\nTODO: write more\n', 'victim.txt': 'victim\n', 'src/a.txt': 'a\n' }],
    [free, { 'README.md': '# free\n', 'victim.txt': 'victim\n' }],
  ] as const) {
    mkdirSync(path.join(directory, 'src'), { recursive: true });
    for (const [name, content] of Object.entries(files)) writeFileSync(path.join(directory, name), content);
    git(directory, 'init', '-q');
    git(directory, 'add', '.');
    git(directory, 'commit', '-q', '-m', 'first');
  }
  const policyFile = path.join(root, 'toolgate.yaml');
  writeFileSync(
    policyFile,
    [
      'mode: auto_deny',
      'fs:',
      '  zones:',
      '    - { name: ws, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: block } }',
      '    - { name: free, root: ./free, mode: rw, approval: { read: allow, write: allow, delete: allow } }',
      'shell:',
      '  default: ask',
      '  rules:',
      ...WORKSPACE_RULES.map((match) => `    - { match: ${JSON.stringify(match)}, decision: allow }`),
    ].join('\n'),
  );
  const { policy } = await loadPolicyFile(policyFile);
  const zones = zonesFromPolicy({ policy, policyDirectory: root });
  const tool = createShellTool({ policy, zones, cwd: root });
  const sandboxed = createShellTool({ policy, zones, cwd: root, sandbox: { wrap: wrapWithBwrap } });
  let calls = 0;
  return {
    root,
    policyFile,
    ws,
    free,
    policy,
    zones,
    tool,
    async decide(command, cwd = 'ws') {
      const verdict = await tool.decide({ command, cwd });
      return { decision: verdict.decision, reasons: verdict.reasons };
    },
    async run(command, options) {
      const shell = options.sandboxed ? sandboxed : tool;
      const gate = createGate({ policy, tools: [shell] });
      calls += 1;
      const authorization = await gate.authorize({ tool: 'shell', args: { command, cwd: options.cwd ?? 'ws' }, callId: `workspace-code-${calls}` }, { sessionId: 'workspace-code' });
      if (authorization.decision !== 'allow' && authorization.decision !== 'approved') {
        return { decision: authorization.decision, ran: false, exitCode: null, stdout: '', stderr: '', reason: authorization.reason };
      }
      const result = await shell.execute(authorization.args as { command: string; cwd?: string });
      return { decision: authorization.decision, ran: true, exitCode: result.exit_code, stdout: result.stdout, stderr: result.stderr, reason: authorization.reason };
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
