/**
 * `toolgate init` looks at the project (issue 39): git, the package manager
 * and its scripts, the common build tools. It proposes rules for them,
 * commented where they run the project's code, and offers to add
 * `.toolgate/` to .gitignore, changing it only on a yes or --gitignore. The
 * generated policy is loaded with the real policy loader and judged by
 * `toolgate check`; real git says whether the line ignores the folder.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { runCli } from './cli-harness.ts';

function folder(files: Record<string, string> = {}, options: { git?: boolean } = {}): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-init-project-'));
  if (options.git === true) execFileSync('git', ['init', '-q'], { cwd: root });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

const policyText = (root: string) => readFileSync(path.join(root, 'toolgate.yaml'), 'utf8');

/** `toolgate check` of one shell command in the project: 0 allowed, 1 blocked, 5 asks. */
async function checkShell(root: string, command: string): Promise<number> {
  return (await runCli(['check', '--tool', 'shell', '--args', JSON.stringify({ command })], { cwd: root })).code;
}

/** Whether real git ignores toolgate's state in the project. */
function gitIgnoresState(root: string): boolean {
  return spawnSync('git', ['check-ignore', '-q', '.toolgate/audit.jsonl'], { cwd: root }).status === 0;
}

const PACKAGE_JSON = JSON.stringify({ name: 'app', scripts: { test: 'vitest run', build: 'tsc -p .', lint: 'eslint .', start: 'node .' } });

