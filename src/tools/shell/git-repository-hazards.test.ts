import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
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
    // git lower-cases the subsection of the legacy [section.sub] form.
    expect(reasons(root).join('\n')).toContain('diff.txt.textconv');
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
    // Not a gitlink of the outer repository: a reader there does not enter it.
    expect(gitRepositoryHazards({ directory: root, readsOnly: true }).reasons).toEqual([]);
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

  it('reads submodules\' configurations under .git/modules, with or without .gitmodules', () => {
    const module = path.join(root, '.git', 'modules', 'lib');
    mkdirSync(module, { recursive: true });
    writeFileSync(path.join(module, 'config'), '[core]\n\tfsmonitor = ./evil\n');
    expect(reasons(root).join('\n')).toContain(path.join(module, 'config'));
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

describe('gitRepositoryHazards: keys that make git run something whatever their value', () => {
  it.each([
    ['tar "tar.gz"', 'command', 'gzip -cn', 'tar.tar.gz.command'],
    ['protocol "ext"', 'allow', 'always', 'protocol.ext.allow'],
    ['protocol', 'allow', 'always', 'protocol.allow'],
    ['url "ext::sh -c x"', 'insteadOf', 'https://example.com/', 'url.ext::sh -c x.insteadof'],
    ['url "x"', 'pushInsteadOf', 'y', 'url.x.pushinsteadof'],
    ['extensions', 'partialClone', 'origin', 'extensions.partialclone'],
    ['remote "origin"', 'promisor', 'true', 'remote.origin.promisor'],
    ['remote "origin"', 'vcs', 'x', 'remote.origin.vcs'],
    ['gpg "ssh"', 'defaultKeyCommand', 'x', 'gpg.ssh.defaultkeycommand'],
    ['hook "x"', 'command', 'x', 'hook.x.command'],
    ['help', 'browser', 'x', 'help.browser'],
    ['remote "origin"', 'uploadpack', 'x', 'remote.origin.uploadpack'],
    ['credential "https://example.com"', 'helper', 'x', 'credential.https://example.com.helper'],
  ])('[%s] %s = %s asks, naming %s', (section, key, value, named) => {
    appendFileSync(path.join(root, '.git', 'config'), `[${section}]\n\t${key} = ${value}\n`);
    expect(reasons(root).join('\n')).toContain(named);
  });

  it.each([
    ['url = "ext"::sh -c x', 'quoted pieces joined'],
    ['url = e"x"t::sh', 'a quote inside the word'],
    ['url = \\\n ext::sh', 'a continued line'],
    ['url = fd::3', 'another remote helper'],
    ['pushurl = "ext::sh" # comment', 'a comment after the value'],
  ])('reads a remote URL as git does: %s (%s)', (line) => {
    appendFileSync(path.join(root, '.git', 'config'), `[remote "o"]\n\t${line}\n`);
    expect(reasons(root).join('\n')).toMatch(/remote\.o\.(push)?url to a [a-z]+:: URL/);
  });

  it('lets an ordinary remote, a fetch refspec and submodule.*.update = checkout through', () => {
    appendFileSync(path.join(root, '.git', 'config'), '[remote "origin"]\n\turl = "https://example.com/x.git"\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[submodule "a"]\n\tupdate = checkout\n\turl = git@example.com:a.git\n');
    expect(reasons(root)).toEqual([]);
  });
});

describe('gitRepositoryHazards: repositories embedded at gitlinks', () => {
  const commitIn = (directory: string) => {
    git(directory, 'init', '-q');
    writeFileSync(path.join(directory, 'f'), 'f\n');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'add', 'f'], { cwd: directory, stdio: 'ignore' });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'x'], { cwd: directory, stdio: 'ignore' });
  };
  const embed = (parent: string, name: string) => {
    const directory = path.join(parent, name);
    mkdirSync(directory, { recursive: true });
    commitIn(directory);
    // `git add` of a directory holding a repository records a gitlink: no .gitmodules.
    execFileSync('git', ['add', name], { cwd: parent, stdio: 'ignore' });
    return directory;
  };

  it('reads the configuration of a repository recorded as a gitlink without .gitmodules', () => {
    const embedded = embed(root, 'nest');
    expect(reasons(root)).toEqual([]);
    appendFileSync(path.join(embedded, '.git', 'config'), '[core]\n\tfsmonitor = touch /tmp/x\n');
    expect(reasons(root).join('\n')).toContain(`${path.join(embedded, '.git', 'config')} sets core.fsmonitor`);
    expect(reasons(path.join(root, 'sub')).join('\n')).toContain('core.fsmonitor');
  });

  it('reads its hooks, a gitdir: file it has, and repositories embedded in it', () => {
    const embedded = embed(root, 'a');
    const deeper = embed(embedded, 'b');
    execFileSync('git', ['add', 'b'], { cwd: embedded, stdio: 'ignore' });
    const hook = path.join(embedded, '.git', 'hooks', 'post-index-change');
    writeFileSync(hook, '#!/bin/sh\n');
    chmodSync(hook, 0o755);
    expect(reasons(root).join('\n')).toContain(path.join(embedded, '.git', 'hooks'));
    rmSync(hook);
    appendFileSync(path.join(deeper, '.git', 'config'), '[diff]\n\texternal = x\n');
    expect(reasons(root).join('\n')).toContain(`${path.join(deeper, '.git', 'config')} sets diff.external`);
    // The embedded repository's .git as a gitdir: file that points elsewhere.
    const elsewhere = path.join(root, 'elsewhere.git');
    execFileSync('mv', [path.join(deeper, '.git'), elsewhere]);
    writeFileSync(path.join(deeper, '.git'), `gitdir: ${elsewhere}\n`);
    expect(reasons(root).join('\n')).toContain(`${path.join(elsewhere, 'config')} sets diff.external`);
  });

  it.each([
    ['index version 4', ['update-index', '--index-version', '4']],
    ['a split index', ['update-index', '--split-index']],
    ['index version 3 (an intent-to-add entry has extended flags)', ['add', '-N', 'later.txt']],
  ])('reads gitlinks from %s', (_name, command) => {
    embed(root, 'one');
    const embedded = embed(root, 'two/deep/er');
    writeFileSync(path.join(root, 'later.txt'), 'x\n');
    execFileSync('git', command, { cwd: root, stdio: 'ignore' });
    if (command[0] === 'add') expect(readFileSync(path.join(root, '.git', 'index')).readUInt32BE(4)).toBe(3);
    appendFileSync(path.join(embedded, '.git', 'config'), '[core]\n\tfsmonitor = x\n');
    expect(reasons(root).join('\n')).toContain(path.join(embedded, '.git', 'config'));
  });

  it('reads gitlinks from a SHA-256 repository', () => {
    const repository = path.join(root, 'sha256');
    mkdirSync(repository);
    execFileSync('git', ['init', '-q', '--object-format=sha256'], { cwd: repository, stdio: 'ignore' });
    const embedded = path.join(repository, 'inner');
    mkdirSync(embedded);
    execFileSync('git', ['init', '-q', '--object-format=sha256'], { cwd: embedded, stdio: 'ignore' });
    writeFileSync(path.join(embedded, 'f'), 'f\n');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'add', 'f'], { cwd: embedded, stdio: 'ignore' });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'x'], { cwd: embedded, stdio: 'ignore' });
    execFileSync('git', ['add', 'inner'], { cwd: repository, stdio: 'ignore' });
    appendFileSync(path.join(embedded, '.git', 'config'), '[core]\n\tfsmonitor = x\n');
    expect(reasons(repository).join('\n')).toContain(path.join(embedded, '.git', 'config'));
  });

  it('asks for more gitlinks than it reads, and for an index it cannot read', () => {
    const object = execFileSync('git', ['hash-object', '-t', 'commit', '--stdin'], { cwd: root, input: 'tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nx\n' }).toString().trim();
    for (let index = 0; index < 65; index++) execFileSync('git', ['update-index', '--add', '--cacheinfo', `160000,${object},link${index}`], { cwd: root, stdio: 'ignore' });
    expect(reasons(root).join('\n')).toMatch(/more than 64 embedded repositories/);
    writeFileSync(path.join(root, '.git', 'index'), 'DIRC\u0000\u0000\u0000\u0009');
    expect(reasons(root).join('\n')).toMatch(/index .*cannot be checked/);
  });
});

