/**
 * Issue class 2: commands judged as readers that write or delete. Under a
 * broad `git: allow` (and `xxd`, `split`, `iconv`... allowed), in a zone
 * that asks before writes and blocks deletes, git's writing subcommands
 * ask and its deleting ones block, output operands of writers are writes,
 * lists of files read from a file ask, and a command no grammar knows
 * writes and deletes its operands. Judged (the shell tool's decision) and
 * executed (the gate in auto_deny mode and the built-in shell tool, without
 * a sandbox and with real bubblewrap), checking on the host that nothing
 * was written or deleted. In a zone that allows writes and deletes, the
 * same commands run.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireWorkingBwrap } from './require-bwrap.ts';
import { createWorkspaceCodeFixture, git, type WorkspaceCodeFixture } from './workspace-code-fixture.ts';

let fixture: WorkspaceCodeFixture;

beforeAll(async () => {
  fixture = await createWorkspaceCodeFixture();
});
afterAll(() => fixture.cleanup());
// Each case starts from clean repositories with one untracked file.
afterEach(() => {
  for (const repository of [fixture.ws, fixture.free]) {
    git(repository, 'reset', '-q', '--hard');
    git(repository, 'clean', '-qfdx');
    git(repository, 'stash', 'clear');
    writeFileSync(path.join(repository, 'untracked.txt'), 'untracked\n');
  }
});
beforeAll(() => {
  for (const repository of [fixture.ws, fixture.free]) writeFileSync(path.join(repository, 'untracked.txt'), 'untracked\n');
});

/** Git subcommands that can delete files: zone ws blocks deletes. */
const GIT_DELETERS = [
  'git rm victim.txt', 'git rm -r src', 'git clean -fd', 'git clean -fdx', 'git checkout -- README.md', 'git checkout -- .', 'git checkout HEAD~0 -- .', 'git restore README.md',
  'git reset --hard', 'git reset --hard HEAD', 'git stash', 'git stash -u', 'git stash push --include-untracked', 'git mv victim.txt moved.txt', 'git apply x.diff', 'git am x.mbox',
  'git merge topic', 'git rebase main', 'git cherry-pick HEAD', 'git revert HEAD', 'git switch -c topic', 'git checkout -b topic', 'git worktree remove wt', 'git sparse-checkout set src',
  'git read-tree -u HEAD', 'git -C src clean -fd', 'cd src && git clean -fd',
];

/** Git subcommands that write the repository or the work tree: zone ws asks before writes. */
const GIT_WRITERS = ['git commit -m x', 'git add .', 'git tag v1', 'git branch topic', 'git branch -D topic', 'git gc', 'git config core.x y', 'git notes add -m x', 'git format-patch HEAD', 'git update-ref refs/heads/x HEAD', 'git rm --cached victim.txt'];

/** Writers whose output operand is a file in zone ws. */
const WRITERS = [
  'xxd README.md out.hex', 'xxd README.md victim.txt', 'xxd -r -p dump.hex victim.txt', 'split -l 1 README.md', 'split -l 1 README.md part-', 'iconv -f utf-8 -t latin1 -o victim.txt README.md',
  'sort -o victim.txt README.md', 'echo x > notes.txt', 'cat README.md > victim.txt', 'tar -xf x.tar', 'git diff --output=out.diff',
];

