import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { analyzeCommand } from './analyze-command.ts';
import { gitSubcommand, isKnownGitSubcommand, type GitEffect } from './git-subcommands.ts';
import { commandPaths } from './path-arguments.ts';

function effect(line: string): GitEffect {
  return gitSubcommand(analyzeCommand(line).commands[0]!.words).effect;
}

function uses(line: string): string[] {
  const [command] = analyzeCommand(line).commands;
  return commandPaths({ name: command!.name!, words: command!.words }).paths.map((entry) => `${entry.use}${entry.into === true ? '-into' : ''}:${entry.word.value}`);
}

describe('gitSubcommand', () => {
  it.each([
    'git status', 'git diff', 'git diff --stat HEAD~1', 'git log --oneline -20', 'git show HEAD', 'git blame a.txt', 'git grep TODO', 'git ls-files', 'git rev-parse --abbrev-ref HEAD',
    'git branch', 'git branch -a', 'git branch --list', 'git branch --show-current', 'git tag', 'git tag -l', 'git remote -v', 'git remote get-url origin', 'git stash list',
    'git stash show -p', 'git worktree list', 'git config --get user.name', 'git config get user.name', 'git config --list', 'git reflog', 'git notes list', 'git submodule status',
    'git clean -n', 'git clean -nd', 'git rm -n a', 'git apply --check x.diff', 'git apply --stat x.diff', 'git format-patch --stdout HEAD~1', 'git --version', 'git', 'git -C sub status',
    'git bisect log', 'git fsck', 'git merge-file -p a b c',
  ])('%s reads only', (line) => {
    expect(effect(line)).toBe('read');
  });

  it.each([
    'git commit -m x', 'git add a.txt', 'git fetch', 'git push', 'git tag v1', 'git tag -d v1', 'git branch -D topic', 'git branch new', 'git branch --list -d x', 'git gc', 'git prune',
    'git config core.pager cat', 'git remote add o url', 'git reset', 'git reset HEAD a.txt', 'git rm --cached a', 'git restore --staged a', 'git apply --cached x.diff', 'git notes add -m x',
    'git update-ref refs/heads/x HEAD', 'git init',
  ])('%s writes the repository', (line) => {
    expect(effect(line)).toBe('repository');
  });

  it.each(['git format-patch HEAD~1', 'git interpret-trailers --in-place msg', 'git merge-file a b c', 'git worktree add ../wt', 'git checkout-index -a'])('%s writes the work tree', (line) => {
    expect(effect(line)).toBe('worktree');
  });

  it.each([
    'git rm a.txt', 'git clean -fd', 'git clean -fdx', 'git checkout -- .', 'git checkout main', 'git switch main', 'git restore a.txt', 'git reset --hard', 'git reset --merge',
    'git stash', 'git stash -u', 'git stash push --include-untracked', 'git stash pop', 'git stash drop', 'git mv a b', 'git apply x.diff', 'git am x.mbox', 'git merge topic',
    'git rebase main', 'git pull', 'git cherry-pick abc', 'git revert abc', 'git worktree remove wt', 'git submodule update', 'git sparse-checkout set a', 'git read-tree -u HEAD',
    'git bisect start', 'git filter-branch x',
  ])('%s can delete files', (line) => {
    expect(effect(line)).toBe('delete');
  });

  it.each(['git st', 'git co main', 'git frobnicate', 'git -c alias.x=y x'])('%s is unknown (an alias or a git-NAME program)', (line) => {
    expect(effect(line)).toBe('unknown');
  });

  it('knows every subcommand this git lists', () => {
    const listed = execFileSync('git', ['--list-cmds=main,nohelpers'], { encoding: 'utf8' }).split('\n').filter((name) => name !== '' && !name.includes('.'));
    const unknown = listed.filter((name) => !isKnownGitSubcommand(name));
    expect(unknown).toEqual([]);
  });
});

describe('git paths', () => {
  it('judges the working directory as written by writers and deleted by deleters', () => {
    expect(uses('git status')).toEqual([]);
    expect(uses('git commit -m x')).toEqual(['write-into:.']);
    expect(uses('git clean -fd')).toEqual(['write-into:.', 'delete-into:.']);
    expect(uses('git -C sub reset --hard')).toEqual(['read:sub', 'write-into:.', 'delete-into:.']);
    // Its operand is a commit, not a file to write: the whole work tree is what it rewrites.
    expect(uses('git reset --hard HEAD~1')).toEqual(['write-into:.', 'delete-into:.', 'read:HEAD~1']);
  });

  it('deletes the operands of git rm and git mv, rewrites those of git checkout --', () => {
    expect(uses('git rm -r src')).toEqual(['write-into:.', 'delete-into:.', 'delete:src']);
    expect(uses('git mv a b')).toEqual(['write-into:.', 'delete-into:.', 'delete:a', 'delete:b']);
    expect(uses('git checkout -- a.txt')).toEqual(['write-into:.', 'delete-into:.', 'write:a.txt']);
    expect(uses('git rm --cached a.txt')).toEqual(['write-into:.', 'read:a.txt']);
  });

  it('writes the output of git diff --output and git format-patch -o', () => {
    expect(uses('git diff --output=../x.diff')).toEqual(['write:../x.diff']);
    expect(uses('git format-patch -o out HEAD~1')).toEqual(['write-into:.', 'write:out', 'read:HEAD~1']);
    expect(uses('git ls-files -o')).toEqual([]);
  });

  it('is unsure about paths read from a file', () => {
    const [command] = analyzeCommand('git add --pathspec-from-file=list.txt').commands;
    expect(commandPaths({ name: 'git', words: command!.words }).unsure[0]).toMatch(/reads the paths it works on from a file/);
  });
});

describe('the one table of git subcommands', () => {
  const traits = (line: string) => gitSubcommand(analyzeCommand(line).commands[0]!.words).traits;

  it('gives each subcommand its effect, network use and layout together', () => {
    expect(traits('git status')).toEqual({ effect: 'read', network: false, keepsLayout: true });
    expect(traits('git -C lib fetch origin')).toEqual({ effect: 'repository', network: true, keepsLayout: true });
    expect(traits('git pull')).toEqual({ effect: 'delete', network: true, keepsLayout: false });
    expect(traits('git checkout main')).toEqual({ effect: 'delete', network: false, keepsLayout: false });
    expect(traits('git archive HEAD')).toEqual({ effect: 'read', network: false, keepsLayout: false });
  });

  it('knows send-email only for its network use: its effect is not modelled, so it is not a known subcommand', () => {
    expect(traits('git send-email x.patch')).toEqual({ effect: 'unknown', network: true, keepsLayout: false });
    expect(isKnownGitSubcommand('send-email')).toBe(false);
    expect(effect('git send-email x.patch')).toBe('unknown');
  });

  it('has no traits for an alias, a bare git, --help or a subcommand known only at run time', () => {
    for (const line of ['git st', 'git', 'git --help', 'git "$x"', 'git constructor', 'git toString']) expect(traits(line), line).toBeUndefined();
    expect(isKnownGitSubcommand('constructor')).toBe(false);
  });
});
