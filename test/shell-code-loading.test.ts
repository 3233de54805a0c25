/**
 * Issue class 1: allowed commands that load code from the workspace. `git
 * status` runs `core.fsmonitor`, `git diff` runs `diff.external`, git runs
 * hooks, package managers run lifecycle scripts, build tools run build
 * files. Under a broad `git: allow` and `npm: allow`, in a zone that asks
 * before writes and blocks deletes, none of that may run unasked: judged
 * (the shell tool's decision, and `toolgate check`) and executed (the gate
 * in auto_deny mode and the built-in shell tool, without a sandbox and with
 * real bubblewrap), checking on the host that nothing was deleted or
 * written. Controls in a clean repository stay allowed and run.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';
import { createWorkspaceCodeFixture, git, type WorkspaceCodeFixture } from './workspace-code-fixture.ts';

let fixture: WorkspaceCodeFixture;
const originalConfig = new Map<string, string>();

beforeAll(async () => {
  fixture = await createWorkspaceCodeFixture();
  for (const repository of [fixture.ws, fixture.free]) originalConfig.set(repository, readFileSync(path.join(repository, '.git', 'config'), 'utf8'));
});
afterAll(() => fixture.cleanup());
// Each case starts from clean repositories: configuration, hooks, files.
afterEach(() => {
  for (const [repository, config] of originalConfig) {
    writeFileSync(path.join(repository, '.git', 'config'), config);
    for (const name of ['pre-commit', 'post-index-change', 'post-checkout']) rmSync(path.join(repository, '.git', 'hooks', name), { force: true });
    writeFileSync(path.join(repository, 'victim.txt'), 'victim\n');
    git(repository, 'checkout', '-q', '--', '.');
  }
  rmSync(path.join(fixture.ws, 'vendor'), { recursive: true, force: true });
});

const CONTROLS = ['git status', 'git diff', 'git log --oneline', 'git log --oneline | wc -l', 'git status && git diff --stat', 'git branch', 'git show --stat HEAD', 'ls -la', 'cat README.md', 'grep -r TODO .', 'grep -rn TODO . | head -5', 'npm ls'];

describe('controls in a clean repository stay allowed', () => {
  it.each(CONTROLS)('%s', async (command) => {
    expect(await fixture.decide(command)).toEqual({ decision: 'allow', reasons: [] });
  });
});

/** Configuration keys that name a program, with a value that would delete the victim. */
const PROGRAM_KEYS: readonly [section: string, key: string, named: string][] = [
  ['core', 'fsmonitor', 'core.fsmonitor'],
  ['core', 'pager', 'core.pager'],
  ['core', 'editor', 'core.editor'],
  ['core', 'sshCommand', 'core.sshcommand'],
  ['core', 'hooksPath', 'core.hookspath'],
  ['diff', 'external', 'diff.external'],
  ['diff "evil"', 'textconv', 'diff.evil.textconv'],
  ['diff "evil"', 'command', 'diff.evil.command'],
  ['filter "evil"', 'clean', 'filter.evil.clean'],
  ['filter "evil"', 'smudge', 'filter.evil.smudge'],
  ['filter "evil"', 'process', 'filter.evil.process'],
  ['merge "evil"', 'driver', 'merge.evil.driver'],
  ['credential', 'helper', 'credential.helper'],
  ['gpg', 'program', 'gpg.program'],
  ['sequence', 'editor', 'sequence.editor'],
  ['uploadpack', 'packObjectsHook', 'uploadpack.packobjectshook'],
  ['include', 'path', 'include.path'],
  ['core', 'worktree', 'core.worktree'],
];

