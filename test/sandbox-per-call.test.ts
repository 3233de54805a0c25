/**
 * The OS sandbox enforces the decision of each call, not only the zones: a
 * command nobody approved writes only where the policy lets writes and
 * deletes happen without asking, `.git` stays read-only unless
 * `sandbox.vcs_metadata` grants it, toolgate's own files stay hidden, and an
 * operator's `sandbox.profile` only narrows. Everything runs in real
 * bubblewrap and is judged on the host's filesystem afterwards.
 *
 * Most attacks here are run twice: straight through the sandbox (no policy
 * layer in front, so only the kernel holds them), and through the shell
 * tool's `execute` without the gate's approval. A control run in a zone that
 * allows writes and deletes shows each attack is real (it does its damage
 * there), so a passing test is the sandbox's doing, not a broken attack.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { createGate } from '../src/core/gate.ts';
import { createBuiltinTools } from '../src/runtime/create-builtin-tools.ts';
import type { Policy } from '../src/core/policy/policy.ts';
import { wrapWithBwrap } from '../src/sandbox/bwrap-sandbox.ts';
import { deriveSandboxProfile } from '../src/sandbox/derive-sandbox-profile.ts';
import { findVcsMetadata } from '../src/sandbox/find-vcs-metadata.ts';
import { runCommand } from '../src/sandbox/run-command.ts';
import type { CallAuthority } from '../src/sandbox/sandbox-zone.ts';
import { zonesFromPolicy, type Zone } from '../src/tools/fs/zones.ts';
import { createShellTool, type ShellTool } from '../src/tools/shell/create-shell-tool.ts';
import { ShellCommandRefusedError } from '../src/tools/shell/errors/shell-command-refused-error.ts';
import { sandboxProfileOptionsFromPolicy } from '../src/tools/shell/sandbox-profile-from-policy.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';

/** The zones every project here has; `zoneLines` can replace them. */
const ZONES = [
  // The DESIGN example: writes ask, deletes are blocked.
  '    - { name: guarded, root: ./guarded, mode: rw, approval: { read: allow, write: ask, delete: block } }',
  // Everything allowed without asking: the control zone.
  '    - { name: scratch, root: ./scratch, mode: rw, approval: { read: allow, write: allow, delete: allow } }',
  // Writes allowed, deletes blocked: what bwrap cannot express.
  '    - { name: careful, root: ./careful, mode: rw, approval: { read: allow, write: allow, delete: block } }',
  // Reads ask.
  '    - { name: private, root: ./private, mode: rw, approval: { read: ask, write: ask, delete: ask } }',
];

interface Project {
  root: string;
  policyFile: string;
  policy: Policy;
  zones: Zone[];
  shell: ShellTool;
  at(zone: string, ...parts: string[]): string;
}

const projects: Project[] = [];
afterEach(() => {
  for (const project of projects.splice(0)) rmSync(project.root, { recursive: true, force: true });
});

beforeAll(requireWorkingBwrap);

async function createProject(options: { sandbox?: string[]; zoneLines?: string[]; policyIn?: string; prepare?: (root: string) => void } = {}): Promise<Project> {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-per-call-')));
  for (const zone of ['guarded', 'scratch', 'careful', 'private']) mkdirSync(path.join(root, zone));
  for (const zone of ['guarded', 'scratch', 'careful']) initRepository(path.join(root, zone));
  writeFileSync(path.join(root, 'private', 'diary.txt'), 'PRIVATE-DIARY\n');
  options.prepare?.(root);
  const policyDirectory = path.join(root, options.policyIn ?? '');
  const policyFile = path.join(policyDirectory, 'toolgate.yaml');
  const relative = (zone: string): string => path.relative(policyDirectory, path.join(root, zone)) || '.';
  const zoneLines = (options.zoneLines ?? ZONES).map((line) => line.replace(/root: \.\/(\w+)/, (_match, zone: string) => `root: ${relative(zone)}`));
  writeFileSync(
    policyFile,
    ['mode: approve_all', 'fs:', '  zones:', ...zoneLines, 'shell:', '  default: ask', '  rules:', '    - { match: "git status", decision: allow }', '    - { match: "echo", decision: allow }', 'sandbox:', '  os: required', ...(options.sandbox ?? []).map((line) => `  ${line}`), ''].join('\n'),
  );
  const { policy } = await loadPolicyFile(policyFile);
  const zones = zonesFromPolicy({ policy, policyDirectory });
  const shell = createShellTool({ policy, zones, cwd: root, sandbox: { wrap: (input) => wrapWithBwrap(input) } });
  const project: Project = { root, policyFile, policy, zones, shell, at: (zone, ...parts) => path.join(root, zone, ...parts) };
  projects.push(project);
  return project;
}

