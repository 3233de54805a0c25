/**
 * Ways a repository made git run a program that the first repository check
 * missed (issue 11, the security review): a repository embedded at a
 * gitlink (no .gitmodules) whose core.fsmonitor git status runs, or one
 * `git add` records just before `git status` in the same line, keys that
 * run programs whatever their value (tar.<format>.command; a partial
 * clone's promisor remote reached through a quoted "ext"::), `git --bare`
 * making the working directory the repository, and a bare repository
 * planted in a zone that holds another zone. Each is first shown to be
 * real (plain git runs the planted command), then judged (the shell tool,
 * `toolgate check`) and executed through the gate in auto_deny mode and
 * the shell tool, without a sandbox and in real bubblewrap, in zone `free`
 * (writes and deletes allowed, so the sandbox alone would not stop it):
 * the planted command must not run.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { createGate } from '../src/core/gate.ts';
import { zonesFromPolicy } from '../src/tools/fs/zones.ts';
import { createShellTool } from '../src/tools/shell/create-shell-tool.ts';
import { runCli } from './cli-harness.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';
import { createWorkspaceCodeFixture, git, type WorkspaceCodeFixture } from './workspace-code-fixture.ts';

let fixture: WorkspaceCodeFixture;
beforeAll(async () => {
  fixture = await createWorkspaceCodeFixture();
});
afterAll(() => fixture.cleanup());

/** A fresh repository with two commits and a victim file, in `parent`. */
function repository(parent: string, name: string): string {
  const directory = path.join(parent, name);
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  git(directory, 'init', '-q');
  writeFileSync(path.join(directory, 'victim.txt'), 'victim\n');
  writeFileSync(path.join(directory, 'a.txt'), 'a\n');
  git(directory, 'add', '.');
  git(directory, 'commit', '-q', '-m', 'first');
  writeFileSync(path.join(directory, 'a.txt'), 'b\n');
  git(directory, 'commit', '-q', '-am', 'second');
  return directory;
}

/** What each attack plants in a repository, and the command that sets it off. */
interface Attack {
  name: string;
  command: string;
  /** Plants it in `directory` (a repository made by `repository`); the planted program deletes `victim`. */
  plant(directory: string, victim: string): void;
  /** Words the reason must hold. */
  named: string;
}

const ATTACKS: readonly Attack[] = [
  {
    name: 'a repository embedded at a gitlink, without .gitmodules, runs its core.fsmonitor on git status at the top',
    command: 'git status',
    plant(directory, victim) {
      const nested = repository(directory, 'sub');
      git(directory, 'add', 'sub');
      git(directory, 'commit', '-q', '-m', 'embed');
      git(nested, 'config', 'core.fsmonitor', `rm -f ${victim}; true`);
    },
    named: 'sub/.git/config sets core.fsmonitor',
  },
  {
    name: 'an untracked repository recorded by git add in the same line runs its core.fsmonitor on the git status after it',
    command: 'git add sub && git status',
    plant(directory, victim) {
      const nested = repository(directory, 'sub');
      git(nested, 'config', 'core.fsmonitor', `rm -f ${victim}; true`);
    },
    named: 'sub/.git/config sets core.fsmonitor',
  },
  {
    name: 'tar.<format>.command runs on git archive',
    command: 'git archive --format=tar.gz HEAD',
    plant(directory, victim) {
      appendFileSync(path.join(directory, '.git', 'config'), `[tar "tar.gz"]\n\tcommand = rm -f ${victim}; cat\n`);
    },
    named: 'tar.tar.gz.command',
  },
  {
    name: 'a partial clone fetches a missing object through a quoted "ext":: remote on git show',
    command: 'git show 1111111111111111111111111111111111111111',
    plant(directory, victim) {
      appendFileSync(
        path.join(directory, '.git', 'config'),
        `[core]\n\trepositoryformatversion = 1\n[extensions]\n\tpartialClone = origin\n[protocol "ext"]\n\tallow = always\n[remote "origin"]\n\tpromisor = true\n\turl = "ext"::sh -c rm% -f% ${victim}\n`,
      );
    },
    named: 'extensions.partialclone',
  },
  {
    name: 'git --bare makes the working directory the repository, whose diff.external runs',
    command: 'git --bare diff HEAD~1 HEAD',
    plant(directory, victim) {
      writeFileSync(path.join(directory, 'HEAD'), 'ref: refs/heads/main\n');
      symlinkSync('.git/objects', path.join(directory, 'objects'));
      symlinkSync('.git/refs', path.join(directory, 'refs'));
      writeFileSync(path.join(directory, 'config'), `[core]\n\tbare = true\n[diff]\n\texternal = rm -f ${victim}; true\n`);
    },
    named: 'diff.external',
  },
];