describe('a repository whose configuration names a program makes git ask, naming the key', () => {
  it.each(PROGRAM_KEYS)('[%s] %s', async (section, key, named) => {
    appendFileSync(path.join(fixture.ws, '.git', 'config'), `[${section}]\n\t${key} = rm -f victim.txt; true\n`);
    for (const command of ['git status', 'git diff', 'git log --oneline', 'cd src && git status', 'git -C src status']) {
      const verdict = await fixture.decide(command);
      expect(verdict.decision, command).toBe('ask');
      expect(verdict.reasons.join('\n'), command).toContain(named);
    }
    // Commands that do not run git are not concerned.
    expect((await fixture.decide('cat README.md')).decision).toBe('allow');
  });

  it('a pre-commit hook makes writing subcommands ask, not git status', async () => {
    const hook = path.join(fixture.free, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\nrm -f victim.txt\n');
    chmodSync(hook, 0o755);
    expect((await fixture.decide('git status', 'free')).decision).toBe('allow');
    const verdict = await fixture.decide('git commit -m x', 'free');
    expect(verdict.decision).toBe('ask');
    expect(verdict.reasons.join('\n')).toContain('pre-commit');
  });

  it('an executable hook makes git ask, a sample hook does not', async () => {
    const hook = path.join(fixture.ws, '.git', 'hooks', 'post-index-change');
    writeFileSync(hook, '#!/bin/sh\nrm -f victim.txt\n');
    chmodSync(hook, 0o755);
    const verdict = await fixture.decide('git status');
    expect(verdict.decision).toBe('ask');
    expect(verdict.reasons.join('\n')).toContain('post-index-change');
    rmSync(hook);
    expect((await fixture.decide('git status')).decision).toBe('allow');
  });

  it('a nested repository is judged by its own configuration (cd, -C)', async () => {
    const nested = path.join(fixture.ws, 'vendor', 'lib');
    mkdirSync(nested, { recursive: true });
    git(nested, 'init', '-q');
    appendFileSync(path.join(nested, '.git', 'config'), '[core]\n\tfsmonitor = rm -f ../../victim.txt; true\n');
    for (const command of ['git -C vendor/lib status', 'cd vendor/lib && git status', 'cd vendor && git -C lib diff']) {
      const verdict = await fixture.decide(command);
      expect(verdict.decision, command).toBe('ask');
      expect(verdict.reasons.join('\n'), command).toContain(path.join(nested, '.git', 'config'));
    }
    expect((await fixture.decide('git status')).decision).toBe('allow');
  });

  it('an alias asks: it is not a subcommand toolgate knows', async () => {
    appendFileSync(path.join(fixture.ws, '.git', 'config'), '[alias]\n\tst = !rm -f victim.txt\n');
    const verdict = await fixture.decide('git st');
    expect(verdict.decision).toBe('ask');
    expect(verdict.reasons.join('\n')).toMatch(/not a subcommand toolgate knows/);
    expect((await fixture.decide('git status')).decision).toBe('allow');
  });
});

describe('writing git metadata or another tool\'s code-loading configuration asks in every zone', () => {
  it.each([
    'echo x > .git/config',
    'printf "[core]\\n\\tfsmonitor = rm -f victim.txt\\n" >> .git/config',
    'echo "#!/bin/sh" > .git/hooks/pre-commit',
    'echo "* filter=evil" > .gitattributes',
    'echo "* diff=evil" > .git/info/attributes',
    'echo "[submodule]" > .gitmodules',
    'echo "rm -rf ~" > .envrc',
    'echo "{}" > .vscode/tasks.json',
    'echo "script-shell=./x.sh" > .npmrc',
    'echo "yarnPath: ./x.cjs" > .yarnrc.yml',
    'echo "[target.x]" > .cargo/config.toml',
    'echo "{}" > .github/hooks/x.json',
    'xxd README.md .git/config',
    'split -l 1 README.md .git/hooks/',
    'printf "[core]\\n\\tfsmonitor = rm -f victim.txt\\n" >> .git/config && git status',
    'git status; echo x > .git/config; git status',
  ])('%s (zone free allows writes)', async (command) => {
    const verdict = await fixture.decide(command, 'free');
    expect(verdict.decision).not.toBe('allow');
    // The sandbox profile already keeps .git (and .npmrc) read-only, which blocks; the rest asks.
    expect(verdict.reasons.join('\n')).toMatch(/asks in every zone|the sandbox keeps (hidden or )?read-only/);
  });

  it.each(['echo x > .gitattributes', 'echo x > .envrc', 'echo x > .vscode/tasks.json', 'echo x > sub/.envrc', 'echo x > .husky/pre-commit', 'echo x > .cargo/config.toml'])('%s asks, saying why', async (command) => {
    mkdirSync(path.join(fixture.free, path.dirname(command.split('> ')[1]!)), { recursive: true });
    const verdict = await fixture.decide(command, 'free');
    expect(verdict.decision).toBe('ask');
    expect(verdict.reasons.join('\n')).toMatch(/asks in every zone/);
  });

  it.each(['git init --template=evil sub', 'git init', 'git clone . copy', 'git worktree add ../tree', 'git submodule add ./other sub'])(
    '%s makes a repository (template hooks and config, checked-out files of any name): it asks in every zone',
    async (command) => {
      const verdict = await fixture.decide(command, 'free');
      expect(verdict.decision).not.toBe('allow');
      expect(verdict.reasons.join('\n')).toMatch(/makes a repository|outside|network is off/);
    },
  );

  it('git init --template with a planted hook and config does not run without a person, and leaves no repository', async () => {
    const template = path.join(fixture.free, 'evil-template');
    mkdirSync(path.join(template, 'hooks'), { recursive: true });
    writeFileSync(path.join(template, 'config'), '[core]\n\tfsmonitor = touch planted\n');
    const outcome = await fixture.run('git init --template=evil-template planted-repo', { sandboxed: false, cwd: 'free' });
    expect(outcome.ran).toBe(false);
    expect(existsSync(path.join(fixture.free, 'planted-repo'))).toBe(false);
    expect((await fixture.decide('git worktree list', 'free')).decision).toBe('allow');
  });

  it('a file staged without touching the work tree (hash-object, update-index) is not checked out as .envrc without a person', async () => {
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: fixture.free, input: 'touch planted-by-envrc\n' }).toString().trim();
    git(fixture.free, 'update-index', '--add', '--cacheinfo', `100644,${blob},.envrc`);
    for (const command of ['git checkout -- .', 'git checkout-index -a', 'git restore .', 'git stash pop', 'git apply evil.patch', 'git merge other']) {
      expect((await fixture.decide(command, 'free')).decision, command).not.toBe('allow');
    }
    const outcome = await fixture.run('git checkout -- .', { sandboxed: false, cwd: 'free' });
    expect(outcome.ran).toBe(false);
    expect(existsSync(path.join(fixture.free, '.envrc'))).toBe(false);
    git(fixture.free, 'rm', '-q', '--cached', '.envrc');
    // What names its files in the line, or writes only the repository, stays allowed where writes are.
    expect((await fixture.decide('git add README.md', 'free')).decision).toBe('allow');
    expect((await fixture.decide('git commit -qm x', 'free')).decision).toBe('allow');
  });

  it('ordinary writes in zone free stay allowed', async () => {
    expect((await fixture.decide('echo x > notes.txt', 'free')).decision).toBe('allow');
    expect((await fixture.decide('xxd README.md out.hex', 'free')).decision).toBe('allow');
    expect((await fixture.decide('echo x > .gitignore', 'free')).decision).toBe('allow');
  });
});

