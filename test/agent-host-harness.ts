/**
 * The real agent CLIs for the host tests: pinned in test/hosts (its own
 * lockfile, installed by scripts/ensure-test-packages.ts), each session run
 * by `agent-host-session.ts` in a fresh network namespace with only
 * loopback (`unshare -n`, as root), with toolgate's hook as the host's
 * PreToolUse hook.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hookCommandLine } from '../src/hooks/host-install.ts';
import type { HostSessionResult, HostSessionSpec } from './agent-host-session.ts';
import { NODE, ROOT } from './server-harness.ts';
import { afterEach, expect } from 'vitest';

/** The MCP server the host tests' policy names (files, rooted where the host works). */
export const FILESYSTEM_SERVER = path.join(ROOT, 'node_modules/.bin/mcp-server-filesystem');

/**
 * The host tests' policy: one zone (the project) where writes are allowed,
 * echo and cat allowed, rm blocked, other commands asking, no network, and
 * an MCP server whose write_file is blocked.
 */
export const HOST_TEST_POLICY = `version: 1
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: allow, delete: ask } }
shell:
  default: ask
  network: false
  rules:
    - { match: echo, decision: allow }
    - { match: cat, decision: allow }
    - { match: rm, decision: block, reason: "rm is blocked in this project" }
mcp:
  servers:
    files:
      command: ${FILESYSTEM_SERVER}
      args: ["."]
      default: ask
      tools:
        read_text_file: allow
        write_file: block
`;

export const HOST_CLIS = {
  'claude-code': path.join(ROOT, 'test/hosts/node_modules/.bin/claude'),
  codex: path.join(ROOT, 'test/hosts/node_modules/.bin/codex'),
  gemini: path.join(ROOT, 'test/hosts/node_modules/.bin/gemini'),
  copilot: path.join(ROOT, 'test/hosts/node_modules/.bin/copilot'),
  opencode: path.join(ROOT, 'test/hosts/node_modules/.bin/opencode'),
} as const;

/** `toolgate hook <host> ...` as `toolgate install` writes it (`|| exit 2` after it), run from this checkout on the pinned Node. */
export function hookCommand(host: HostSessionSpec['host'], args: readonly string[] = []): string {
  return hookCommandLine([NODE, path.join(ROOT, 'src/cli/main.ts'), 'hook', host, ...args]);
}

export interface HostProject {
  directory: string;
  home: string;
  policyFile: string;
}

/**
 * A fresh project with `policy` as its toolgate.yaml, and a fresh home for the CLI.
 *
 * @example
 * const project = hostProject({ policy: 'version: 1\n...' });
 */
export function hostProject(options: { policy: string; files?: Record<string, string> }): HostProject {
  const base = mkdtempSync(path.join(os.tmpdir(), 'toolgate-host-'));
  const directory = path.join(base, 'project');
  const home = path.join(base, 'home');
  mkdirSync(directory);
  mkdirSync(home);
  const policyFile = path.join(directory, 'toolgate.yaml');
  writeFileSync(policyFile, options.policy);
  for (const [name, content] of Object.entries(options.files ?? {})) {
    mkdirSync(path.dirname(path.join(directory, name)), { recursive: true });
    writeFileSync(path.join(directory, name), content);
  }
  return { directory, home, policyFile };
}

/**
 * Runs one headless session of the host's real CLI in a loopback-only network namespace.
 *
 * @example
 * const result = await runHostSession({ host: 'claude-code', project, call: { name: 'Bash', input: { command: 'ls' } } });
 */