describe('gitRepositoryHazards with nested zones', () => {
  it('finds a bare repository planted at a zone that holds another zone, from inside the inner one', () => {
    const project = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-git-nested-zone-')));
    try {
      git(project, 'init', '-q', '--bare');
      appendFileSync(path.join(project, 'config'), '[diff]\n\texternal = ./x\n');
      const inner = path.join(project, 'inner');
      mkdirSync(inner);
      expect(gitRepositoryHazards({ directory: inner, zoneRoots: [inner, project] }).reasons.join('\n')).toContain('diff.external');
      // Above every zone and inside none: not looked at.
      expect(gitRepositoryHazards({ directory: path.join(inner, 'x'), zoneRoots: [path.join(inner, 'x')] }).reasons).toEqual([]);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});

describe('gitRepositoryHazards: repositories a writing command could embed', () => {
  it('reads every repository in the work tree for a command that may write the index, not for a reader', () => {
    const untracked = path.join(root, 'vendor', 'x');
    mkdirSync(untracked, { recursive: true });
    git(untracked, 'init', '-q');
    appendFileSync(path.join(untracked, '.git', 'config'), '[core]\n\tfsmonitor = touch /tmp/x\n');
    // git add -A would record it as a gitlink, and a git status after it runs its fsmonitor.
    expect(gitRepositoryHazards({ directory: root }).reasons.join('\n')).toContain(`${path.join(untracked, '.git', 'config')} sets core.fsmonitor`);
    expect(gitRepositoryHazards({ directory: root, readsOnly: true }).reasons).toEqual([]);
  });

  it('asks when the work tree is larger than it searches', () => {
    for (let index = 0; index <= 4000; index++) mkdirSync(path.join(root, 'many', `d${index}`), { recursive: true });
    expect(gitRepositoryHazards({ directory: root }).reasons.join('\n')).toMatch(/more than 4000 directories/);
    expect(gitRepositoryHazards({ directory: root, readsOnly: true }).reasons).toEqual([]);
  });
});