describe('package managers, build tools and test runners run project code: a broad allow does not reach them', () => {
  it.each(['npm test', 'npm run build', 'npm start', 'npm rebuild', 'make', 'make test', 'cargo build', 'cargo test', 'go test ./...', 'go generate', 'pytest', 'tox',
    'pnpm build', 'vite build', 'jest', 'eslint .', 'tsc', 'mvn package', 'gradle build', 'direnv allow', 'just', 'rake'])('%s asks', async (command) => {
    const verdict = await fixture.decide(command);
    expect(verdict.decision).toBe('ask');
    expect(verdict.reasons.join('\n')).toMatch(/runs|loads|writes compiled files/);
  });

  // These also use the network, which is off in this policy: they block.
  it.each(['npm install', 'npm i', 'npm ci', 'npm audit fix', 'pip install -e .', 'yarn', 'npm exec x', 'npx vitest'])('%s is not allowed', async (command) => {
    expect((await fixture.decide(command)).decision).not.toBe('allow');
  });

  it('a rule that names the subcommand allows it', async () => {
    const { normalizePolicy } = await import('../src/core/policy/normalize-policy.ts');
    const { zonesFromPolicy } = await import('../src/tools/fs/zones.ts');
    const { createShellTool } = await import('../src/tools/shell/create-shell-tool.ts');
    const policy = normalizePolicy({ fs: { zones: [{ name: 'free', root: fixture.free, mode: 'rw', approval: { write: 'allow', delete: 'allow' } }] }, shell: { rules: [{ match: 'npm test', decision: 'allow' }, { match: 'make', decision: 'allow' }] } });
    const tool = createShellTool({ policy, zones: zonesFromPolicy({ policy, policyDirectory: fixture.root }), cwd: fixture.root });
    expect((await tool.decide({ command: 'npm test' })).decision).toBe('allow');
    expect((await tool.decide({ command: 'make test' })).decision).toBe('allow');
    expect((await tool.decide({ command: 'npm run build' })).decision).toBe('ask');
  });
});