describe('git subcommands are judged by what they do (zone ws: write ask, delete block)', () => {
  it.each(GIT_DELETERS)('%s blocks: it can delete files', async (command) => {
    const verdict = await fixture.decide(command);
    expect(verdict.decision).toBe('block');
    expect(verdict.reasons.join('\n')).toMatch(/blocks deletes/);
  });

  it.each(GIT_WRITERS)('%s asks: it writes', async (command) => {
    const verdict = await fixture.decide(command);
    expect(verdict.decision).toBe('ask');
    expect(verdict.reasons.join('\n')).toMatch(/asks before writes/);
  });

  it.each(['git status', 'git diff', 'git log -p', 'git show HEAD', 'git branch -a', 'git tag -l', 'git stash list', 'git clean -n', 'git rm -n victim.txt', 'git apply --check x.diff', 'git blame README.md', 'git ls-files', 'git grep TODO'])(
    '%s is allowed: it only reads',
    async (command) => {
      expect(await fixture.decide(command)).toEqual({ decision: 'allow', reasons: [] });
    },
  );

  it.each(['git rm victim.txt', 'git clean -fd', 'git commit -m x'])('%s is allowed in zone free, which allows writes and deletes', async (command) => {
    expect((await fixture.decide(command, 'free')).decision).toBe('allow');
  });

  // They write files the repository names (a committed .envrc, .vscode tasks), not the line: like tar -x, they ask in every zone.
  it.each(['git reset --hard', 'git stash -u'])('%s asks in zone free, which allows writes and deletes: it writes files the repository names', async (command) => {
    const verdict = await fixture.decide(command, 'free');
    expect(verdict.decision).toBe('ask');
    expect(verdict.reasons.join('\n')).toMatch(/writes work-tree files named by the repository or a patch/);
  });
});

describe('output operands are writes (zone ws asks before writes)', () => {
  it.each(WRITERS)('%s asks', async (command) => {
    const verdict = await fixture.decide(command);
    expect(verdict.decision).toBe('ask');
    expect(verdict.reasons.join('\n')).toMatch(/asks before writes/);
  });

  it.each(['xxd README.md', 'xxd README.md | head -1', 'split --help', 'iconv -f utf-8 -t latin1 README.md', 'sort README.md', 'cat README.md', 'xxd README.md ../free/out.hex'])('%s is allowed', async (command) => {
    expect((await fixture.decide(command)).decision).toBe('allow');
  });

  it('a writer aimed outside the writable zones blocks', async () => {
    expect((await fixture.decide('xxd README.md ../outside.hex')).decision).toBe('block');
    expect((await fixture.decide('split -l 1 README.md ../x')).decision).toBe('block');
  });
});

describe('lists of files read from a file ask', () => {
  it.each(['du --files0-from=list', 'wc --files0-from=list', 'sort --files0-from=list', 'tar -cf ../free/x.tar -T list', 'git add --pathspec-from-file=list', 'grep -r TODO --files0-from=list'])(
    '%s',
    async (command) => {
      const verdict = await fixture.decide(command, 'free');
      expect(verdict.decision).not.toBe('allow');
      expect(verdict.reasons.join('\n')).toMatch(/listed in another file|reads the paths it works on from a file/);
    },
  );
});

describe('unknown means writer: a command no grammar knows writes and deletes its operands', () => {
  it('under a rule allowing it, it asks in zone ws (it may write or delete there; a person decides), and runs in zone free', async () => {
    const { normalizePolicy } = await import('../src/core/policy/normalize-policy.ts');
    const { zonesFromPolicy } = await import('../src/tools/fs/zones.ts');
    const { createShellTool } = await import('../src/tools/shell/create-shell-tool.ts');
    const policy = normalizePolicy({
      fs: {
        zones: [
          { name: 'ws', root: fixture.ws, mode: 'rw', approval: { write: 'ask', delete: 'block' } },
          { name: 'free', root: fixture.free, mode: 'rw', approval: { write: 'allow', delete: 'allow' } },
        ],
      },
      shell: { rules: [{ match: 'convert', decision: 'allow' }, { match: 'sqlite3', decision: 'allow' }] },
    });
    const tool = createShellTool({ policy, zones: zonesFromPolicy({ policy, policyDirectory: fixture.root }), cwd: fixture.root });
    const inWs = await tool.decide({ command: 'sqlite3 victim.txt .tables', cwd: fixture.ws });
    expect(inWs.decision).toBe('ask');
    expect(inWs.reasons.join('\n')).toMatch(/sqlite3 may write or delete ws:victim.txt, where zone ws blocks deletes: it is not a command toolgate models/);
    // Presumed uses never open what is blocked for other reasons: a hidden path, toolgate's own state.
    const hidden = await tool.decide({ command: 'sqlite3 .toolgate/approvals.json .tables', cwd: fixture.ws });
    expect(hidden.decision).not.toBe('allow');
    // A system path it may read: whether it writes there is for a person (and the sandbox) to hold.
    const system = await tool.decide({ command: 'sqlite3 /usr/share/x.db .tables', cwd: fixture.ws });
    expect(system.decision).toBe('ask');
    expect(system.reasons.join('\n')).toMatch(/may write or delete "\/usr\/share\/x.db", outside the writable zones/);
    // A path it may not even read still blocks.
    expect((await tool.decide({ command: 'sqlite3 ../../../elsewhere.db .tables', cwd: fixture.ws })).decision).toBe('block');
    // A known deleter in the same place still blocks.
    expect((await tool.decide({ command: 'rm victim.txt', cwd: fixture.ws })).decision).toBe('block');
    expect((await tool.decide({ command: 'convert a.png b.png', cwd: fixture.free })).decision).toBe('allow');
  });
});

