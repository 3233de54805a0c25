import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitRepositoryHazards } from './git-repository-hazards.ts';

let root: string;

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'ignore' });
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-git-hazards-')));
  git(root, 'init', '-q');
  mkdirSync(path.join(root, 'sub'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const reasons = (directory: string, knownSubcommand = true) => gitRepositoryHazards({ directory, knownSubcommand }).reasons;

describe('gitRepositoryHazards', () => {
  it('finds nothing in a fresh repository (sample hooks are not hooks), or outside any repository', () => {
    expect(reasons(root)).toEqual([]);
    expect(reasons(path.join(root, 'sub'))).toEqual([]);
    expect(gitRepositoryHazards({ directory: path.join(root, 'sub') }).repository?.top).toBe(root);
  });

  it.each([
    ['core', 'fsmonitor', '"rm -rf ."', 'core.fsmonitor'],
    ['core', 'pager', 'sh -c x', 'core.pager'],
    ['core', 'hooksPath', '.husky', 'core.hookspath'],
    ['core', 'sshCommand', 'x', 'core.sshcommand'],
    ['core', 'worktree', '/elsewhere', 'core.worktree'],
    ['diff', 'external', './x.sh', 'diff.external'],
    ['diff "txt"', 'textconv', './x.sh', 'diff.txt.textconv'],
    ['filter "lfs"', 'smudge', './x.sh', 'filter.lfs.smudge'],
    ['filter "lfs"', 'process', './x.sh', 'filter.lfs.process'],
    ['merge "ours"', 'driver', './x.sh', 'merge.ours.driver'],
    ['credential', 'helper', '!x', 'credential.helper'],
    ['gpg', 'program', './x', 'gpg.program'],
    ['sequence', 'editor', './x', 'sequence.editor'],
    ['uploadpack', 'packObjectsHook', './x', 'uploadpack.packobjectshook'],
    ['include', 'path', '../evil.config', 'include.path'],
    ['includeIf "gitdir:/"', 'path', '../evil.config', 'includeif.gitdir:/.path'],
  ])('[%s] %s = %s asks, naming %s', (section, key, value, named) => {
    appendFileSync(path.join(root, '.git', 'config'), `[${section}]\n\t${key} = ${value}\n`);
    expect(reasons(root).join('\n')).toContain(named);
    expect(reasons(path.join(root, 'sub')).join('\n')).toContain(named);
  });

  it('reads [section.sub] headers, key case, continued lines and inline sections', () => {
    appendFileSync(path.join(root, '.git', 'config'), '[Diff.Txt]\n\tTEXTCONV = x\n');
    expect(reasons(root).join('\n')).toContain('diff.Txt.textconv');
    writeFileSync(path.join(root, '.git', 'config'), '[core] fsmonitor = ./x \\\n  .sh\n');
    expect(reasons(root).join('\n')).toContain('core.fsmonitor');
  });

  it('lets core.fsmonitor = true (git\'s own daemon) and plain settings through', () => {
    appendFileSync(path.join(root, '.git', 'config'), '[core]\n\tfsmonitor = true\n\tautocrlf = input\n[user]\n\tname = x\n[remote "origin"]\n\turl = https://example.com/x.git\n');
    expect(reasons(root)).toEqual([]);
  });

  it('asks for a line it cannot read, and for an ext:: remote', () => {
    appendFileSync(path.join(root, '.git', 'config'), '[remote "o"]\n\turl = ext::sh -c x\n');
    expect(reasons(root).join('\n')).toContain('ext::');
    writeFileSync(path.join(root, '.git', 'config'), '[core\n\tfsmonitor = x\n');
    expect(reasons(root).join('\n')).toMatch(/cannot/);
  });

  it('counts aliases only for subcommands git does not know', () => {
    appendFileSync(path.join(root, '.git', 'config'), '[alias]\n\tst = !rm -rf .\n');
    expect(reasons(root, true)).toEqual([]);
    expect(reasons(root, false).join('\n')).toContain('alias st');
  });

  it('asks for executable hooks, also one made executable after a first look', () => {
    const hook = path.join(root, '.git', 'hooks', 'post-index-change');
    writeFileSync(hook, '#!/bin/sh\nrm -rf .\n');
    expect(reasons(root)).toEqual([]);
    chmodSync(hook, 0o755);
    expect(reasons(root).join('\n')).toContain('post-index-change');
  });

  it('counts only post-index-change for a command that reads, every hook for one that writes', () => {
    const hook = path.join(root, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\nrm -rf .\n');
    chmodSync(hook, 0o755);
    expect(gitRepositoryHazards({ directory: root, readsOnly: true }).reasons).toEqual([]);
    expect(gitRepositoryHazards({ directory: root }).reasons.join('\n')).toContain('pre-commit');
  });

  it('sees a config rewritten after a first look (the cache follows the file)', () => {
    expect(reasons(root)).toEqual([]);
    appendFileSync(path.join(root, '.git', 'config'), '[diff]\n\texternal = ./x\n');
    expect(reasons(root).join('\n')).toContain('diff.external');
  });

  it('finds a nested repository before the outer one, and follows gitdir: files', () => {
    const nested = path.join(root, 'vendor', 'lib');
    mkdirSync(nested, { recursive: true });
    git(nested, 'init', '-q');
    appendFileSync(path.join(nested, '.git', 'config'), '[core]\n\tfsmonitor = ./evil\n');
    expect(reasons(nested).join('\n')).toContain(path.join(nested, '.git', 'config'));
    expect(reasons(root)).toEqual([]);
    const linked = path.join(root, 'linked');
    mkdirSync(linked);
    writeFileSync(path.join(linked, '.git'), `gitdir: ${path.join(nested, '.git')}\n`);
    expect(reasons(linked).join('\n')).toContain('core.fsmonitor');
    writeFileSync(path.join(linked, '.git'), 'nonsense\n');
    expect(reasons(linked).join('\n')).toMatch(/does not say where its repository is/);
  });

  it('finds a bare repository the command runs in', () => {
    const bare = path.join(root, 'bare.git');
    mkdirSync(bare);
    git(bare, 'init', '-q', '--bare');
    appendFileSync(path.join(bare, 'config'), '[diff]\n\texternal = ./x\n');
    expect(reasons(bare).join('\n')).toContain('diff.external');
  });

  it('reads submodules\' configurations when .gitmodules exists', () => {
    const module = path.join(root, '.git', 'modules', 'lib');
    mkdirSync(module, { recursive: true });
    writeFileSync(path.join(module, 'config'), '[core]\n\tfsmonitor = ./evil\n');
    expect(reasons(root)).toEqual([]);
    writeFileSync(path.join(root, '.gitmodules'), '[submodule "lib"]\n\tpath = lib\n');
    expect(reasons(root).join('\n')).toContain(path.join(module, 'config'));
  });
});

describe('gitRepositoryHazards with zone roots', () => {
  it('still finds a bare repository planted inside a zone, on the way up', () => {
    const zone = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-git-bare-zone-')));
    try {
      git(zone, 'init', '-q', '--bare');
      appendFileSync(path.join(zone, 'config'), '[diff]\n\texternal = ./x\n');
      mkdirSync(path.join(zone, 'src'));
      expect(gitRepositoryHazards({ directory: path.join(zone, 'src'), zoneRoots: [zone] }).reasons.join('\n')).toContain('diff.external');
    } finally {
      rmSync(zone, { recursive: true, force: true });
    }
  });
});
