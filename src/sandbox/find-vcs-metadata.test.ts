import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findVcsMetadata } from './find-vcs-metadata.ts';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-vcs-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function directory(...parts: string[]): string {
  const made = path.join(root, ...parts);
  mkdirSync(made, { recursive: true });
  return made;
}

describe('findVcsMetadata', () => {
  it('finds the zone\'s repository, nested ones, and worktree or submodule .git files', async () => {
    directory('ws', '.git', 'hooks');
    directory('ws', 'vendor', 'lib', '.git');
    directory('ws', 'packages', 'a');
    writeFileSync(path.join(root, 'ws', 'packages', 'a', '.git'), 'gitdir: ../../.git/modules/a\n');
    const found = await findVcsMetadata({ roots: [path.join(root, 'ws')] });
    expect(found.sort()).toEqual([path.join(root, 'ws', '.git'), path.join(root, 'ws', 'packages', 'a', '.git'), path.join(root, 'ws', 'vendor', 'lib', '.git')]);
  });

  it('does not look inside .git or node_modules, nor follow symlinked directories', async () => {
    directory('ws', '.git', 'modules', 'x', '.git');
    directory('ws', 'node_modules', 'pkg', '.git');
    directory('outside', 'repo', '.git');
    symlinkSync(path.join(root, 'outside'), path.join(root, 'ws', 'link'));
    expect(await findVcsMetadata({ roots: [path.join(root, 'ws')] })).toEqual([path.join(root, 'ws', '.git')]);
  });

  it('reports a symlinked .git and, when it leads into a root, its target', async () => {
    directory('ws', 'real-git-dir');
    directory('ws', 'repo');
    symlinkSync(path.join(root, 'ws', 'real-git-dir'), path.join(root, 'ws', 'repo', '.git'));
    const found = await findVcsMetadata({ roots: [path.join(root, 'ws')] });
    expect(found.sort()).toEqual([path.join(root, 'ws', 'real-git-dir'), path.join(root, 'ws', 'repo', '.git')]);
  });

  it('finds every .git from the working directory up to its root, however deep', async () => {
    const deep = directory('ws', 'a', 'b', 'c', 'd', 'e', 'f');
    directory('ws', 'a', 'b', 'c', 'd', 'e', '.git');
    const found = await findVcsMetadata({ roots: [path.join(root, 'ws')], cwd: deep, maxDepth: 2 });
    expect(found).toEqual([path.join(root, 'ws', 'a', 'b', 'c', 'd', 'e', '.git')]);
  });

  it('stops at its depth and directory limits', async () => {
    directory('ws', 'a', 'b', 'c', 'd', '.git');
    expect(await findVcsMetadata({ roots: [path.join(root, 'ws')], maxDepth: 4 })).toEqual([]);
    expect(await findVcsMetadata({ roots: [path.join(root, 'ws')], maxDepth: 5 })).toEqual([path.join(root, 'ws', 'a', 'b', 'c', 'd', '.git')]);
    for (let index = 0; index < 20; index += 1) directory('ws', `sibling-${String(index).padStart(2, '0')}`);
    directory('ws', 'sibling-19', '.git');
    expect(await findVcsMetadata({ roots: [path.join(root, 'ws')], maxDirectories: 5 })).toEqual([]);
  });

  it('returns nothing for roots that do not exist', async () => {
    expect(await findVcsMetadata({ roots: [path.join(root, 'missing')], cwd: path.join(root, 'missing', 'x') })).toEqual([]);
  });
});