describe('the attacks are real: plain git runs what was planted', () => {
  it.each(ATTACKS.map((attack) => [attack.name, attack] as const))('%s', (_name, attack) => {
    const scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bypass-')));
    try {
      const directory = repository(scratch, 'r');
      const victim = path.join(directory, 'victim.txt');
      attack.plant(directory, victim);
      try {
        execFileSync('bash', ['-c', `${attack.command} >/dev/null`], { cwd: directory, stdio: 'ignore' });
      } catch {
        // git may fail after running it (the fetch finds nothing): what counts is that it ran.
      }
      expect(existsSync(victim)).toBe(false);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('judged: the shell tool and toolgate check ask, naming what git would run', () => {
  it.each(ATTACKS.map((attack, index) => [attack.name, attack, index] as const))('%s', async (_name, attack, index) => {
    const directory = repository(fixture.free, `judged-${index}`);
    attack.plant(directory, path.join(directory, 'victim.txt'));
    const cwd = `free/judged-${index}`;
    const verdict = await fixture.decide(attack.command, cwd);
    expect(verdict.decision).toBe('ask');
    expect(verdict.reasons.join('\n')).toContain(attack.named);
    const result = await runCli(['check', '--tool', 'shell', '--args', JSON.stringify({ command: attack.command, cwd }), '--json', '--mode', 'interactive'], { cwd: fixture.root });
    expect(result.code).toBe(5);
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toMatchObject({ decision: 'ask', reason: expect.stringContaining(attack.named) });
  });

  it('the same commands in clean repositories stay allowed', async () => {
    const directory = repository(fixture.free, 'clean');
    const nested = repository(directory, 'sub');
    git(directory, 'add', 'sub');
    expect(existsSync(path.join(nested, '.git'))).toBe(true);
    for (const command of ['git status', 'git diff HEAD~1 HEAD', 'git archive --format=tar.gz HEAD', 'git show HEAD', 'git add sub && git status', 'git commit -qm x']) {
      expect(await fixture.decide(command, 'free/clean'), command).toEqual({ decision: 'allow', reasons: [] });
    }
  });
});

for (const sandboxed of [false, true]) {
  describe(`executed through the gate and the shell tool, ${sandboxed ? 'in a real bubblewrap sandbox' : 'without a sandbox'}: the planted command does not run`, () => {
    beforeAll(async () => {
      if (sandboxed) await requireWorkingBwrap();
    });
    it.each(ATTACKS.map((attack, index) => [attack.name, attack, index] as const))('%s', async (_name, attack, index) => {
      const name = `run-${sandboxed ? 'bwrap' : 'plain'}-${index}`;
      const directory = repository(fixture.free, name);
      const victim = path.join(directory, 'victim.txt');
      attack.plant(directory, victim);
      expect(await fixture.run(attack.command, { sandboxed, cwd: `free/${name}` })).toMatchObject({ ran: false, decision: 'denied' });
      expect(existsSync(victim)).toBe(true);
    });
  });
}

describe('nested zones: a bare repository planted in the outer zone is found from the inner one', () => {
  let root: string;
  beforeAll(() => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-nested-zones-')));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  for (const sandboxed of [false, true]) {
    it(`git diff HEAD~1 HEAD in the inner zone asks and does not run diff.external (${sandboxed ? 'bubblewrap' : 'no sandbox'})`, async () => {
      if (sandboxed) await requireWorkingBwrap();
      const project = path.join(root, sandboxed ? 'bwrap' : 'plain');
      const source = repository(root, `source-${sandboxed ? 'bwrap' : 'plain'}`);
      // The outer zone's root is itself a bare repository, with the source's objects.
      cpSync(path.join(source, '.git'), project, { recursive: true });
      const victim = path.join(project, 'inner', 'victim.txt');
      mkdirSync(path.join(project, 'inner'));
      writeFileSync(victim, 'victim\n');
      appendFileSync(path.join(project, 'config'), `[core]\n\tbare = true\n[diff]\n\texternal = rm -f ${victim}; true\n`);
      const policyFile = path.join(project, 'inner', '..', '..', `toolgate-${sandboxed ? 'bwrap' : 'plain'}.yaml`);
      writeFileSync(
        policyFile,
        [
          'mode: auto_deny',
          'fs:',
          '  zones:',
          `    - { name: inner, root: ${project}/inner, mode: rw, approval: { read: allow, write: allow, delete: allow } }`,
          `    - { name: project, root: ${project}, mode: rw, approval: { read: allow, write: ask, delete: block } }`,
          'shell:',
          '  default: ask',
          '  rules:',
          '    - { match: "git", decision: allow }',
        ].join('\n'),
      );
      const { policy } = await loadPolicyFile(policyFile);
      const zones = zonesFromPolicy({ policy, policyDirectory: root });
      const { wrapWithBwrap } = await import('../src/sandbox/bwrap-sandbox.ts');
      const tool = createShellTool({ policy, zones, cwd: root, ...(sandboxed ? { sandbox: { wrap: wrapWithBwrap } } : {}) });
      const verdict = await tool.decide({ command: 'git diff HEAD~1 HEAD', cwd: `${project}/inner` });
      expect(verdict.decision).toBe('ask');
      expect(verdict.reasons.join('\n')).toContain('diff.external');
      const gate = createGate({ policy, tools: [tool] });
      const authorization = await gate.authorize({ tool: 'shell', args: { command: 'git diff HEAD~1 HEAD', cwd: `${project}/inner` }, callId: 'nested' }, { sessionId: 'nested' });
      expect(authorization.decision).toBe('denied');
      // Plain git from the inner zone does run it: the check is what stops it.
      execFileSync('git', ['diff', 'HEAD~1', 'HEAD'], { cwd: path.join(project, 'inner'), stdio: 'ignore' });
      expect(existsSync(victim)).toBe(false);
    });
  }
});

describe('GIT_DIR given to git', () => {
  it.each(['GIT_DIR=. git diff HEAD~1 HEAD', 'env GIT_DIR=. git diff HEAD~1 HEAD', 'git --git-dir=. diff HEAD~1 HEAD', 'git --bare log'])('%s asks in a directory planted as a repository', async (command) => {
    const directory = repository(fixture.free, 'git-dir');
    ATTACKS.find((attack) => attack.command.startsWith('git --bare'))!.plant(directory, path.join(directory, 'victim.txt'));
    expect((await fixture.decide(command, 'free/git-dir')).decision).toBe('ask');
  });
});
