import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyzeCommand } from './analyze-command.ts';
import { gitCommandConcerns } from './git-command-concerns.ts';

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