describe('toolgate init: rules for what the project has', () => {
  it('a git + npm project with build tools: git reads allowed, scripts and builds proposed commented with why', async () => {
    const root = folder(
      { 'package.json': PACKAGE_JSON, 'package-lock.json': '{}', Makefile: 'all:\n\ttrue\n', 'Cargo.toml': '[package]\n', 'go.mod': 'module app\n', 'pytest.ini': '[pytest]\n', 'pom.xml': '<project/>\n' },
      { git: true },
    );
    const result = await runCli(['init', '--no-gitignore'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('project: a git repository (git status, diff, log allowed); npm (package-lock.json) with test, build, lint; make (Makefile); cargo (Cargo.toml); go (go.mod); pytest (pytest.ini); maven (pom.xml)');
    expect(result.stdout).toContain('rules that run the project\'s code are commented out');
    const text = policyText(root);
    // Active: git's reading commands.
    for (const match of ['git status', 'git diff', 'git log']) expect(text).toMatch(new RegExp(`^    - \\{ match: "${match}", decision: allow \\}`, 'm'));
    // Commented, each with what it runs; the script's command line is quoted from package.json.
    const commented = ['npm test', 'npm run build', 'npm run lint', 'make', 'cargo build', 'cargo test', 'go test', 'pytest', 'mvn test'];
    for (const match of commented) {
      expect(text).toMatch(new RegExp(`^    # - \\{ match: "${match}", decision: allow \\}  # \\S`, 'm'));
      expect(text).not.toMatch(new RegExp(`^    - \\{ match: "${match}"`, 'm'));
    }
    expect(text).toContain('# - { match: "npm test", decision: allow }  # runs scripts.test (vitest run) and its pre/post scripts');
    expect(text).not.toContain('npm run start');
    expect(text).toMatch(/each script runs the project's own code, which\n\s+# the agent can change first\. Left commented, so each asks/);
    // The zones are above the sandbox section, and it says so.
    expect(text).toContain('that can write only where the zones above allow');
    expect(text).not.toContain('zones below');

    // The real loader takes it; check judges it as it says.
    const loaded = await loadPolicyFile(path.join(root, 'toolgate.yaml'));
    expect(loaded.policy.document.mode).toBe('interactive');
    expect(await checkShell(root, 'git status')).toBe(0);
    expect(await checkShell(root, 'git diff')).toBe(0);
    for (const command of ['npm test', 'npm run build', 'make', 'cargo build', 'go test ./...', 'pytest', 'mvn test']) expect(await checkShell(root, command)).toBe(5);
    expect(await checkShell(root, 'rm -rf .')).toBe(1);

    // Uncommented, every proposed rule is valid and does what it says.
    writeFileSync(path.join(root, 'toolgate.yaml'), text.replace(/^    # (- \{ match: "[^"]+", decision: allow \})/gm, '    $1'));
    await loadPolicyFile(path.join(root, 'toolgate.yaml'));
    for (const command of ['npm test', 'npm run build', 'npm run lint', 'make', 'cargo build', 'cargo test', 'go test ./...', 'pytest', 'mvn test']) expect(await checkShell(root, command)).toBe(0);
  });

  it.each([
    ['pnpm', { 'pnpm-lock.yaml': '' }, 'pnpm (pnpm-lock.yaml)', ['pnpm test', 'pnpm run build']],
    ['yarn', { 'yarn.lock': '' }, 'yarn (yarn.lock)', ['yarn test', 'yarn run build']],
    ['bun', { 'bun.lock': '' }, 'bun (bun.lock)', ['bun run test', 'bun run build']],
    ['npm without a lockfile', {}, 'npm (package.json)', ['npm test', 'npm run build']],
  ] as const)('%s: the scripts are run the way that package manager runs them', async (_name, lockfiles, evidence, commands) => {
    const root = folder({ 'package.json': JSON.stringify({ scripts: { test: 'jest', build: 'webpack' } }), ...lockfiles });
    const result = await runCli(['init'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${evidence} with test, build`);
    for (const command of commands) expect(policyText(root)).toContain(`# - { match: "${command}", decision: allow }`);
    await loadPolicyFile(path.join(root, 'toolgate.yaml'));
  });

  it('package.json\'s packageManager field wins over a stale lockfile', async () => {
    const root = folder({ 'package.json': JSON.stringify({ packageManager: 'pnpm@9.1.0', scripts: { test: 'vitest' } }), 'package-lock.json': '{}' });
    expect((await runCli(['init'], { cwd: root })).stdout).toContain('pnpm (package.json packageManager) with test');
    expect(policyText(root)).toContain('# - { match: "pnpm test", decision: allow }');
  });

  it('a project with no package.json, no git and no build file gets only the generic rules, and no question about .gitignore', async () => {
    const root = folder({ 'README.md': '# notes\n' });
    const result = await runCli(['init'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('project: no git repository, package manager or build tool found; only the generic rules');
    expect(result.stdout).not.toContain('.gitignore');
    const text = policyText(root);
    expect(text).not.toMatch(/match: "(git status|npm test|make)"/);
    expect(text).toContain('- { match: rm, decision: block');
    await loadPolicyFile(path.join(root, 'toolgate.yaml'));
    expect(await checkShell(root, 'ls')).toBe(0);
    expect(await checkShell(root, 'git status')).toBe(5);
    expect(() => readFileSync(path.join(root, '.gitignore'))).toThrow();
  });

  it('package.json is the project\'s text: a script cannot write policy through the comment that quotes it', async () => {
    const hostile = { scripts: { test: 'vitest\nmode: approve_all\nshell: { default: allow }', build: 'tsc\r\u2028fs: {}\u0085x\u202eevil', lint: 'x'.repeat(500) } };
    const root = folder({ 'package.json': JSON.stringify(hostile) });
    expect((await runCli(['init'], { cwd: root })).code).toBe(0);
    const loaded = await loadPolicyFile(path.join(root, 'toolgate.yaml'));
    expect(loaded.policy.document.mode).toBe('interactive');
    expect(loaded.policy.document.shell?.default).toBe('ask');
    const text = policyText(root);
    expect(text).toContain('# runs scripts.test (vitest mode: approve_all shell: { default: allow }) and its pre/post scripts');
    expect(text).not.toMatch(/[\r\u2028\u0085\u202e]/);
    // A long command is cut, so the line stays readable.
    expect(text.split('\n').every((line) => line.length < 200)).toBe(true);
    expect(await runCli(['check', '--tool', 'write_file', '--args', '{"path":"a.txt","content":"b"}'], { cwd: root })).toMatchObject({ code: 5 });
  });

  it('a package.json that is not JSON: npm without scripts, and a note saying why', async () => {
    const root = folder({ 'package.json': '{ "scripts": { "test": ' });
    const result = await runCli(['init'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('npm (package.json), no test, build or lint script');
    expect(result.stdout).toContain('note: package.json is not valid JSON: its scripts were not read');
    await loadPolicyFile(path.join(root, 'toolgate.yaml'));
  });

  it('pyproject.toml says pytest only when it configures pytest', async () => {
    const without = folder({ 'pyproject.toml': '[project]\nname = "app"\n' });
    await runCli(['init'], { cwd: without });
    expect(policyText(without)).not.toContain('"pytest"');
    const configured = folder({ 'pyproject.toml': '[tool.pytest.ini_options]\naddopts = "-q"\n' });
    await runCli(['init'], { cwd: configured });
    expect(policyText(configured)).toContain('# - { match: "pytest", decision: allow }');
  });

  it('finds the repository from a subfolder of it', async () => {
    const root = folder({ 'packages/app/package.json': PACKAGE_JSON }, { git: true });
    const app = path.join(root, 'packages', 'app');
    const result = await runCli(['init', '--no-gitignore'], { cwd: app });
    expect(result.stdout).toContain('a git repository');
    expect(policyText(app)).toContain('- { match: "git status", decision: allow }');
  });
});

describe('toolgate init: .toolgate/ and .gitignore', () => {
  it('without a terminal and without a flag: .gitignore is left as it is, and init says how to add the line', async () => {
    const root = folder({ '.gitignore': 'node_modules/\n' }, { git: true });
    const result = await runCli(['init'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('.gitignore: .toolgate/ is not in it; `toolgate init --gitignore` adds that line (no terminal to ask)');
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('node_modules/\n');
    expect(result.stderr).not.toContain('[y/N]');
  });

  it('--gitignore appends exactly one line, after a last line with no newline, and git then ignores the folder', async () => {
    const root = folder({ '.gitignore': 'node_modules/\ndist' }, { git: true });
    expect(gitIgnoresState(root)).toBe(false);
    const result = await runCli(['init', '--gitignore'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`.gitignore: added .toolgate/ to ${path.join(root, '.gitignore')}`);
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('node_modules/\ndist\n.toolgate/\n');
    expect(gitIgnoresState(root)).toBe(true);
    // Again, with the policy there: the policy left as it is, the line not added twice, and that is success.
    const policy = readFileSync(path.join(root, 'toolgate.yaml'), 'utf8');
    const again = await runCli(['init', '--gitignore'], { cwd: root });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('toolgate.yaml is already there: left as it is');
    expect(again.stdout).toContain('.gitignore: already ignores .toolgate/');
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('node_modules/\ndist\n.toolgate/\n');
    expect(readFileSync(path.join(root, 'toolgate.yaml'), 'utf8')).toBe(policy);
  });

  it('--gitignore in a project that already has its policy adds the line and exits 0; without it, init exits 1 and names --gitignore', async () => {
    const root = folder({ '.gitignore': 'dist/\n', 'toolgate.yaml': 'mode: ask\n' }, { git: true });
    const plain = await runCli(['init'], { cwd: root });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('is already there: nothing written (--force replaces it; --gitignore adds only the .gitignore line)');
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('dist/\n');
    const result = await runCli(['init', '--gitignore'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`.gitignore: added .toolgate/ to ${path.join(root, '.gitignore')}`);
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('dist/\n.toolgate/\n');
    expect(readFileSync(path.join(root, 'toolgate.yaml'), 'utf8')).toBe('mode: ask\n');
    expect(gitIgnoresState(root)).toBe(true);
  });

  it.each(['/.toolgate', '.toolgate', '**/.toolgate/', '.toolgate/   '])('an existing %j line is left alone', async (line) => {
    const root = folder({ '.gitignore': `dist/\n${line}\n` }, { git: true });
    const result = await runCli(['init', '--gitignore'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('.gitignore: already ignores .toolgate/');
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe(`dist/\n${line}\n`);
    expect(gitIgnoresState(root)).toBe(true);
  });

  it('a later !.toolgate/ un-ignores it, so the line is added after it', async () => {
    const root = folder({ '.gitignore': '.toolgate/\n!.toolgate/\n' }, { git: true });
    expect(gitIgnoresState(root)).toBe(false);
    await runCli(['init', '--gitignore'], { cwd: root });
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('.toolgate/\n!.toolgate/\n.toolgate/\n');
    expect(gitIgnoresState(root)).toBe(true);
  });

  it('a repository without .gitignore: --gitignore creates one with the single line; --no-gitignore creates nothing', async () => {
    const root = folder({}, { git: true });
    const result = await runCli(['init', '--gitignore'], { cwd: root });
    expect(result.stdout).toContain(`.gitignore: created ${path.join(root, '.gitignore')} with .toolgate/`);
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('.toolgate/\n');
    const other = folder({}, { git: true });
    const left = await runCli(['init', '--no-gitignore'], { cwd: other });
    expect(left.code).toBe(0);
    expect(left.stdout).toContain('.gitignore: left as it is; `toolgate init --gitignore` adds .toolgate/');
    expect(() => readFileSync(path.join(other, '.gitignore'))).toThrow();
  });

  it('a .gitignore with Windows line ends gets the line with one too', async () => {
    const root = folder({ '.gitignore': 'dist/\r\nbuild/' }, { git: true });
    await runCli(['init', '--gitignore'], { cwd: root });
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('dist/\r\nbuild/\r\n.toolgate/\r\n');
  });

  it('--policy elsewhere: the .gitignore beside that policy, where its .toolgate/ is', async () => {
    const root = folder({}, { git: true });
    mkdirSync(path.join(root, 'config'));
    await runCli(['init', '--policy', 'config/agent.yaml', '--gitignore'], { cwd: root });
    expect(readFileSync(path.join(root, 'config', '.gitignore'), 'utf8')).toBe('.toolgate/\n');
    expect(spawnSync('git', ['check-ignore', '-q', 'config/.toolgate/audit.jsonl'], { cwd: root }).status).toBe(0);
  });

  it.each([
    [['--gitignore', '--no-gitignore'], 'give --gitignore (add .toolgate/ to .gitignore) or --no-gitignore (leave it as it is), not both'],
    [['--gitignore=yes'], '--gitignore takes no value'],
    [['--no-gitignore=1'], '--no-gitignore takes no value'],
    [['--gitingore'], 'unknown option --gitingore: did you mean --gitignore?'],
  ])('%j exits 2 naming the flag, and writes nothing', async (argv, message) => {
    const root = folder({ '.gitignore': 'dist/\n' }, { git: true });
    const result = await runCli(['init', ...argv], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`toolgate init: ${message}`);
    expect(() => readFileSync(path.join(root, 'toolgate.yaml'))).toThrow();
    expect(readFileSync(path.join(root, '.gitignore'), 'utf8')).toBe('dist/\n');
  });

  it('--help names the flags and says the file is never changed without a yes or --gitignore', async () => {
    const result = await runCli(['init', '--help']);
    for (const flag of ['--gitignore', '--no-gitignore', '--force', '--policy']) expect(result.stdout).toContain(flag);
    expect(result.stdout).toMatch(/never\s+changes the file without a yes or\s+--gitignore/);
  });
});