describe('toolgate check says the same', () => {
  async function check(args: Record<string, unknown>, tool = 'shell'): Promise<{ code: number; output: Record<string, unknown> }> {
    // The policy's auto_deny would answer every ask; interactive without a person reports the ask itself.
    const result = await runCli(['check', '--tool', tool, '--args', JSON.stringify(args), '--json', '--mode', 'interactive'], { cwd: fixture.root });
    return { code: result.code, output: JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, unknown> };
  }

  it('git status: allowed in a clean repository, asks once core.fsmonitor names a program', async () => {
    expect((await check({ command: 'git status' })).output).toMatchObject({ decision: 'allow' });
    appendFileSync(path.join(fixture.ws, '.git', 'config'), '[core]\n\tfsmonitor = rm -f victim.txt; true\n');
    const asked = await check({ command: 'git status' });
    expect(asked.code).toBe(5);
    expect(asked.output).toMatchObject({ decision: 'ask', reason: expect.stringContaining('core.fsmonitor') });
  });

  it('redirections and write_file into .git ask even in a zone that allows writes', async () => {
    expect((await check({ command: 'echo x > .git/config', cwd: 'free' })).output).not.toMatchObject({ decision: 'allow' });
    expect((await check({ command: 'echo x > .envrc', cwd: 'free' })).output).toMatchObject({ decision: 'ask' });
    expect((await check({ path: 'free/.git/config', content: '[core]\n' }, 'write_file')).output).toMatchObject({ decision: 'ask' });
    expect((await check({ path: 'free/.envrc', content: 'x\n' }, 'write_file')).output).toMatchObject({ decision: 'ask' });
    expect((await check({ path: 'free/notes.txt', content: 'x\n' }, 'write_file')).output).toMatchObject({ decision: 'allow' });
  });
});

