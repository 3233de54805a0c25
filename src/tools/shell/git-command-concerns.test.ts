import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyzeCommand } from './analyze-command.ts';
import { gitCommandConcerns } from './git-command-concerns.ts';
import { createShellFixture } from '../../../test/shell-fixture.ts';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-git-concerns-')));
  execFileSync('git', ['init', '-q'], { cwd: root, stdio: 'ignore' });
  // A directory planted to look like a repository: HEAD, objects, refs and a config that names a program.
  for (const name of ['planted', 'other']) {
    const directory = path.join(root, name);
    mkdirSync(path.join(directory, 'objects'), { recursive: true });
    mkdirSync(path.join(directory, 'refs'));
    writeFileSync(path.join(directory, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(path.join(directory, 'config'), `[diff]\n\texternal = ./${name}.sh\n`);
  }
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function concerns(line: string, cwd = root): Promise<string> {
  const command = analyzeCommand(line).commands[0]!;
  return (await gitCommandConcerns({ name: 'git', words: command.words, cwd, home: os.homedir(), judge: async () => {}, zoneRoots: [root] })).join('\n');
}

describe('gitCommandConcerns: where git takes its repository from', () => {
  it('git --bare takes the directory it is reached in, after -C, unless --git-dir came first', async () => {
    expect(await concerns('git diff', path.join(root, 'planted'))).toContain(path.join('planted', 'config'));
    expect(await concerns('git --bare diff HEAD~1 HEAD', path.join(root, 'planted'))).toContain(path.join('planted', 'config'));
    expect(await concerns('git -C planted --bare diff')).toContain(path.join('planted', 'config'));
    expect(await concerns('git --git-dir=other --bare diff')).toContain(path.join('other', 'config'));
    expect(await concerns('git --git-dir=other --bare diff')).not.toContain(path.join('planted', 'config'));
    // A later --git-dir replaces what --bare set.
    expect(await concerns('git --bare --git-dir=../other diff', path.join(root, 'planted'))).toContain(path.join('other', 'config'));
    expect(await concerns('git --bare diff')).toBe('');
  });
});

describe('gitCommandConcerns: a repository reached through a file', () => {
  async function judged(line: string, cwd: string): Promise<{ path: string; operation: string }[]> {
    const command = analyzeCommand(line).commands[0]!;
    const calls: { path: string; operation: string }[] = [];
    await gitCommandConcerns({ name: 'git', words: command.words, cwd, home: os.homedir(), judge: async (entry) => void calls.push({ path: entry.path, operation: entry.operation }), zoneRoots: [root] });
    return calls;
  }

  it('judges the target of a gitdir: file as a path git reads, or writes when the subcommand writes', async () => {
    const elsewhere = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-git-elsewhere-')));
    try {
      execFileSync('git', ['init', '-q'], { cwd: elsewhere, stdio: 'ignore' });
      const linked = path.join(root, 'linked');
      mkdirSync(linked);
      writeFileSync(path.join(linked, '.git'), `gitdir: ${path.join(elsewhere, '.git')}\n`);
      expect(await judged('git log', linked)).toEqual([{ path: path.join(elsewhere, '.git'), operation: 'read' }]);
      expect(await judged('git branch -D topic', linked)).toContainEqual({ path: path.join(elsewhere, '.git'), operation: 'write' });
      // A repository found in place is judged as read too (here inside the zone, so allowed).
      expect(await judged('git log', root)).toEqual([{ path: path.join(root, '.git'), operation: 'read' }]);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("judges a linked worktree's shared directory (commondir) too", async () => {
    const worktreeGit = path.join(root, 'wt-git');
    mkdirSync(worktreeGit);
    writeFileSync(path.join(worktreeGit, 'commondir'), '../other\n');
    const worktree = path.join(root, 'wt');
    mkdirSync(worktree);
    writeFileSync(path.join(worktree, '.git'), 'gitdir: ../wt-git\n');
    expect(await judged('git status', worktree)).toEqual([
      { path: worktreeGit, operation: 'read' },
      { path: path.join(root, 'other'), operation: 'read' },
    ]);
  });
});


describe('gitCommandConcerns: object directories borrowed through alternates', () => {
  it('judges every directory objects/info/alternates names, and theirs in turn, as paths git reads', async () => {
    const borrowed = path.join(root, 'borrowed', 'objects');
    const further = path.join(root, 'further', 'objects');
    mkdirSync(path.join(root, '.git', 'objects', 'info'), { recursive: true });
    mkdirSync(path.join(borrowed, 'info'), { recursive: true });
    mkdirSync(further, { recursive: true });
    writeFileSync(path.join(root, '.git', 'objects', 'info', 'alternates'), `# a comment\n${borrowed}\n`);
    writeFileSync(path.join(borrowed, 'info', 'alternates'), '../../further/objects\n');
    const command = analyzeCommand('git show HEAD').commands[0]!;
    const calls: { path: string; operation: string }[] = [];
    await gitCommandConcerns({ name: 'git', words: command.words, cwd: root, home: os.homedir(), judge: async (entry) => void calls.push({ path: entry.path, operation: entry.operation }), zoneRoots: [root] });
    expect(calls).toEqual([
      { path: borrowed, operation: 'read' },
      { path: further, operation: 'read' },
      { path: path.join(root, '.git'), operation: 'read' },
    ]);
  });
});

describe('the shell tool: a .git file that points out of the zones', () => {
  it("blocks git there, naming the repository it would read, and still allows git in a repository of the zone's own", async () => {
    const fixture = createShellFixture();
    try {
      execFileSync('git', ['init', '-q'], { cwd: path.join(fixture.root, 'outside'), stdio: 'ignore' });
      mkdirSync(path.join(fixture.root, 'ws', 'planted'));
      writeFileSync(path.join(fixture.root, 'ws', 'planted', '.git'), 'gitdir: ../../outside/.git\n');
      const verdict = await fixture.tool.decide({ command: 'git status', cwd: 'ws/planted' });
      expect(verdict.decision).toBe('block');
      expect(verdict.reasons.join('\n')).toContain(path.join(fixture.root, 'outside', '.git'));
      execFileSync('git', ['init', '-q'], { cwd: path.join(fixture.root, 'ws'), stdio: 'ignore' });
      expect((await fixture.tool.decide({ command: 'git status', cwd: 'ws' })).decision).toBe('allow');
    } finally {
      fixture.remove();
    }
  });
  it('blocks git in a zone inside a bigger repository, whose history holds the files outside the zone', async () => {
    const fixture = createShellFixture({ shell: { rules: [{ match: 'git', decision: 'allow' }] } });
    try {
      // The project's repository is at the fixture's root, above the zone ws: `git show HEAD:../outside/secret.txt` prints a file no zone shows.
      execFileSync('git', ['init', '-q'], { cwd: fixture.root, stdio: 'ignore' });
      for (const command of ['git show HEAD:../outside/secret.txt', 'git log -p', 'git status', 'git grep secret HEAD -- :/']) {
        const verdict = await fixture.tool.decide({ command, cwd: 'ws' });
        expect(verdict.decision, command).toBe('block');
        expect(verdict.reasons.join('\n'), command).toContain(`"${path.join(fixture.root, '.git')}"`);
      }
    } finally {
      fixture.remove();
    }
  });
});
