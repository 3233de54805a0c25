import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requireWorkingBwrap } from '../../test/require-bwrap.ts';
import { deriveSandboxProfile } from './derive-sandbox-profile.ts';
import { wrapWithBwrap } from './bwrap-sandbox.ts';
import { findVcsMetadata, MAX_UNREAD_DIRECTORIES } from './find-vcs-metadata.ts';
import { runCommand } from './run-command.ts';

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

  it('reports where a .git reached through a symlinked directory really is, when that is inside a root', async () => {
    directory('ws', 'real', 'sub', '.git');
    symlinkSync(path.join(root, 'ws', 'real'), path.join(root, 'ws', 'via'));
    const found = await findVcsMetadata({ roots: [path.join(root, 'ws')], cwd: path.join(root, 'ws', 'via', 'sub') });
    expect(found).toEqual(expect.arrayContaining([path.join(root, 'ws', 'via', 'sub', '.git'), path.join(root, 'ws', 'real', 'sub', '.git')]));
  });

  it('finds every .git from the working directory up to its root, however deep', async () => {
    const deep = directory('ws', 'a', 'b', 'c', 'd', 'e', 'f');
    directory('ws', 'a', 'b', 'c', 'd', 'e', '.git');
    const found = await findVcsMetadata({ roots: [path.join(root, 'ws')], cwd: deep, maxDepth: 2 });
    // The walk from the working directory up finds it; the search below the root stops at a, leaving a/b (returned: not read).
    expect(found.sort()).toEqual([path.join(root, 'ws', 'a', 'b'), path.join(root, 'ws', 'a', 'b', 'c', 'd', 'e', '.git')]);
  });

  it('fails closed at its depth and directory limits: the directories it did not read are returned', async () => {
    directory('ws', 'a', 'b', 'c', 'd', '.git');
    expect(await findVcsMetadata({ roots: [path.join(root, 'ws')], maxDepth: 4 })).toEqual([path.join(root, 'ws', 'a', 'b', 'c', 'd')]);
    expect(await findVcsMetadata({ roots: [path.join(root, 'ws')], maxDepth: 5 })).toEqual([path.join(root, 'ws', 'a', 'b', 'c', 'd', '.git')]);
    for (let index = 0; index < 20; index += 1) directory('ws', `sibling-${String(index).padStart(2, '0')}`);
    directory('ws', 'sibling-19', '.git');
    const found = await findVcsMetadata({ roots: [path.join(root, 'ws')], maxDirectories: 5 });
    // The planted .git lies in a directory not read: that directory comes back whole.
    expect(found).toContain(path.join(root, 'ws', 'sibling-19'));
    expect(found).not.toContain(path.join(root, 'ws'));
  });

  it('returns the whole root when more directories than it may list were left unread', async () => {
    for (let index = 0; index < MAX_UNREAD_DIRECTORIES + 10; index += 1) directory('other', `d${index}`);
    directory('ws', 'a');
    const found = await findVcsMetadata({ roots: [path.join(root, 'ws'), path.join(root, 'other')], maxDirectories: 3 });
    // ws was read whole (ws, then ws/a); only other's directories were left unread.
    expect(found).toEqual([path.join(root, 'other')]);
    // Within the default limits, nothing is left unread here.
    expect(await findVcsMetadata({ roots: [path.join(root, 'ws'), path.join(root, 'other')] })).toEqual([]);
  });

  it('returns nothing for roots that do not exist', async () => {
    expect(await findVcsMetadata({ roots: [path.join(root, 'missing')], cwd: path.join(root, 'missing', 'x') })).toEqual([]);
  });
});

describe('findVcsMetadata in a real bubblewrap sandbox', () => {
  /** Runs `command` in the zone `ws` (writes and deletes allowed) as a command nobody approved, with the .git entries found now. */
  async function run(command: string, maxDirectories: number) {
    await requireWorkingBwrap();
    const ws = path.join(root, 'ws');
    const zones = [{ name: 'ws', root: ws, mode: 'rw' as const, approval: { read: 'allow' as const, write: 'allow' as const, delete: 'allow' as const } }];
    const paths = await findVcsMetadata({ roots: [ws], cwd: ws, maxDirectories });
    const profile = deriveSandboxProfile({ zones, authority: 'policy', network: false, vcsMetadata: { paths }, homeDirectory: path.join(root, 'home') });
    return runCommand({ ...wrapWithBwrap({ profile, command: '/bin/bash', args: ['-c', command], cwd: ws }), timeoutMs: 20_000 });
  }

  it('a .git behind many directories made first stays read-only for an unapproved command', async () => {
    for (let index = 0; index < 30; index += 1) directory('ws', `filler-${String(index).padStart(2, '0')}`);
    const repository = directory('ws', 'zz', 'repo', '.git');
    writeFileSync(path.join(repository, 'config'), '[core]\n');
    const result = await run('echo "[core] fsmonitor = x" >> zz/repo/.git/config; mkdir zz/repo/.git/hooks', 10);
    expect(result.exitCode).not.toBe(0);
    expect(readFileSync(path.join(repository, 'config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(path.join(repository, 'hooks'))).toBe(false);
    // What the search did read stays writable.
    expect((await run('echo ok > filler-00/note.txt && cat filler-00/note.txt', 10)).stdout).toBe('ok\n');
  });

  it('past the limit of unread directories the whole zone is read-only for it', async () => {
    for (let index = 0; index < MAX_UNREAD_DIRECTORIES + 10; index += 1) directory('ws', 'many', `d${index}`);
    const result = await run('echo x > note.txt', 3);
    expect(result.exitCode).not.toBe(0);
    expect(existsSync(path.join(root, 'ws', 'note.txt'))).toBe(false);
  });
});