for (const sandboxed of [false, true]) {
  describe(`executed through the gate and the shell tool, ${sandboxed ? 'in a real bubblewrap sandbox' : 'without a sandbox (the policy layer alone)'}`, () => {
    beforeAll(async () => {
      if (sandboxed) await requireWorkingBwrap();
    });
    const file = (name: string) => path.join(fixture.ws, name);
    const snapshot = () => Object.fromEntries(readdirSync(fixture.ws).filter((name) => name !== '.git').map((name) => [name, existsSync(file(name)) && !name.includes('src') ? readFileSync(file(name), 'utf8') : 'directory']));

    it.each(['git rm victim.txt', 'git clean -fdx', 'git stash -u', 'git reset --hard', 'git checkout -- .', 'git mv victim.txt moved.txt', 'xxd README.md victim.txt', 'split -l 1 README.md', 'iconv -f utf-8 -t latin1 -o victim.txt README.md', 'sort -o victim.txt README.md'])(
      '%s does not run: the files in zone ws are as they were',
      async (command) => {
        writeFileSync(file('README.md'), 'changed, not committed\n');
        const before = snapshot();
        const outcome = await fixture.run(command, { sandboxed });
        expect(outcome.ran, `${command}: ${outcome.reason}`).toBe(false);
        expect(snapshot()).toEqual(before);
        expect(git(fixture.ws, 'stash', 'list')).toBe('');
      },
    );

    it('readers run', async () => {
      expect(await fixture.run('xxd README.md | head -1', { sandboxed })).toMatchObject({ ran: true, exitCode: 0, stdout: expect.stringContaining('00000000') });
      expect(await fixture.run('git diff --stat', { sandboxed })).toMatchObject({ ran: true, exitCode: 0 });
      expect(await fixture.run('git clean -n', { sandboxed })).toMatchObject({ ran: true, exitCode: 0, stdout: expect.stringContaining('untracked.txt') });
    });

    it('writers run in zone free, which allows writes and deletes', async () => {
      const written = await fixture.run('xxd README.md out.hex && iconv -f utf-8 -t latin1 -o converted.txt README.md', { sandboxed, cwd: 'free' });
      expect(written).toMatchObject({ ran: true, exitCode: 0 });
      expect(readFileSync(path.join(fixture.free, 'out.hex'), 'utf8')).toContain('00000000');
      expect(existsSync(path.join(fixture.free, 'converted.txt'))).toBe(true);
    });

    it('split asks even in zone free: the names it writes (prefix plus suffix) could be .envrc', async () => {
      expect(await fixture.run('split -a 1 -l 1 README.md .envr', { sandboxed, cwd: 'free' })).toMatchObject({ ran: false });
      expect(readdirSync(fixture.free).filter((name) => name.startsWith('.envr'))).toEqual([]);
    });
  });
}