describe('the attacks are real: without toolgate, git runs what the repository names', () => {
  it('git status runs core.fsmonitor, git diff runs diff.external', () => {
    const copy = mkdtempSync(path.join(os.tmpdir(), 'toolgate-attack-'));
    try {
      cpSync(fixture.ws, copy, { recursive: true });
      appendFileSync(path.join(copy, '.git', 'config'), '[core]\n\tfsmonitor = rm -f victim.txt; true\n');
      execFileSync('git', ['status'], { cwd: copy, stdio: 'ignore' });
      expect(existsSync(path.join(copy, 'victim.txt'))).toBe(false);
      writeFileSync(path.join(copy, 'victim.txt'), 'victim\n');
      writeFileSync(path.join(copy, '.git', 'config'), originalConfig.get(fixture.ws)! + '[diff]\n\texternal = rm -f victim.txt; true\n');
      writeFileSync(path.join(copy, 'README.md'), 'changed\n');
      execFileSync('git', ['diff'], { cwd: copy, stdio: 'ignore' });
      expect(existsSync(path.join(copy, 'victim.txt'))).toBe(false);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

for (const sandboxed of [false, true]) {
  describe(`executed through the gate and the shell tool, ${sandboxed ? 'in a real bubblewrap sandbox' : 'without a sandbox (the policy layer alone)'}`, () => {
    beforeAll(async () => {
      if (sandboxed) await requireWorkingBwrap();
    });
    const victim = () => path.join(fixture.ws, 'victim.txt');

    it('controls run', async () => {
      const status = await fixture.run('git status', { sandboxed });
      expect(status).toMatchObject({ ran: true, exitCode: 0 });
      expect(status.stdout).toContain('nothing to commit');
      expect(await fixture.run('git log --oneline', { sandboxed })).toMatchObject({ ran: true, exitCode: 0, stdout: expect.stringContaining('first') });
      expect(await fixture.run('cat README.md', { sandboxed })).toMatchObject({ ran: true, exitCode: 0, stdout: expect.stringContaining('TODO') });
      expect(await fixture.run('grep -r TODO .', { sandboxed })).toMatchObject({ ran: true, exitCode: 0 });
      expect(await fixture.run('ls -la', { sandboxed })).toMatchObject({ ran: true, exitCode: 0, stdout: expect.stringContaining('victim.txt') });
    });

    it('core.fsmonitor does not run: git status is denied, the victim stays', async () => {
      appendFileSync(path.join(fixture.ws, '.git', 'config'), '[core]\n\tfsmonitor = rm -f victim.txt; true\n');
      expect(await fixture.run('git status', { sandboxed })).toMatchObject({ ran: false, decision: 'denied' });
      expect(existsSync(victim())).toBe(true);
    });

    it('diff.external does not run: git diff is denied, the victim stays', async () => {
      appendFileSync(path.join(fixture.ws, '.git', 'config'), '[diff]\n\texternal = rm -f victim.txt; true\n');
      writeFileSync(path.join(fixture.ws, 'README.md'), 'changed\n');
      expect(await fixture.run('git diff', { sandboxed })).toMatchObject({ ran: false, decision: 'denied' });
      expect(existsSync(victim())).toBe(true);
    });

    it('a line that writes .git/config and then runs git does not run (zone free allows writes)', async () => {
      const config = path.join(fixture.free, '.git', 'config');
      const before = readFileSync(config, 'utf8');
      const outcome = await fixture.run('printf "[core]\\n\\tfsmonitor = rm -f victim.txt; true\\n" >> .git/config; git status', { sandboxed, cwd: 'free' });
      expect(outcome.ran).toBe(false);
      expect(readFileSync(config, 'utf8')).toBe(before);
      expect(existsSync(path.join(fixture.free, 'victim.txt'))).toBe(true);
    });

    it('a hook does not run: git status is denied', async () => {
      const hook = path.join(fixture.ws, '.git', 'hooks', 'post-index-change');
      writeFileSync(hook, '#!/bin/sh\nrm -f victim.txt\n');
      chmodSync(hook, 0o755);
      writeFileSync(path.join(fixture.ws, 'src', 'a.txt'), 'touched\n');
      expect(await fixture.run('git status', { sandboxed })).toMatchObject({ ran: false, decision: 'denied' });
      expect(existsSync(victim())).toBe(true);
    });

    it('npm test does not run the project\'s scripts under npm: allow', async () => {
      writeFileSync(path.join(fixture.ws, 'package.json'), JSON.stringify({ name: 'x', scripts: { test: 'rm -f victim.txt' } }));
      try {
        expect(await fixture.run('npm test', { sandboxed })).toMatchObject({ ran: false, decision: 'denied' });
        expect(existsSync(victim())).toBe(true);
      } finally {
        rmSync(path.join(fixture.ws, 'package.json'));
      }
    });
  });
}

describe('programs that run git, and git by its path, are judged by the repository too', () => {
  it.each(['/usr/bin/git status', 'env git status', 'tig', 'lazygit'])('%s asks once core.fsmonitor names a program', async (command) => {
    appendFileSync(path.join(fixture.ws, '.git', 'config'), '[core]\n\tfsmonitor = rm -f victim.txt; true\n');
    const verdict = await fixture.decide(command);
    expect(verdict.decision).not.toBe('allow');
    expect(verdict.reasons.join('\n')).toContain('core.fsmonitor');
  });
});
