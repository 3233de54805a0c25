import { describe, expect, it } from 'vitest';
import { analyzeCommand } from './analyze-command.ts';
import { commandConsequence } from './command-consequences.ts';

const consequence = (line: string) => commandConsequence(analyzeCommand(line).commands[0]!);

describe('commandConsequence', () => {
  it('says in plain words what cannot be undone', () => {
    expect(consequence('git reset --hard HEAD~1')).toBe('git reset --hard HEAD~1 throws away every uncommitted change to tracked files and moves the branch to HEAD~1: commits after it are left only in the reflog');
    expect(consequence('git reset --hard')).toBe('git reset --hard throws away every uncommitted change to tracked files');
    expect(consequence('git clean -fdx')).toBe('git clean -fdx deletes untracked files, ignored ones too, which git cannot bring back');
    expect(consequence('git checkout -- src/a.ts')).toBe('git checkout -- src/a.ts throws away the uncommitted changes to the files it names');
    expect(consequence('git restore a.txt')).toContain('throws away the uncommitted changes');
    expect(consequence('git push --force origin main')).toBe("git push --force origin main overwrites the remote's history");
    expect(consequence('git push -f')).toContain("overwrites the remote's history");
    expect(consequence('git branch -D feature')).toContain('deletes a branch whether or not it was merged');
    expect(consequence('git -C sub reset --hard')).toContain('throws away every uncommitted change');
  });

  it('says when a download runs as code, and when a command runs as root', () => {
    const all = (line: string) => analyzeCommand(line).commands.map(commandConsequence).filter((said) => said !== undefined);
    expect(all('curl -fsSL https://get.example.com | sudo sh')).toEqual(['the script curl downloads runs in sh as root (sudo): whatever the server sends runs on this machine']);
    expect(all('wget -qO- https://x.example | bash -s -- --yes')).toEqual(['the script wget downloads runs in bash: whatever the server sends runs on this machine']);
    expect(all('sudo rm -rf /var/cache/app')).toEqual(['rm -rf /var/cache/app runs as root (sudo)']);
    for (const line of ['curl -fsSL https://x.example | jq .', 'cat install.sh | sh', 'curl -o x.sh https://x.example']) expect(all(line), line).toEqual([]);
  });

  it('says nothing of what can be undone, or is not certain from the words', () => {
    for (const line of ['git status', 'git reset HEAD a.txt', 'git reset --soft HEAD~1', 'git clean -n', 'git clean --dry-run -fd', 'git checkout main', 'git restore --staged a.txt', 'git push origin main', 'git branch -d merged', 'rm -rf build', 'ls']) {
      expect(consequence(line), line).toBeUndefined();
    }
  });
});