export async function runHostSession(options: {
  host: HostSessionSpec['host'];
  project: HostProject;
  call: HostSessionSpec['call'];
  calls?: HostSessionSpec['calls'];
  shell?: string;
  hook?: string;
  hookTimeoutSeconds?: number;
  mcpServers?: HostSessionSpec['mcpServers'];
  prompt?: string;
  timeoutMs?: number;
  server?: HostSessionSpec['server'];
  blackHole?: boolean;
  /** Claude Code's `onFailure` on the hook: "block" (what `toolgate install` writes) unless given; null leaves it out. */
  onFailure?: 'block' | 'continue' | null;
  httpUrl?: string;
  permissionMode?: string;
  /** Claude Code: the hook in managed settings, in a mount namespace of the session's own (agent-host-session.ts). */
  managedHook?: boolean;
  /** The CLI to run, when not the pinned one (an older release). */
  cli?: string;
  statusMessage?: string;
  /** Gemini CLI: the hooks toolgate install wrote in the home's settings, instead of the harness's own. */
  installedHooks?: boolean;
  /** Gemini CLI: folder trust on, no folder trusted. */
  folderTrust?: boolean;
  /** opencode: more of its environment. */
  env?: Record<string, string>;
  /** Copilot CLI: without `--allow-all-tools` (its permission service, and its permissionRequest hook, have a say). */
  copilotAsks?: boolean;
}): Promise<HostSessionResult> {
  const { project } = options;
  const resultFile = path.join(project.home, `result-${Date.now()}.json`);
  const spec: HostSessionSpec = {
    host: options.host,
    cli: options.cli ?? HOST_CLIS[options.host],
    cwd: project.directory,
    home: project.home,
    prompt: options.prompt ?? 'Do the task with one tool call.',
    call: options.call,
    hook: options.hook ?? hookCommand(options.host, ['--policy', project.policyFile]),
    hookTimeoutSeconds: options.hookTimeoutSeconds ?? 600,
    ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
    timeoutMs: options.timeoutMs ?? 90_000,
    resultFile,
    ...(options.server === undefined ? {} : { server: options.server }),
    ...(options.blackHole === undefined ? {} : { blackHole: options.blackHole }),
    ...(options.host === 'claude-code' ? { onFailure: options.onFailure === undefined ? 'block' : options.onFailure } : {}),
    ...(options.httpUrl === undefined ? {} : { httpUrl: options.httpUrl }),
    ...(options.permissionMode === undefined ? {} : { permissionMode: options.permissionMode }),
    ...(options.calls === undefined ? {} : { calls: options.calls }),
    ...(options.shell === undefined ? {} : { shell: options.shell }),
    ...(options.managedHook === undefined ? {} : { managedHook: options.managedHook }),
    ...(options.statusMessage === undefined ? {} : { statusMessage: options.statusMessage }),
    ...(options.installedHooks === undefined ? {} : { installedHooks: options.installedHooks }),
    ...(options.folderTrust === undefined ? {} : { folderTrust: options.folderTrust }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.copilotAsks === undefined ? {} : { copilotAsks: options.copilotAsks }),
  };
  const specFile = path.join(project.home, 'spec.json');
  writeFileSync(specFile, JSON.stringify(spec));
  const child = spawn('unshare', [...(options.managedHook === true ? ['-n', '-m'] : ['-n']), NODE, path.join(ROOT, 'test/agent-host-session.ts'), specFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  let text: string;
  try {
    text = readFileSync(resultFile, 'utf8');
  } catch {
    throw new Error(`the host session wrote no result (exit ${code}): ${output}`);
  }
  return JSON.parse(text) as HostSessionResult;
}

/**
 * Fresh projects with the host tests' policy for one test file, each
 * removed after its test (this registers the file's afterEach).
 *
 * @example
 * const project = hostTestProjects();
 * const where = project({ 'victim/keep.txt': 'keep\n' });
 */
export function hostTestProjects(): (files?: Record<string, string>) => HostProject {
  const made: string[] = [];
  afterEach(() => {
    for (const base of made.splice(0).reverse()) rmSync(base, { recursive: true, force: true });
  });
  return (files = {}) => {
    const created = hostProject({ policy: HOST_TEST_POLICY, files });
    made.push(path.dirname(created.directory));
    return created;
  };
}

/** A session that ran as it should offline: it ended, reached no other machine, and the model was asked and told what came of its call. */
export function expectOffline(result: HostSessionResult): void {
  expect(result.timedOut, `the session timed out: ${result.stderr.slice(-2000)}`).toBe(false);
  expect(result.outsideConnects, 'connections to other machines').toEqual([]);
  expect(result.requests.length, result.stdout.slice(-2000) + result.stderr.slice(-2000)).toBeGreaterThanOrEqual(2);
}

/**
 * `toolgate hook <host> --approver server` in front of the host's real CLI:
 * a command the policy asks about, approved by a click in the web inbox
 * (headless Chromium), runs exactly once, its card naming the host; with the
 * server down, the call is blocked and does not run.
 */
export async function expectInboxApprovesOnce(options: { host: HostSessionSpec['host']; title: string; project: () => HostProject; shellCall: (command: string) => HostSessionSpec['call'] }): Promise<void> {
  const { host, project, shellCall } = options;
  const where = project();
  const result = await runHostSession({
    host,
    project: where,
    call: shellCall('touch approved.txt; echo ran >> calls.log'),
    hook: hookCommand(host, ['--approver', 'server', '--server', '{SERVER}', '--timeout', '55']),
    hookTimeoutSeconds: 60,
    server: { policyFile: where.policyFile, store: path.join(where.home, 'store.db'), approve: 'inbox' },
    timeoutMs: 110_000,
  });
  expectOffline(result);
  expect(result.inboxCard).toContain(`Asked by ${options.title}, session`);
  expect(result.inboxCard).toContain('touch approved.txt');
  expect(readFileSync(path.join(where.directory, 'calls.log'), 'utf8')).toBe('ran\n');

  const down = project();
  const blocked = await runHostSession({ host, project: down, call: shellCall('echo ran >> calls.log'), hook: hookCommand(host, ['--approver', 'server', '--server', 'http://127.0.0.1:9', '--timeout', '30']) });
  expectOffline(blocked);
  expect(existsSync(path.join(down.directory, 'calls.log'))).toBe(false);
  expect(blocked.toolResult).toContain('could not be reached');
}
