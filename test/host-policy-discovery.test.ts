/**
 * One hook for every project (issue 53, point 4): `toolgate hook` without
 * `--policy` judges a call by the policy of the project it is made in, found
 * from the call's directory upwards, and by the user-level policy where the
 * project has none, its zone rooted at that project. A hostile repository
 * can bring its own `toolgate.yaml`, and an agent can write one in a folder
 * below, so a project's policy decides only once the person trusted that
 * very text; and no call may write toolgate's folders in the home, where the
 * user-level policy and the trust records live.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

const PROJECT_POLICY = `version: 1
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: allow, delete: ask } }
shell:
  default: ask
  rules:
    - { match: ls, decision: allow }
    - { match: rm, decision: block, reason: "rm is blocked by the project's policy" }
`;

/** A user's machine: a home (toolgate's folders under it) and a folder for projects. */
function machine(): { home: string; projects: string; env: NodeJS.ProcessEnv } {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-policy-walk-')));
  directories.push(base);
  const home = path.join(base, 'home');
  const projects = path.join(base, 'projects');
  mkdirSync(home);
  mkdirSync(projects);
  return { home, projects, env: { HOME: home, PATH: process.env.PATH, TOOLGATE_STATE_HOME: undefined, TOOLGATE_CONFIG_HOME: undefined } };
}

function project(under: string, name: string, files: Record<string, string> = {}): string {
  const directory = path.join(under, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(directory, file)), { recursive: true });
    writeFileSync(path.join(directory, file), text);
  }
  mkdirSync(directory, { recursive: true });
  return directory;
}

interface Verdict {
  decision: 'allow' | 'deny' | 'ask' | 'blocked';
  reason: string;
}

/** One PreToolUse call of Claude Code, made in `cwd`, through `toolgate hook claude-code` with no --policy, as a user-scope hook runs it. */
async function hook(options: { env: NodeJS.ProcessEnv; cwd: string; tool: string; input: Record<string, unknown>; host?: 'claude-code' | 'codex'; transcript?: string }): Promise<Verdict> {
  const stdin = JSON.stringify({ session_id: 'session-walk', transcript_path: options.transcript ?? null, cwd: options.cwd, hook_event_name: 'PreToolUse', tool_name: options.tool, tool_input: options.input, tool_use_id: `toolu_${Math.random().toString(36).slice(2)}` });
  const result = await runCli(['hook', options.host ?? 'claude-code'], { cwd: options.cwd, env: { ...options.env, SHELL: '/bin/bash' }, stdin });
  if (result.code === 2) return { decision: 'blocked', reason: result.stderr };
  expect(result.code, result.stderr).toBe(0);
  const output = JSON.parse(result.stdout) as { hookSpecificOutput: { permissionDecision: Verdict['decision']; permissionDecisionReason: string } };
  return { decision: output.hookSpecificOutput.permissionDecision, reason: output.hookSpecificOutput.permissionDecisionReason };
}

const bash = (command: string) => ({ tool: 'Bash', input: { command, description: 'run it' } });