/** A repository with two committed files, one untracked file and one local change. */
function initRepository(directory: string): void {
  const git = (...args: string[]): void => {
    execFileSync('git', args, { cwd: directory, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  };
  git('init', '-q', '.');
  git('config', 'user.email', 'test@example.com');
  git('config', 'user.name', 'Test');
  writeFileSync(path.join(directory, 'victim.txt'), 'VICTIM\n');
  writeFileSync(path.join(directory, 'tracked.txt'), 'committed\n');
  git('add', 'victim.txt', 'tracked.txt');
  git('commit', '-q', '-m', 'initial');
  writeFileSync(path.join(directory, 'tracked.txt'), 'LOCAL CHANGE\n');
  writeFileSync(path.join(directory, 'untracked.txt'), 'UNTRACKED\n');
}

/** Appends lines to a repository's `.git/config` on the host, as an earlier command or a cloned repository would have. */
function plantGitConfig(directory: string, lines: string): void {
  writeFileSync(path.join(directory, '.git', 'config'), `${readFileSync(path.join(directory, '.git', 'config'), 'utf8')}${lines}\n`);
}

/** Runs `command` straight in bwrap with the profile the shell tool would make for `authority`: no policy layer in front. */
async function runInSandbox(project: Project, options: { authority: CallAuthority; cwd: string; command: string }) {
  const base = sandboxProfileOptionsFromPolicy({ policy: project.policy, policyFile: project.policyFile, zones: project.zones });
  const roots = project.zones.filter((zone) => zone.mode === 'rw').map((zone) => zone.root);
  const paths = await findVcsMetadata({ roots, cwd: options.cwd });
  const profile = deriveSandboxProfile({ ...base, authority: options.authority, vcsMetadata: { ...base.vcsMetadata, paths } });
  const wrapped = wrapWithBwrap({ profile, command: '/bin/bash', args: ['-c', options.command], cwd: options.cwd });
  return runCommand({ ...wrapped, timeoutMs: 20_000 });
}

/** Runs `command` through the shell tool as an unapproved call would reach it (the gate's `allow`, or no authorization). */
async function runUnapproved(project: Project, options: { cwd: string; command: string }) {
  return project.shell.execute({ command: options.command, cwd: options.cwd });
}

/** Like `runUnapproved`, but a refusal by the policy layer counts as "stopped" instead of failing the test. */
async function runUnapprovedOrStopped(project: Project, options: { cwd: string; command: string }): Promise<{ stopped: boolean }> {
  try {
    await runUnapproved(project, options);
    return { stopped: false };
  } catch (error) {
    if (error instanceof ShellCommandRefusedError) return { stopped: true };
    throw error;
  }
}

async function runApproved(project: Project, options: { cwd: string; command: string }) {
  return project.shell.execute({ command: options.command, cwd: options.cwd }, { authorization: { decision: 'approved', payload: { command: options.command, cwd: options.cwd } } });
}

function gitIndexOf(directory: string): Buffer {
  return readFileSync(path.join(directory, '.git', 'index'));
}

describe('a command nobody approved, in a zone whose writes ask and deletes are blocked', () => {
  // The same attacks, run two ways; both must leave the host untouched. Straight through bwrap, the
  // control zone shows each attack does its damage where it may; through the shell tool the policy
  // layer may stop some before they run, which is fine, so the control is only checked the first way.
  const ways = [
    { way: 'straight through bwrap', control: true, run: (project: Project, options: { cwd: string; command: string }) => runInSandbox(project, { ...options, authority: 'policy' }) },
    { way: 'through the shell tool', control: false, run: runUnapprovedOrStopped },
  ];

  for (const { way, control, run } of ways) {
    it(`cannot delete a file through core.fsmonitor in .git/config when git status runs (${way})`, async () => {
      const project = await createProject();
      const hook = 'rm -f victim.txt; echo PLANTED > planted.txt; false';
      plantGitConfig(project.at('guarded'), `[core]\n\tfsmonitor = "${hook}"`);
      plantGitConfig(project.at('scratch'), `[core]\n\tfsmonitor = "${hook}"`);

      await run(project, { cwd: project.at('scratch'), command: 'git status' });
      if (control) expect(existsSync(project.at('scratch', 'victim.txt')), 'the control attack did not run: the test proves nothing').toBe(false);

      await run(project, { cwd: project.at('guarded'), command: 'git status' });
      expect(readFileSync(project.at('guarded', 'victim.txt'), 'utf8')).toBe('VICTIM\n');
      expect(existsSync(project.at('guarded', 'planted.txt'))).toBe(false);
    });

    it(`cannot delete a file through diff.external when git diff runs (${way})`, async () => {
      const project = await createProject();
      for (const zone of ['guarded', 'scratch']) {
        writeFileSync(project.at(zone, 'evil-diff.sh'), '#!/bin/sh\nrm -f victim.txt\n', { mode: 0o755 });
        plantGitConfig(project.at(zone), `[diff]\n\texternal = ${project.at(zone, 'evil-diff.sh')}`);
      }
      await run(project, { cwd: project.at('scratch'), command: 'git diff' });
      if (control) expect(existsSync(project.at('scratch', 'victim.txt')), 'the control attack did not run').toBe(false);

      await run(project, { cwd: project.at('guarded'), command: 'git diff' });
      expect(readFileSync(project.at('guarded', 'victim.txt'), 'utf8')).toBe('VICTIM\n');
    });

    // Also where the zone lets an unapproved command write and delete everything else (scratch).
    it(`cannot rewrite, move or remove .git (${way})`, async () => {
      const project = await createProject();
      for (const zone of ['guarded', 'scratch']) {
        const config = readFileSync(project.at(zone, '.git', 'config'), 'utf8');
        for (const command of ['git config core.fsmonitor "rm -rf ."', 'echo "[core] hooksPath = /tmp" >> .git/config', 'mv .git .git-old', 'rm -rf .git', 'touch .git/hooks/pre-commit']) {
          await run(project, { cwd: project.at(zone), command });
          expect(readFileSync(project.at(zone, '.git', 'config'), 'utf8'), `${zone}: ${command}`).toBe(config);
          expect(existsSync(project.at(zone, '.git-old')), `${zone}: ${command}`).toBe(false);
          expect(existsSync(project.at(zone, '.git', 'hooks', 'pre-commit')), `${zone}: ${command}`).toBe(false);
        }
      }
    });

    it(`writes and deletes nothing with git rm, git clean, git checkout --, git reset --hard, xxd or split (${way})`, async () => {
      // .git writable for everyone, so the control zone shows what these commands do when nothing stops them.
      const project = await createProject({ sandbox: ['vcs_metadata: writable'] });
      const guarded = project.at('guarded');
      const index = gitIndexOf(guarded);
      // In this order so that in the control zone each one's damage survives the next.
      const attacks = ['git reset -q --hard', 'git checkout -- tracked.txt', 'git clean -fdx', 'git rm -q victim.txt', 'xxd tracked.txt xxd-out.txt', 'split -l 1 tracked.txt split-'];
      for (const command of attacks) {
        await run(project, { cwd: project.at('scratch'), command });
      }
      // The control: in the zone that allows everything, the same commands do their damage.
      if (control) {
        expect(readFileSync(project.at('scratch', 'tracked.txt'), 'utf8')).toBe('committed\n');
        expect(existsSync(project.at('scratch', 'victim.txt'))).toBe(false);
        expect(existsSync(project.at('scratch', 'untracked.txt'))).toBe(false);
        expect(existsSync(project.at('scratch', 'xxd-out.txt'))).toBe(true);
        expect(existsSync(project.at('scratch', 'split-aa'))).toBe(true);
      }

      for (const command of attacks) {
        await run(project, { cwd: guarded, command });
      }
      expect(readFileSync(path.join(guarded, 'victim.txt'), 'utf8')).toBe('VICTIM\n');
      expect(readFileSync(path.join(guarded, 'untracked.txt'), 'utf8')).toBe('UNTRACKED\n');
      expect(readFileSync(path.join(guarded, 'tracked.txt'), 'utf8')).toBe('LOCAL CHANGE\n');
      expect(existsSync(path.join(guarded, 'xxd-out.txt'))).toBe(false);
      expect(existsSync(path.join(guarded, 'split-aa'))).toBe(false);
      expect(gitIndexOf(guarded).equals(index)).toBe(true);
    });
  }

  it('cannot reach it through links made earlier in the same line, or .. after a symlink (straight through bwrap)', async () => {
    const project = await createProject();
    mkdirSync(project.at('guarded', 'sub'));
    const command = [
      `ln -s ${project.at('guarded')} g && echo x > g/through-link.txt`,
      `ln -s ${project.at('guarded', 'sub')} s && echo x > s/../through-dotdot.txt`,
      'rm -f g/victim.txt s/../victim.txt',
      `cp -r ${project.at('guarded')} copy && rm -rf g/`,
    ].join('; ');
    await runInSandbox(project, { authority: 'policy', cwd: project.at('scratch'), command });
    // The links themselves were made in the zone that allows it; nothing went through them.
    expect(existsSync(project.at('scratch', 'g'))).toBe(true);
    expect(existsSync(project.at('guarded', 'through-link.txt'))).toBe(false);
    expect(existsSync(project.at('guarded', 'through-dotdot.txt'))).toBe(false);
    expect(readFileSync(project.at('guarded', 'victim.txt'), 'utf8')).toBe('VICTIM\n');
    expect(readFileSync(project.at('guarded', 'untracked.txt'), 'utf8')).toBe('UNTRACKED\n');
  });

  it('can still read there: git status and git log work', async () => {
    const project = await createProject();
    const status = await runUnapproved(project, { cwd: project.at('guarded'), command: 'git status --short && git log --oneline' });
    expect(status.exit_code, status.stderr).toBe(0);
    expect(status.stdout).toContain(' M tracked.txt');
    expect(status.stdout).toContain('?? untracked.txt');
    expect(status.stdout).toContain('initial');
  });
});

describe('what each decision grants', () => {
  it('lets a command nobody approved write and delete where the policy allows both without asking', async () => {
    const project = await createProject();
    const result = await runUnapproved(project, { cwd: project.at('scratch'), command: 'echo new > new.txt && rm untracked.txt' });
    expect(result.exit_code, result.stderr).toBe(0);
    expect(readFileSync(project.at('scratch', 'new.txt'), 'utf8')).toBe('new\n');
    expect(existsSync(project.at('scratch', 'untracked.txt'))).toBe(false);
  });

  it('gives less, never more, where writes are allowed but deletes are blocked: the zone is read-only for an unapproved command', async () => {
    const project = await createProject();
    // The kernel refuses this write, because it could not refuse a delete there; so the policy layer asks for it.
    const check = await project.shell.checkApproval({ tool: 'shell', args: { command: 'echo new > new.txt', cwd: project.at('careful') }, callId: 'c1' }, { sessionId: 's1', signal: new AbortController().signal });
    expect(check).toMatchObject({ tool: 'shell', description: expect.stringContaining('only a command a person approved') });
    expect(await project.shell.checkApproval({ tool: 'shell', args: { command: 'echo new > new.txt', cwd: project.at('scratch') }, callId: 'c2' }, { sessionId: 's1', signal: new AbortController().signal })).toBeNull();
    const write = await runUnapproved(project, { cwd: project.at('careful'), command: 'echo new > new.txt' });
    expect(write.exit_code).not.toBe(0);
    expect(write.stderr).toContain('Read-only file system');
    expect(existsSync(project.at('careful', 'new.txt'))).toBe(false);
    const remove = await runInSandbox(project, { authority: 'policy', cwd: project.at('careful'), command: 'rm -f victim.txt' });
    expect(remove.exitCode).not.toBe(0);
    expect(readFileSync(project.at('careful', 'victim.txt'), 'utf8')).toBe('VICTIM\n');
    // A person who approves the write gets it.
    const approved = await runApproved(project, { cwd: project.at('careful'), command: 'echo new > new.txt' });
    expect(approved.exit_code, approved.stderr).toBe(0);
    expect(readFileSync(project.at('careful', 'new.txt'), 'utf8')).toBe('new\n');
  });

  it('gives a person-approved command what the person approved: writes where writes ask', async () => {
    const project = await createProject();
    const result = await runApproved(project, { cwd: project.at('guarded'), command: 'echo approved > approved.txt' });
    expect(result.exit_code, result.stderr).toBe(0);
    expect(readFileSync(project.at('guarded', 'approved.txt'), 'utf8')).toBe('approved\n');
  });

  it('keeps .git read-only even for an approved command unless sandbox.vcs_metadata grants it', async () => {
    const project = await createProject();
    const result = await runApproved(project, { cwd: project.at('guarded'), command: 'git add untracked.txt' });
    expect(result.exit_code).not.toBe(0);
    expect(result.stderr).toMatch(/Read-only file system|index\.lock/);
    expect(execFileSync('git', ['status', '--short'], { cwd: project.at('guarded'), encoding: 'utf8' })).toContain('?? untracked.txt');
  });

  it('with vcs_metadata: writable_when_approved, lets an approved git commit write .git, and still not an unapproved one', async () => {
    const project = await createProject({ sandbox: ['vcs_metadata: writable_when_approved'] });
    const unapproved = await runUnapproved(project, { cwd: project.at('scratch'), command: 'git add untracked.txt' });
    expect(unapproved.exit_code).not.toBe(0);
    // The policy layer asks for a write to .git that only an approved command could make, rather than let it fail.
    const context = { sessionId: 's1', signal: new AbortController().signal };
    expect(await project.shell.checkApproval({ tool: 'shell', args: { command: 'echo x >> .git/info/exclude', cwd: project.at('scratch') }, callId: 'c1' }, context)).toMatchObject({ tool: 'shell', required: true });
    expect(await project.shell.checkApproval({ tool: 'shell', args: { command: 'echo x >> notes.txt', cwd: project.at('scratch') }, callId: 'c2' }, context)).toBeNull();
    const approved = await runApproved(project, { cwd: project.at('guarded'), command: 'git add untracked.txt && git commit -q -m approved' });
    expect(approved.exit_code, approved.stderr).toBe(0);
    expect(execFileSync('git', ['log', '--oneline'], { cwd: project.at('guarded'), encoding: 'utf8' })).toContain('approved');
  });

  it('with vcs_metadata: writable, lets an unapproved command write .git where the zone allows writes and deletes', async () => {
    const project = await createProject({ sandbox: ['vcs_metadata: writable'] });
    const result = await runUnapproved(project, { cwd: project.at('scratch'), command: 'git add untracked.txt' });
    expect(result.exit_code, result.stderr).toBe(0);
    // Still nothing in the zone whose writes ask.
    const guarded = await runUnapproved(project, { cwd: project.at('guarded'), command: 'git add untracked.txt' });
    expect(guarded.exit_code).not.toBe(0);
  });

  it('protects a nested repository\'s .git found at run time, and one created after the tool was built', async () => {
    const project = await createProject({ sandbox: ['vcs_metadata: writable_when_approved'] });
    const nested = project.at('scratch', 'vendor', 'lib');
    mkdirSync(nested, { recursive: true });
    initRepository(nested);
    const config = readFileSync(path.join(nested, '.git', 'config'), 'utf8');
    const result = await runInSandbox(project, { authority: 'policy', cwd: project.at('scratch'), command: 'echo "[core] fsmonitor = x" >> vendor/lib/.git/config; mv vendor/lib/.git vendor/lib/old; mv vendor/lib vendor/moved' });
    expect(result.exitCode).not.toBe(0);
    expect(readFileSync(path.join(nested, '.git', 'config'), 'utf8')).toBe(config);
    expect(existsSync(project.at('scratch', 'vendor', 'moved'))).toBe(false);
  });

  it('hides a zone whose reads ask from a command nobody approved, and shows it to an approved one', async () => {
    const project = await createProject();
    const unapproved = await runUnapproved(project, { cwd: project.at('scratch'), command: `cat ${project.at('private', 'diary.txt')}` });
    expect(unapproved.stdout).not.toContain('PRIVATE-DIARY');
    await expect(runUnapproved(project, { cwd: project.at('private'), command: 'ls' })).rejects.toThrow(/not visible inside the sandbox/);
    // So a command the rules allow asks there, rather than being refused when it runs.
    expect(await project.shell.checkApproval({ tool: 'shell', args: { command: 'echo hi', cwd: project.at('private') }, callId: 'c1' }, { sessionId: 's1', signal: new AbortController().signal })).toMatchObject({
      description: expect.stringContaining('shows only to a command a person approved'),
    });
    const approvedThere = await runApproved(project, { cwd: project.at('private'), command: 'echo hi' });
    expect(approvedThere.stdout).toBe('hi\n');
    const command = `cat ${project.at('private', 'diary.txt')}`;
    const approved = await runApproved(project, { cwd: project.at('scratch'), command });
    expect(approved.stdout).toContain('PRIVATE-DIARY');
  });
});

describe('a zone whose reads ask, inside one that allows everything', () => {
  it('is masked from a command nobody approved, which can neither read nor move it', async () => {
    const project = await createProject({
      zoneLines: [
        '    - { name: scratch, root: ./scratch, mode: rw, approval: { read: allow, write: allow, delete: allow } }',
        '    - { name: inner, root: ./scratch/inner, mode: rw, approval: { read: ask, write: ask, delete: ask } }',
      ],
      prepare: (root) => {
        mkdirSync(path.join(root, 'scratch', 'inner'));
        writeFileSync(path.join(root, 'scratch', 'inner', 'diary.txt'), 'INNER-DIARY\n');
      },
    });
    const command = 'cat inner/diary.txt; ls -a inner; mv inner moved; rm -rf inner; echo x > inner/new.txt';
    const result = await runInSandbox(project, { authority: 'policy', cwd: project.at('scratch'), command });
    expect(result.stdout).not.toContain('INNER-DIARY');
    expect(result.stdout).not.toContain('diary.txt');
    expect(readFileSync(project.at('scratch', 'inner', 'diary.txt'), 'utf8')).toBe('INNER-DIARY\n');
    expect(existsSync(project.at('scratch', 'moved'))).toBe(false);
    expect(existsSync(project.at('scratch', 'inner', 'new.txt'))).toBe(false);
    const approved = await runInSandbox(project, { authority: 'person', cwd: project.at('scratch'), command: 'cat inner/diary.txt' });
    expect(approved.stdout).toBe('INNER-DIARY\n');
  });
});

describe('toolgate\'s own files', () => {
  it('stay hidden from every command, approved or not, when the policy lives in a writable zone', async () => {
    const project = await createProject({
      policyIn: 'scratch',
      zoneLines: ['    - { name: scratch, root: ./scratch, mode: rw, approval: { read: allow, write: allow, delete: allow } }'],
    });
    const state = project.at('scratch', '.toolgate');
    mkdirSync(state);
    writeFileSync(path.join(state, 'approvals.json'), '{"v":1,"approvals":[]}\n');
    const policyText = readFileSync(project.policyFile, 'utf8');
    const command = 'cat toolgate.yaml; cat .toolgate/approvals.json; echo "{}" > .toolgate/approvals.json; echo "mode: approve_all" > toolgate.yaml; rm -rf .toolgate; mv .toolgate old-state';
    for (const authority of ['policy', 'person'] as const) {
      const result = await runInSandbox(project, { authority, cwd: project.at('scratch'), command });
      expect(result.stdout).not.toContain('approvals');
      expect(result.stdout).not.toContain('fs:');
      expect(readFileSync(project.policyFile, 'utf8')).toBe(policyText);
      expect(readFileSync(path.join(state, 'approvals.json'), 'utf8')).toBe('{"v":1,"approvals":[]}\n');
      expect(existsSync(project.at('scratch', 'old-state'))).toBe(false);
    }
  });
});

describe("a zone's hidden files", () => {
  const zoneLines = ['    - { name: scratch, root: ./scratch, mode: rw, approval: { read: allow, write: allow, delete: allow }, hidden: [".env*", "!.env.example", "keys/"] }'];

  it('are hidden by the kernel from a command the analysis cannot follow, even one a person approved; the rest of the zone is there', async () => {
    const project = await createProject({ zoneLines });
    writeFileSync(project.at('scratch', '.env'), 'API_KEY=sk-live-123\n');
    writeFileSync(project.at('scratch', '.env.example'), 'API_KEY=\n');
    mkdirSync(project.at('scratch', 'keys'));
    writeFileSync(project.at('scratch', 'keys', 'id'), 'PRIVATE-KEY\n');
    // The name is assembled at run time: no path the analysis reads names it.
    const command = 'n=.en; k=keys; cat "${n}v" "$k/id"; cat .env.example; echo done > out.txt';
    const result = await runApproved(project, { cwd: project.at('scratch'), command });
    expect(result.stdout).not.toContain('sk-live');
    expect(result.stdout).not.toContain('PRIVATE-KEY');
    expect(result.stdout).toContain('API_KEY=');
    expect(readFileSync(project.at('scratch', 'out.txt'), 'utf8')).toBe('done\n');
    // The policy layer refuses a name it can read, before anything runs.
    await expect(runApproved(project, { cwd: project.at('scratch'), command: 'cat .env' })).rejects.toThrow(/hides \(hidden: \.env\*\)/);
    // The control: without the pattern, the same command reads the secret.
    const control = await createProject({ zoneLines: [zoneLines[0]!.replace(/, hidden: \[.*\]/, '')] });
    writeFileSync(control.at('scratch', '.env'), 'API_KEY=sk-live-123\n');
    mkdirSync(control.at('scratch', 'keys'));
    writeFileSync(control.at('scratch', 'keys', 'id'), 'PRIVATE-KEY\n');
    const read = await runApproved(control, { cwd: control.at('scratch'), command });
    expect(read.stdout).toContain('sk-live');
    expect(read.stdout).toContain('PRIVATE-KEY');
  });

  it('a hidden file created after the tool was built is hidden too; a zone too large to search refuses to run rather than run unhidden', async () => {
    const project = await createProject({ zoneLines });
    writeFileSync(project.at('scratch', '.env.local'), 'LATE-SECRET\n');
    const late = await runApproved(project, { cwd: project.at('scratch'), command: 'n=.env; cat "$n.local"; true' });
    expect(late.stdout).not.toContain('LATE-SECRET');
    for (let index = 0; index < 21; index++) {
      const folder = project.at('scratch', `d${index}`);
      mkdirSync(folder);
      for (let file = 0; file < 1000; file++) writeFileSync(path.join(folder, `f${file}`), '');
    }
    await expect(runApproved(project, { cwd: project.at('scratch'), command: 'true' })).rejects.toThrow(/the files zone scratch hides could not all be found \(it holds more than 20,000 entries/);
  });
});

describe('sandbox.profile, the operator\'s own profile', () => {
  it('narrows what the policy grants, even for an approved command', async () => {
    const project = await createProject({ sandbox: ['profile:', '  read_write: [./scratch]', '  read_only: [./guarded]', '  hidden: [./scratch/secret.txt]'] });
    writeFileSync(project.at('scratch', 'secret.txt'), 'OPERATOR-SECRET\n');
    const guarded = await runInSandbox(project, { authority: 'person', cwd: project.at('guarded'), command: 'echo x > approved.txt' });
    expect(guarded.exitCode).not.toBe(0);
    expect(existsSync(project.at('guarded', 'approved.txt'))).toBe(false);
    const secret = await runInSandbox(project, { authority: 'person', cwd: project.at('scratch'), command: 'cat secret.txt; echo y > y.txt' });
    expect(secret.stdout).not.toContain('OPERATOR-SECRET');
    expect(readFileSync(project.at('scratch', 'y.txt'), 'utf8')).toBe('y\n');
    // A zone the operator's profile does not list is not in the sandbox at all.
    const unlisted = await runInSandbox(project, { authority: 'person', cwd: project.at('careful'), command: 'ls; cat victim.txt' });
    expect(unlisted.exitCode).not.toBe(0);
    expect(unlisted.stdout).not.toContain('VICTIM');
    await expect(runApproved(project, { cwd: project.at('careful'), command: 'ls' })).rejects.toThrow(ShellCommandRefusedError);
    // And the policy layer judges against the same narrowed profile.
    await expect(runApproved(project, { cwd: project.at('guarded'), command: 'echo x > approved.txt' })).rejects.toThrow(ShellCommandRefusedError);
  });

  it('never widens: listing a zone whose writes ask as read_write gives an unapproved command nothing more', async () => {
    const project = await createProject({ sandbox: ['profile:', '  read_write: [./guarded, ./careful, /]'] });
    const result = await runInSandbox(project, { authority: 'policy', cwd: project.at('guarded'), command: 'echo x > widened.txt; rm -f victim.txt; echo y > /widened.txt' });
    expect(result.exitCode).not.toBe(0);
    expect(existsSync(project.at('guarded', 'widened.txt'))).toBe(false);
    expect(existsSync(project.at('guarded', 'victim.txt'))).toBe(true);
    expect(existsSync('/widened.txt')).toBe(false);
  });
});

describe('through the gate', () => {
  it('runs an allowed command with the unapproved profile and an approved one with what was approved', async () => {
    const project = await createProject();
    const gate = createGate({ policy: project.policy, tools: [project.shell], mode: 'approve_all' });
    const execute = async (command: string, cwd: string) => {
      const authorization = await gate.authorize({ tool: 'shell', args: { command, cwd }, callId: `call-${command}` }, { sessionId: 'per-call' });
      if (authorization.decision !== 'allow' && authorization.decision !== 'approved') throw new Error(`${authorization.decision}: ${authorization.reason}`);
      // As the AI SDK adapter passes it on.
      const passed = authorization.decision === 'approved' ? { decision: 'approved' as const, payload: authorization.request?.payload } : { decision: 'allow' as const };
      return { decision: authorization.decision, result: await project.shell.execute(authorization.args as { command: string; cwd: string }, { authorization: passed }) };
    };
    const allowed = await execute('git status --short', project.at('guarded'));
    expect(allowed.decision).toBe('allow');
    const approved = await execute('echo approved > approved.txt', project.at('guarded'));
    expect(approved.decision).toBe('approved');
    expect(readFileSync(project.at('guarded', 'approved.txt'), 'utf8')).toBe('approved\n');
  });

  it('refuses to run a call let through as allowed when the tool now asks', async () => {
    const project = await createProject();
    await expect(
      project.shell.execute({ command: 'echo x > x.txt', cwd: project.at('guarded') }, { authorization: { decision: 'allow' } }),
    ).rejects.toThrow(/now needs a person's approval/);
    expect(existsSync(project.at('guarded', 'x.txt'))).toBe(false);
  });

  it('refuses an approval given for another command line', async () => {
    const project = await createProject();
    await expect(
      project.shell.execute({ command: 'echo x > x.txt', cwd: project.at('guarded') }, { authorization: { decision: 'approved', payload: { command: 'echo harmless', cwd: project.at('guarded') } } }),
    ).rejects.toThrow(/not the command that was approved/);
    expect(existsSync(project.at('guarded', 'x.txt'))).toBe(false);
    // The same line approved in another directory is not approved here.
    await expect(
      project.shell.execute({ command: 'echo x > x.txt', cwd: project.at('guarded') }, { authorization: { decision: 'approved', payload: { command: 'echo x > x.txt', cwd: project.at('scratch') } } }),
    ).rejects.toThrow(/another working directory/);
    expect(existsSync(project.at('guarded', 'x.txt'))).toBe(false);
  });
});

describe('the built-in tools a policy file configures', () => {
  it('wire the per-call sandbox: unapproved calls get the narrow profile, approved ones what was approved', async () => {
    const project = await createProject();
    const loaded = await loadPolicyFile(project.policyFile);
    const { sandbox, tools } = await createBuiltinTools({ loaded, cwd: project.root });
    expect(sandbox.mode).toBe('sandboxed');
    const shell = tools.find((tool) => tool.name === 'shell') as ShellTool;
    const command = 'echo x > from-runtime.txt';
    const unapproved = await shell.execute({ command: `${command} || echo REFUSED`, cwd: project.at('guarded') });
    expect(unapproved.stdout).toContain('REFUSED');
    expect(existsSync(project.at('guarded', 'from-runtime.txt'))).toBe(false);
    const approved = await shell.execute({ command, cwd: project.at('guarded') }, { authorization: { decision: 'approved', payload: { command, cwd: project.at('guarded') } } });
    expect(approved.exit_code, approved.stderr).toBe(0);
    expect(readFileSync(project.at('guarded', 'from-runtime.txt'), 'utf8')).toBe('x\n');
  });
});

describe('createShellTool', () => {
  it('refuses the old fixed-profile wrapCommand option rather than run commands unsandboxed', async () => {
    const project = await createProject();
    const legacy = { policy: project.policy, zones: project.zones, cwd: project.root, wrapCommand: () => ({ command: 'bwrap', args: [] }) };
    expect(() => createShellTool(legacy as Parameters<typeof createShellTool>[0])).toThrow(/no longer takes wrapCommand/);
  });
});