describe("the hook finds the project's policy from the call's directory upwards", () => {
  it('a trusted policy above the call decides it, in any folder below; `toolgate trust` records it and says so', async () => {
    const { projects, env } = machine();
    const app = project(projects, 'app', { 'toolgate.yaml': PROJECT_POLICY, 'src/deep/file.ts': 'x\n' });
    const trusted = await runCli(['trust'], { cwd: path.join(app, 'src'), env });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toMatch(new RegExp(`^trusted ${path.join(app, 'toolgate.yaml')} \\(sha256 [0-9a-f]{12}…\\): agent hosts' hooks judge calls in ${app} and below with it`));
    const deep = path.join(app, 'src', 'deep');
    expect(await hook({ env, cwd: deep, ...bash('ls') })).toMatchObject({ decision: 'allow' });
    expect(await hook({ env, cwd: deep, ...bash('rm file.ts') })).toMatchObject({ decision: 'deny', reason: expect.stringContaining("rm is blocked by the project's policy") });
    // The zone is the policy's folder: a file in another project is outside it.
    const other = project(projects, 'other', { 'secret.txt': 'secret\n' });
    expect(await hook({ env, cwd: deep, tool: 'Read', input: { file_path: path.join(other, 'secret.txt') } })).toMatchObject({ decision: 'deny' });
  });

  it("a repository's own policy decides nothing until the person trusts it, nor after it changed; trust --list says so, --forget takes it back", async () => {
    const { projects, env } = machine();
    // A cloned repository whose policy lets everything run.
    const cloned = project(projects, 'cloned', { 'toolgate.yaml': 'version: 1\ntools:\n  "*": allow\nshell:\n  default: allow\n' });
    const first = await hook({ env, cwd: cloned, ...bash('rm -rf ~') });
    expect(first.decision).toBe('blocked');
    expect(first.reason).toContain(`the project's policy ${path.join(cloned, 'toolgate.yaml')} is not one you trusted (a repository can bring its own): read it, then run \`toolgate trust ${path.join(cloned, 'toolgate.yaml')}\` yourself, in a terminal`);

    writeFileSync(path.join(cloned, 'toolgate.yaml'), PROJECT_POLICY);
    expect((await runCli(['trust', 'toolgate.yaml'], { cwd: cloned, env })).code).toBe(0);
    expect(await hook({ env, cwd: cloned, ...bash('ls') })).toMatchObject({ decision: 'allow' });
    // A git pull that loosens it: blocked again until the person looks.
    writeFileSync(path.join(cloned, 'toolgate.yaml'), `${PROJECT_POLICY}    - { match: "curl", decision: allow }\n`);
    expect(await hook({ env, cwd: cloned, ...bash('ls') })).toMatchObject({ decision: 'blocked', reason: expect.stringContaining('changed since you trusted it') });
    const listed = await runCli(['trust', '--list'], { cwd: cloned, env });
    expect(listed.stdout).toContain(`${path.join(cloned, 'toolgate.yaml')}: CHANGED since trusted`);
    expect(listed.stdout).toContain('user-level policy (projects without their own): none');

    expect((await runCli(['trust'], { cwd: cloned, env })).code).toBe(0);
    expect(await hook({ env, cwd: cloned, ...bash('ls') })).toMatchObject({ decision: 'allow' });
    const forgot = await runCli(['trust', '--forget', 'toolgate.yaml'], { cwd: cloned, env });
    expect(forgot).toMatchObject({ code: 0, stdout: expect.stringContaining('forgot') });
    expect(await hook({ env, cwd: cloned, ...bash('ls') })).toMatchObject({ decision: 'blocked' });
    expect((await runCli(['trust', '--forget', 'toolgate.yaml'], { cwd: cloned, env })).code).toBe(1);
  });

  it('a policy planted in a folder below a trusted one does not take over the calls made there', async () => {
    const { projects, env } = machine();
    const app = project(projects, 'app', { 'toolgate.yaml': PROJECT_POLICY, 'sub/keep.txt': 'keep\n' });
    await runCli(['trust'], { cwd: app, env });
    // Writing it asks a person (a file named like a policy), and written anyway it is not trusted.
    const write = await hook({ env, cwd: app, tool: 'Write', input: { file_path: path.join(app, 'sub', 'toolgate.yaml'), content: 'version: 1\nshell:\n  default: allow\n' } });
    expect(write.decision).toBe('ask');
    expect(write.reason).toContain('a file named like a policy');
    writeFileSync(path.join(app, 'sub', 'toolgate.yaml'), 'version: 1\nshell:\n  default: allow\n');
    expect(await hook({ env, cwd: path.join(app, 'sub'), ...bash('rm keep.txt') })).toMatchObject({ decision: 'blocked', reason: expect.stringContaining('is not one you trusted') });
  });

  it('a link to the trusted policy, planted in a folder below, does not bring it there (its relative zones would shift)', async () => {
    const { projects, env } = machine();
    const app = project(projects, 'app', { 'toolgate.yaml': PROJECT_POLICY, 'sub/keep.txt': 'keep\n' });
    await runCli(['trust'], { cwd: app, env });
    symlinkSync(path.join(app, 'toolgate.yaml'), path.join(app, 'sub', 'toolgate.yaml'));
    expect(await hook({ env, cwd: path.join(app, 'sub'), ...bash('ls') })).toMatchObject({ decision: 'blocked', reason: expect.stringContaining('is a symbolic link') });
    const trusted = await runCli(['trust', 'toolgate.yaml'], { cwd: path.join(app, 'sub'), env });
    expect(trusted.code).toBe(1);
    expect(trusted.stderr).toContain('is a symbolic link');
    expect(await hook({ env, cwd: app, ...bash('ls') })).toMatchObject({ decision: 'allow' });
  });

  it('a policy file that does not load is refused by trust, naming the line, and nothing is recorded', async () => {
    const { projects, env } = machine();
    const app = project(projects, 'app', { 'toolgate.yaml': 'version: 1\nshell:\n  default: perhaps\n' });
    const result = await runCli(['trust'], { cwd: app, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('does not load, so it is not trusted');
    expect(result.stderr).toContain('shell.default');
    expect((await runCli(['trust', '--list'], { cwd: app, env })).stdout).toContain('no project policy is trusted');
  });
});

describe('the user-level policy, for projects without their own', () => {
  it('init --user writes it; it judges calls in any project, its zone rooted at the git repository the call is in, else the directory', async () => {
    const { home, projects, env } = machine();
    const written = await runCli(['init', '--user'], { cwd: projects, env });
    expect(written.code, written.stderr).toBe(0);
    const userPolicy = path.join(home, '.config', 'toolgate', 'toolgate.yaml');
    expect(written.stdout).toContain(`wrote ${userPolicy}`);
    expect((await runCli(['init', '--user'], { cwd: projects, env })).code).toBe(1);
    const repository = project(projects, 'repo', { '.git/HEAD': 'ref: refs/heads/main\n', 'README.md': 'hello\n', 'src/a.ts': 'a\n' });
    const inside = path.join(repository, 'src');
    // A read anywhere in the repository, from a folder below its top: in the zone.
    expect(await hook({ env, cwd: inside, tool: 'Read', input: { file_path: path.join(repository, 'README.md') } })).toMatchObject({ decision: 'allow' });
    expect(await hook({ env, cwd: inside, tool: 'Write', input: { file_path: path.join(repository, 'src', 'b.ts'), content: 'b\n' } })).toMatchObject({ decision: 'allow' });
    expect(await hook({ env, cwd: inside, ...bash('git status') })).toMatchObject({ decision: 'allow' });
    // A delete asks; a networked command asks (it is not blocked outright); files outside the project are blocked.
    expect(await hook({ env, cwd: inside, ...bash('rm a.ts') })).toMatchObject({ decision: 'ask' });
    expect(await hook({ env, cwd: inside, ...bash('npm install left-pad') })).toMatchObject({ decision: 'ask' });
    // What the person reads first: what will happen, where, and what cannot be undone (git refs are not files).
    const reset = await hook({ env, cwd: repository, ...bash('git reset --hard HEAD~1') });
    expect(reset.decision).toBe('ask');
    expect(reset.reason).toContain(`Run git reset --hard HEAD~1 in ${repository}. It throws away every uncommitted change to tracked files and moves the branch to HEAD~1: commits after it are left only in the reflog — `);
    expect(reset.reason).not.toMatch(/writes \S*HEAD~1/);
    writeFileSync(path.join(home, '.netrc'), 'machine example.com password hunter2\n');
    expect(await hook({ env, cwd: inside, ...bash(`cat ${path.join(home, '.netrc')}`) })).toMatchObject({ decision: 'deny' });
    // The project's secrets, wherever in it, hidden relative to the project (the zone), not to the policy's folder in the home.
    writeFileSync(path.join(repository, '.env'), 'API_KEY=sk-live-1\n');
    writeFileSync(path.join(repository, 'src', '.env.local'), 'DB=hunter2\n');
    writeFileSync(path.join(repository, '.env.example'), 'API_KEY=\n');
    expect(await hook({ env, cwd: inside, tool: 'Read', input: { file_path: path.join(repository, '.env') } })).toMatchObject({ decision: 'deny', reason: expect.stringContaining('hidden in zone project (hidden: .env)') });
    expect(await hook({ env, cwd: inside, ...bash('cat .env.local') })).toMatchObject({ decision: 'deny', reason: expect.stringContaining('(hidden: .env.*)') });
    expect(await hook({ env, cwd: inside, tool: 'Read', input: { file_path: path.join(repository, '.env.example') } })).toMatchObject({ decision: 'allow' });
    expect(await hook({ env, cwd: repository, tool: 'Grep', input: { pattern: 'API_KEY' } })).toMatchObject({ decision: 'ask', reason: expect.stringContaining('a file zone project hides') });
    expect(await hook({ env, cwd: repository, ...bash('grep -rn hello README.md src') })).toMatchObject({ decision: 'ask' });
    expect(await hook({ env, cwd: repository, ...bash('grep -n hello README.md') })).toMatchObject({ decision: 'allow' });
    // Not a repository: the directory of the call is the project.
    const loose = project(projects, 'loose', { 'notes.txt': 'n\n' });
    expect(await hook({ env, cwd: loose, tool: 'Read', input: { file_path: path.join(loose, 'notes.txt') } })).toMatchObject({ decision: 'allow' });
    expect(await hook({ env, cwd: loose, tool: 'Read', input: { file_path: path.join(repository, 'README.md') } })).toMatchObject({ decision: 'deny' });
  });

  it("the user-level policy's zone is the project the Claude Code session began in: a model that changed its directory to the home does not make the home its zone", async () => {
    const { home, projects, env } = machine();
    await runCli(['init', '--user'], { cwd: projects, env });
    const repository = project(projects, 'repo', { '.git/HEAD': 'ref: refs/heads/main\n', 'README.md': 'hello\n' });
    writeFileSync(path.join(home, '.netrc'), 'machine example.com password hunter2\n');
    const session = { ...env, CLAUDE_PROJECT_DIR: repository };
    // After `cd ~`, Claude Code reports the home as the call's directory.
    expect(await hook({ env: session, cwd: home, tool: 'Read', input: { file_path: path.join(home, '.netrc') } })).toMatchObject({ decision: 'deny' });
    expect(await hook({ env: session, cwd: home, ...bash('cat .netrc') })).toMatchObject({ decision: 'deny' });
    expect(await hook({ env: session, cwd: home, tool: 'Read', input: { file_path: path.join(repository, 'README.md') } })).toMatchObject({ decision: 'allow' });
    // Nor does changing into a project whose trusted policy is looser bring that policy to this session.
    const loose = project(projects, 'scratch', { 'toolgate.yaml': 'version: 1\nfs:\n  zones:\n    - { name: all, root: /, mode: rw, approval: { read: allow, write: allow, delete: allow } }\nshell:\n  default: allow\n' });
    await runCli(['trust'], { cwd: loose, env });
    expect(await hook({ env, cwd: loose, ...bash(`cat ${path.join(home, '.netrc')}`) })).toMatchObject({ decision: 'allow' });
    expect(await hook({ env: session, cwd: loose, ...bash(`cat ${path.join(home, '.netrc')}`) })).toMatchObject({ decision: 'deny' });
  });

  it("for Codex, where its session began (the rollout's first line), not the call's workdir, which the model chooses", async () => {
    const { home, projects, env } = machine();
    await runCli(['init', '--user'], { cwd: projects, env });
    const repository = project(projects, 'repo', { '.git/HEAD': 'ref: refs/heads/main\n' });
    const rollout = path.join(home, 'rollout.jsonl');
    writeFileSync(rollout, `${JSON.stringify({ timestamp: 'now', type: 'session_meta', payload: { id: 's', cwd: repository } })}\n`);
    const patch = (file: string) => ({ tool: 'Bash', input: { command: `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${file}\n+x\n*** End Patch\nEOF\n` } });
    // The model set workdir to the home: the zone is still the repository, and a patch there of .local/bin/git is outside it.
    expect(await hook({ env, cwd: home, host: 'codex', transcript: rollout, ...patch('.local/bin/git') })).toMatchObject({ decision: 'deny' });
    expect(await hook({ env, cwd: '/', host: 'codex', transcript: rollout, ...patch('/etc/toolgate-poc') })).toMatchObject({ decision: 'deny' });
    expect(await hook({ env, cwd: repository, host: 'codex', transcript: rollout, ...patch('src/new.ts') })).toMatchObject({ decision: 'allow' });
  });

  it('a project with its own policy is judged by it, not by the user-level one', async () => {
    const { projects, env } = machine();
    await runCli(['init', '--user'], { cwd: projects, env });
    const app = project(projects, 'app', { 'toolgate.yaml': PROJECT_POLICY });
    await runCli(['trust'], { cwd: app, env });
    // The user-level starter allows cat; this project's policy does not name it, so it asks.
    writeFileSync(path.join(app, 'a.txt'), 'a\n');
    expect(await hook({ env, cwd: app, ...bash('cat a.txt') })).toMatchObject({ decision: 'ask' });
    expect((await runCli(['trust', '--list'], { cwd: app, env })).stdout).toContain('user-level policy (projects without their own): ');
  });

  it('no policy anywhere blocks the call, saying where one would be found and how to write one', async () => {
    const { home, projects, env } = machine();
    const bare = project(projects, 'bare', { 'a.txt': 'a\n' });
    const verdict = await hook({ env, cwd: bare, ...bash('ls') });
    expect(verdict.decision).toBe('blocked');
    expect(verdict.reason).toContain(`no policy for ${bare}: no toolgate.yaml there or in a folder above it, and no user-level policy in ${path.join(home, '.config', 'toolgate')}`);
    expect(verdict.reason).toContain('`toolgate init --user`');
  });

  it("no call may write toolgate's folders in the home: the user-level policy, or the records of which policies are trusted", async () => {
    const { home, projects, env } = machine();
    await runCli(['init', '--user'], { cwd: projects, env });
    const app = project(projects, 'app', { 'toolgate.yaml': PROJECT_POLICY.replace('zones:\n', `zones:\n    - { name: home, root: ${home}, mode: rw, approval: { read: allow, write: allow, delete: allow } }\n`) });
    await runCli(['trust'], { cwd: app, env });
    const userPolicy = path.join(home, '.config', 'toolgate', 'toolgate.yaml');
    const trustRecords = path.join(home, '.local', 'state', 'toolgate', 'trusted-policies.json');
    const before = readFileSync(trustRecords, 'utf8');
    // Even where a zone lets the agent write the whole home.
    for (const verdict of [
      await hook({ env, cwd: app, tool: 'Write', input: { file_path: userPolicy, content: 'version: 1\nshell:\n  default: allow\n' } }),
      await hook({ env, cwd: app, tool: 'Edit', input: { file_path: trustRecords, old_string: '"v": 1', new_string: '"v": 1' } }),
      await hook({ env, cwd: app, ...bash(`echo '{}' > ${trustRecords}`) }),
    ]) {
      expect(verdict.decision).toBe('deny');
      expect(verdict.reason).toMatch(/toolgate's own files/);
    }
    expect(readFileSync(trustRecords, 'utf8')).toBe(before);
  });
});

describe("the hook's own program", () => {
  it('no call may change the toolgate the hook runs as, nor its Node, even where a zone covers them', async () => {
    const { projects, env } = machine();
    const everything = project(projects, 'wide', { 'toolgate.yaml': 'version: 1\nfs:\n  zones:\n    - { name: all, root: /, mode: rw, approval: { read: allow, write: allow, delete: allow } }\nshell:\n  default: allow\n' });
    await runCli(['trust'], { cwd: everything, env });
    // This process is the hook (in-process): its toolgate is this checkout, its Node the pinned one.
    const entry = fileURLToPath(new URL('../bin/toolgate.js', import.meta.url));
    for (const verdict of [
      await hook({ env, cwd: everything, tool: 'Write', input: { file_path: entry, content: 'process.exit(0)\n' } }),
      await hook({ env, cwd: everything, ...bash(`echo 'process.exit(0)' > ${entry}`) }),
      await hook({ env, cwd: everything, ...bash(`cp /bin/true ${process.execPath}`) }),
      await hook({ env, cwd: everything, ...bash(`rm -rf ${path.dirname(path.dirname(entry))}/src`) }),
    ]) {
      expect(verdict.decision).toBe('deny');
      expect(verdict.reason, verdict.reason).toMatch(/toolgate's own file|\(protected: /);
    }
    expect(await hook({ env, cwd: everything, ...bash('ls') })).toMatchObject({ decision: 'allow' });
  });
});

describe('init and install, with the policy found rather than named', () => {
  it('init --for claude-code writes the host starter and trusts it; install then writes a hook that names no policy and answers', async () => {
    const { home, projects, env } = machine();
    const app = project(projects, 'app', { '.git/HEAD': 'ref: refs/heads/main\n' });
    const initialized = await runCli(['init', '--for', 'claude-code', '--no-gitignore'], { cwd: app, env });
    expect(initialized.code, initialized.stderr).toBe(0);
    expect(initialized.stdout).toContain("for claude-code's hook: the host runs the calls it allows itself, outside toolgate's sandbox; next: toolgate install claude-code");
    expect(initialized.stdout).toContain("trusted: agent hosts' hooks (toolgate install) judge calls in this project with it");
    const policy = readFileSync(path.join(app, 'toolgate.yaml'), 'utf8');
    expect(policy).toContain('network: true');
    expect(policy).not.toMatch(/^sandbox:/m);
    // A host toolgate has no hook for (cursor has one now).
    expect((await runCli(['init', '--for', 'windsurf'], { cwd: app, env })).code).toBe(2);
    const installed = await runCli(['install', 'claude-code', '--scope', 'user'], { cwd: app, env });
    expect(installed.code, installed.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8'));
    expect(settings.hooks.PreToolUse[0].hooks[0].command).not.toContain('--policy');
    expect(installed.stdout).toMatch(/a probe call was answered in \d+ ms/);
    expect(await hook({ env, cwd: app, ...bash('git status') })).toMatchObject({ decision: 'allow' });
  });
});

describe('Gemini CLI: the project it was started in (GEMINI_PROJECT_DIR) chooses the policy', () => {
  /** One BeforeTool call of Gemini CLI through `toolgate hook gemini` with no --policy. */
  async function geminiHook(options: { env: NodeJS.ProcessEnv; cwd: string; command: string; transcript?: string }): Promise<Verdict> {
    const stdin = JSON.stringify({ session_id: 'gemini-walk', transcript_path: options.transcript ?? path.join(options.cwd, 'chat.json'), cwd: options.cwd, hook_event_name: 'BeforeTool', timestamp: '2026-12-07T06:00:00.000Z', tool_name: 'run_shell_command', tool_input: { command: options.command } });
    const result = await runCli(['hook', 'gemini'], { cwd: options.cwd, env: options.env, stdin });
    if (result.code === 2) return { decision: 'blocked', reason: result.stderr };
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout) as { decision: Verdict['decision']; reason: string };
    return { decision: output.decision, reason: output.reason };
  }

  it("a call is judged by the trusted policy of the project Gemini CLI started in, not of the folder the call names; a transcript is never read as Codex's", async () => {
    const { projects, env } = machine();
    const started = project(projects, 'started', { 'toolgate.yaml': PROJECT_POLICY });
    const other = project(projects, 'other', { 'toolgate.yaml': PROJECT_POLICY.replace("rm is blocked by the project's policy", 'rm is blocked by the other policy'), 'src/a.txt': 'a\n' });
    for (const directory of [started, other]) expect((await runCli(['trust'], { cwd: directory, env })).code).toBe(0);
    // A transcript that is not Codex's rollout (Gemini CLI's chat file): nothing is read from it to choose the policy.
    const transcript = path.join(other, 'chat.json');
    writeFileSync(transcript, '{"session_meta":{"payload":{"cwd":"/"}}}\n');
    const fromStart = await geminiHook({ env: { ...env, GEMINI_PROJECT_DIR: started }, cwd: path.join(other, 'src'), command: 'rm -rf x', transcript });
    // The started project's policy judged it: the call's folder is outside its zone.
    expect(fromStart).toMatchObject({ decision: 'deny', reason: expect.stringContaining(`is outside every zone; the zones are project (${started})`) });
    expect(await geminiHook({ env: { ...env, GEMINI_PROJECT_DIR: started }, cwd: started, command: 'rm -rf x', transcript })).toMatchObject({ decision: 'deny', reason: expect.stringContaining("rm is blocked by the project's policy") });
    // Without GEMINI_PROJECT_DIR, the folder the call was made in, upwards.
    const fromCall = await geminiHook({ env, cwd: path.join(other, 'src'), command: 'rm -rf x', transcript });
    expect(fromCall).toMatchObject({ decision: 'deny', reason: expect.stringContaining('rm is blocked by the other policy') });
    // A relative GEMINI_PROJECT_DIR names nothing: the call's folder decides.
    expect(await geminiHook({ env: { ...env, GEMINI_PROJECT_DIR: 'started' }, cwd: path.join(other, 'src'), command: 'rm -rf x' })).toMatchObject({ reason: expect.stringContaining('rm is blocked by the other policy') });
  });
});
