/**
 * The package as a user gets it (issue 39): packed with `npm pack`, installed
 * in a scratch project, and run through `npx toolgate` with only the
 * project's own node_modules on PATH — on the machine's own Node 20, where
 * it must say in one line what it needs and how to get it (not crash with a
 * SyntaxError stack), and on Node 24, where `--help`, `init` and `check` work.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_TEST_POLICY, runHostSession } from './agent-host-harness.ts';
import { installPackedToolgate, type PackedInstall } from './packed-package.ts';
import { NODE } from './server-harness.ts';

/** The machine's own Node, outside this checkout (the README's machines have Node 20). */
const SYSTEM_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((candidate) => existsSync(candidate));
const NODE_24_DIRECTORY = path.dirname(realpathSync(NODE));

let parent: string;
let packed: PackedInstall;
beforeAll(() => {
  // Outside the checkout: npx puts every node_modules/.bin above the project on PATH, and this checkout's holds Node 24.
  parent = mkdtempSync(path.join(os.tmpdir(), 'toolgate-packed-'));
  packed = installPackedToolgate(parent);
}, 120_000);
afterAll(() => rmSync(parent, { recursive: true, force: true }));

/** `npx toolgate ...` in the scratch project, PATH holding only `nodeDirectory` and the system's directories. */
function npxToolgate(nodeDirectory: string, args: string[], input?: string, where: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const result = spawnSync('npx', ['--offline', 'toolgate', ...args], {
    cwd: where.cwd ?? packed.project,
    encoding: 'utf8',
    input: input ?? '',
    env: { PATH: `${nodeDirectory}:/usr/bin:/bin`, HOME: os.tmpdir(), npm_config_update_notifier: 'false', ...where.env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the packed package on the machine’s own Node', () => {
  it('is Node 20 here, older than the package needs', () => {
    expect(SYSTEM_NODE, 'no system Node outside the checkout (the machines have Node 20 in /usr/bin)').toBeDefined();
    const version = execFileSync(SYSTEM_NODE!, ['--version'], { encoding: 'utf8' }).trim();
    expect(Number(version.slice(1).split('.')[0])).toBeLessThan(22);
  });

  it('says in one line what it needs, what runs and how to get it, and exits 1', () => {
    const result = npxToolgate(path.dirname(SYSTEM_NODE!), ['--help']);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^toolgate needs Node\.js 22 or newer, and this is Node\.js v20\.[\d.]+ \(\/usr(\/local)?\/bin\/node\)\. Install Node\.js 22 or 24 \(https:\/\/nodejs\.org\/en\/download, or `nvm install 24`\) and run toolgate with it, or add Node 24 to this project \(`npm i -D node@24`\), which `npx toolgate` then runs on\.$/);
    expect(result.stderr).not.toMatch(/SyntaxError|at .*:\d+:\d+/);
    expect(result.stdout).toBe('');
  });

  it('as an agent host’s hook, blocks the call (exit 2) rather than let the host run it', () => {
    const result = npxToolgate(path.dirname(SYSTEM_NODE!), ['hook', 'claude-code'], '{}');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(': the call is blocked.');
  });

  it('agrees with package.json’s engines', () => {
    const manifest = JSON.parse(readFileSync(path.join(packed.project, 'node_modules/toolgate/package.json'), 'utf8')) as { engines: { node: string } };
    expect(manifest.engines.node).toBe('>=22');
  });
});

describe('the packed package on Node 24', () => {
  it('--help, init and check work from the scratch project', () => {
    const help = npxToolgate(NODE_24_DIRECTORY, ['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: toolgate <command> [options]');

    const init = npxToolgate(NODE_24_DIRECTORY, ['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(existsSync(path.join(packed.project, 'toolgate.yaml'))).toBe(true);

    const blocked = npxToolgate(NODE_24_DIRECTORY, ['check', '--tool', 'shell', '--args', JSON.stringify({ command: 'rm -rf node_modules' })]);
    expect(blocked.stdout + blocked.stderr).toMatch(/block/i);
    const read = npxToolgate(NODE_24_DIRECTORY, ['check', '--tool', 'read_file', '--args', JSON.stringify({ path: 'package.json' })]);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toMatch(/allow/i);
  });
});

describe('learning from history, from the package (issue 54)', () => {
  it("replay judges a real Claude Code transcript with the project's policy, insights reads an audit log, and the inbox's attention page ships", () => {
    const transcript = path.join(parent, 'session.jsonl');
    writeFileSync(transcript, readFileSync(path.join(import.meta.dirname, 'fixtures/replay/claude-code-2.1.332.jsonl'), 'utf8').replaceAll('__PROJECT__', packed.project));
    writeFileSync(path.join(packed.project, 'replay-policy.yaml'), HOST_TEST_POLICY);
    const replay = npxToolgate(NODE_24_DIRECTORY, ['replay', '--json', '--policy', 'replay-policy.yaml', transcript], undefined, { env: { SHELL: '/bin/bash' } });
    expect(replay.code, replay.stderr).toBe(0);
    const summary = JSON.parse(replay.stdout) as { sources: Record<string, number>; policies: Array<{ totals: Record<string, number> }> };
    expect(summary.sources).toEqual({ 'Claude Code 2.1.332': 12 });
    expect(Object.values(summary.policies[0]!.totals).reduce((sum, count) => sum + count, 0)).toBe(12);
    const log = path.join(parent, 'audit.jsonl');
    const entry = (kind: string, decision: string, source: string) => JSON.stringify({ v: 1, kind, time: '2026-12-07T10:00:00.000Z', session: 's', chat: null, run: null, caller: null, call_id: 'c1', tool: 'shell', args: { command: 'git status' }, verdict: 'ask', decision, source, rule: 'shell.default (ask)', reason: 'r', latency_ms: 900, ...(source === 'person' ? { approver: 'ann' } : {}) });
    writeFileSync(log, `${entry('verdict', 'ask', 'policy')}\n${entry('decision', 'approved', 'person')}\n`);
    const insights = npxToolgate(NODE_24_DIRECTORY, ['insights', '--json', '--log', log]);
    expect(insights.code, insights.stderr).toBe(0);
    expect(JSON.parse(insights.stdout)).toMatchObject({ calls: 1, asks: 1, approvers: [{ approver: 'ann', decided: 1 }] });
    expect(existsSync(path.join(packed.project, 'node_modules/toolgate/dist/src/server/web/static/insights-view.js'))).toBe(true);
  });
});

describe('the hook, as the package runs it', () => {
  it('is one bundled file: a hook loads toolgate from dist/hook/toolgate-hook.mjs, not the ~390 modules it is built from, and decides as the sources do; the next calls go to the decider it started, loading only the client', async () => {
    const project = path.join(packed.project, 'bundled');
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, 'toolgate.yaml'), HOST_TEST_POLICY);
    const counter = path.join(parent, 'count-modules.mjs');
    writeFileSync(counter, "import { registerHooks } from 'node:module'; const seen = []; registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } }); process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(seen) + '\\n'));\n");
    const call = (command: string) => JSON.stringify({ session_id: 's', cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: 't' });
    const hook = (command: string) => spawnSync(NODE, ['--import', counter, packed.bin, 'hook', 'claude-code', '--policy', path.join(project, 'toolgate.yaml')], { cwd: project, encoding: 'utf8', input: call(command), env: { PATH: process.env.PATH, HOME: parent, SHELL: '/bin/bash' } });
    const allowed = hook('echo hi');
    expect(allowed.status, allowed.stderr).toBe(0);
    expect(JSON.parse(allowed.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
    const loaded = JSON.parse(/LOADED (.*)/.exec(allowed.stderr)![1]!) as string[];
    const fromPackage = (result: { stderr: string }) => (JSON.parse(/LOADED (.*)/.exec(result.stderr)![1]!) as string[]).filter((url) => url.includes('/node_modules/')).map((url) => url.slice(url.indexOf('/node_modules/')));
    expect(fromPackage(allowed)).toEqual(['/node_modules/toolgate/bin/toolgate.js', '/node_modules/toolgate/dist/hook/hook-client.cjs', '/node_modules/toolgate/dist/hook/toolgate-hook.mjs']);
    expect(loaded.length).toBeGreaterThan(0);
    // The first call started a decider (src/cli/hook-decider.ts): once it listens, a call loads the client alone.
    const deciders = path.join(parent, '.local/state/toolgate/deciders');
    for (let tries = 0; !(existsSync(deciders) && readdirSync(deciders).some((name) => name.endsWith('.pid'))); tries++) {
      if (tries > 100) throw new Error(`no decider started in ${deciders}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const again = hook('echo hi');
    expect(again.stdout).toBe(allowed.stdout);
    expect(fromPackage(again)).toEqual(['/node_modules/toolgate/bin/toolgate.js', '/node_modules/toolgate/dist/hook/hook-client.cjs']);
    const blocked = hook('rm -rf victim');
    expect(blocked.status).toBe(0);
    expect(JSON.parse(blocked.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    expect(fromPackage(blocked)).not.toContain('/node_modules/toolgate/dist/hook/toolgate-hook.mjs');
    // A failure inside the bundle blocks, as the sources' hook does.
    const broken = spawnSync(NODE, [packed.bin, 'hook', 'claude-code', '--policy', path.join(project, 'missing.yaml')], { cwd: project, encoding: 'utf8', input: call('ls'), env: { PATH: process.env.PATH, HOME: parent } });
    expect(broken.status).toBe(2);
  });
});

describe('the hooks, installed from the package (issue 53)', () => {
  it('install writes a hook that runs (it probes it first), doctor says live, the real Claude Code is blocked and allowed by it, and uninstall takes it out', { timeout: 120_000 }, async () => {
    // The user's own project, with toolgate in node_modules (npx finds it from here), and a home of its own.
    const app = path.join(packed.project, 'app');
    const home = path.join(parent, 'home');
    mkdirSync(path.join(app, 'victim'), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(app, 'victim/keep.txt'), 'keep\n');
    writeFileSync(path.join(app, 'toolgate.yaml'), HOST_TEST_POLICY);
    const env = { HOME: home, CODEX_HOME: path.join(home, '.codex') };
    const run = (args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {}) => npxToolgate(NODE_24_DIRECTORY, args, options.stdin ?? '', { cwd: options.cwd ?? app, env: options.env ?? env });
    // The policy someone gave them: read, then trusted (the hook judges with a project's policy only once it is).
    const untrusted = run(['install', 'claude-code']);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain('is not one you trusted');
    expect(existsSync(path.join(app, '.claude'))).toBe(false);
    expect(run(['trust']).code).toBe(0);

    const installed = run(['install', 'claude-code']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toMatch(/wrote .*\.claude\/settings\.json; a probe call was answered in \d+ ms/);
    const settingsFile = path.join(app, '.claude/settings.json');
    const command = JSON.parse(readFileSync(settingsFile, 'utf8')).hooks.PreToolUse[0].hooks[0].command as string;
    expect(command).toContain(path.join(packed.project, 'node_modules/toolgate/bin/toolgate.js'));
    const doctor = run(['doctor']);
    expect(doctor.stdout).toMatch(/claude-code\s+live: .*a probe call was answered/);

    const codex = run(['install', 'codex']);
    expect(codex.code, codex.stderr).toBe(0);
    expect(codex.stdout).toMatch(/wrote .*hooks\.json; a probe call was answered/);

    // A project with no policy of its own is judged by the user-level one, which init --user writes from the package.
    expect(run(['init', '--user']).code).toBe(0);
    const other = path.join(parent, 'other');
    mkdirSync(path.join(other, '.git'), { recursive: true });
    const call = (command: string) => JSON.stringify({ session_id: 's', transcript_path: null, cwd: other, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `t-${command.length}` });
    const hookIn = (command: string) => spawnSync('sh', ['-c', hookWords], { cwd: other, input: call(command), env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8' });
    const hookWords = command.replace(/ \|\| exit 2$/, '');
    expect(JSON.parse(hookIn('git status').stdout).hookSpecificOutput.permissionDecision).toBe('allow');
    expect(JSON.parse(hookIn('npm install left-pad').stdout).hookSpecificOutput.permissionDecision).toBe('ask');

    // The hook as written, run by the real Claude Code in this project: rm -rf is blocked, an allowed echo runs.
    // Its session has a home of its own, where that user trusted the project's policy too.
    const project = { directory: app, home: path.join(parent, 'claude-home'), policyFile: path.join(app, 'toolgate.yaml') };
    mkdirSync(project.home, { recursive: true });
    expect(run(['trust'], { env: { HOME: project.home } }).code).toBe(0);
    const blocked = await runHostSession({ host: 'claude-code', project, call: { name: 'Bash', input: { command: 'rm -rf victim' } }, hook: command });
    expect(blocked.toolResult).toContain('rm is blocked in this project');
    expect(existsSync(path.join(app, 'victim/keep.txt'))).toBe(true);
    const allowed = await runHostSession({ host: 'claude-code', project, call: { name: 'Bash', input: { command: 'echo from-the-package > echoed.txt' } }, hook: command });
    expect(allowed.toolResults.join('\n')).not.toMatch(/blocked|toolgate/i);
    expect(readFileSync(path.join(app, 'echoed.txt'), 'utf8')).toBe('from-the-package\n');

    // Uninstalled: the files install created go with the hooks.
    for (const host of ['claude-code', 'codex']) {
      const removed = run(['uninstall', host]);
      expect(removed.code, removed.stderr).toBe(0);
      expect(removed.stdout).toContain('which toolgate install had created');
    }
    expect(existsSync(settingsFile)).toBe(false);
    expect(existsSync(path.join(home, '.codex', 'hooks.json'))).toBe(false);
  });

  it("install opencode from the package writes a plugin the real opencode runs: rm -rf blocked, an allowed echo run; uninstall takes it out", { timeout: 120_000 }, async () => {
    const app = path.join(packed.project, 'opencode-app');
    const home = path.join(parent, 'opencode-home');
    mkdirSync(path.join(app, 'victim'), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(app, 'victim/keep.txt'), 'keep\n');
    writeFileSync(path.join(app, 'toolgate.yaml'), HOST_TEST_POLICY);
    // opencode reads its plugins from $XDG_CONFIG_HOME/opencode/plugins, which is where the session's opencode looks too.
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
    expect(npxToolgate(NODE_24_DIRECTORY, ['trust'], '', { cwd: app, env }).code).toBe(0);
    const installed = npxToolgate(NODE_24_DIRECTORY, ['install', 'opencode'], '', { cwd: app, env });
    expect(installed.code, installed.stderr).toBe(0);
    const plugin = path.join(home, '.config/opencode/plugins/toolgate.js');
    expect(installed.stdout).toContain(`wrote ${plugin}; a probe call was answered`);
    expect(readFileSync(plugin, 'utf8')).toContain(path.join(packed.project, 'node_modules/toolgate/bin/toolgate.js'));

    const project = { directory: app, home, policyFile: path.join(app, 'toolgate.yaml') };
    const blocked = await runHostSession({ host: 'opencode', project, call: { name: 'bash', input: { command: 'rm -rf victim', description: 'x' } }, installedHooks: true });
    expect(blocked.toolResult).toContain('rm is blocked in this project');
    expect(existsSync(path.join(app, 'victim/keep.txt'))).toBe(true);
    const allowed = await runHostSession({ host: 'opencode', project, call: { name: 'bash', input: { command: 'echo from-the-package > echoed.txt', description: 'x' } }, installedHooks: true });
    expect(readFileSync(path.join(app, 'echoed.txt'), 'utf8')).toBe('from-the-package\n');
    expect(allowed.toolResults.join('\n')).not.toMatch(/blocked|toolgate/i);

    const removed = npxToolgate(NODE_24_DIRECTORY, ['uninstall', 'opencode'], '', { cwd: app, env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(plugin)).toBe(false);
  });

  it("install copilot and install cursor from the package: the real Copilot CLI is blocked and allowed by the hooks it wrote, and the same command answers Copilot's permissionRequest and Cursor's file changes in their own forms", { timeout: 120_000 }, async () => {
    const app = path.join(packed.project, 'copilot-app');
    const home = path.join(parent, 'copilot-home');
    mkdirSync(path.join(app, 'victim'), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(app, 'victim/keep.txt'), 'keep\n');
    writeFileSync(path.join(app, 'toolgate.yaml'), HOST_TEST_POLICY);
    const env = { HOME: home, COPILOT_HOME: path.join(home, '.copilot') };
    expect(npxToolgate(NODE_24_DIRECTORY, ['trust'], '', { cwd: app, env }).code).toBe(0);
    for (const host of ['copilot', 'cursor']) {
      const installed = npxToolgate(NODE_24_DIRECTORY, ['install', host], '', { cwd: app, env });
      expect(installed.code, installed.stderr).toBe(0);
    }
    const copilotHooks = JSON.parse(readFileSync(path.join(home, '.copilot/hooks/toolgate.json'), 'utf8')) as { hooks: Record<string, Array<{ bash: string }>> };
    expect(Object.keys(copilotHooks.hooks)).toEqual(['preToolUse', 'permissionRequest']);
    const command = copilotHooks.hooks.permissionRequest![0]!.bash;
    expect(command).toContain(path.join(packed.project, 'node_modules/toolgate/bin/toolgate.js'));

    const project = { directory: app, home, policyFile: path.join(app, 'toolgate.yaml') };
    const blocked = await runHostSession({ host: 'copilot', project, call: { name: 'bash', input: { command: 'rm -rf victim', description: 'x' } }, installedHooks: true });
    expect(blocked.toolResult).toContain('rm is blocked in this project');
    expect(existsSync(path.join(app, 'victim/keep.txt'))).toBe(true);
    const allowed = await runHostSession({ host: 'copilot', project, call: { name: 'bash', input: { command: 'echo from-the-package > echoed.txt', description: 'x' } }, installedHooks: true });
    expect(readFileSync(path.join(app, 'echoed.txt'), 'utf8')).toBe('from-the-package\n');

    // The installed command, run as each host runs it, with the host's own input.
    const run = (hookCommand: string, input: unknown) => spawnSync('sh', ['-c', hookCommand], { cwd: app, input: JSON.stringify(input), env: { ...env, PATH: `${NODE_24_DIRECTORY}:/usr/bin:/bin` }, encoding: 'utf8' });
    const permission = (toolInput: Record<string, unknown>) => JSON.parse(run(command, { hookName: 'permissionRequest', sessionId: 's', timestamp: 1, cwd: app, toolName: 'bash', toolInput, permissionSuggestions: [] }).stdout) as unknown;
    expect(permission({ command: 'rm -rf victim' })).toEqual({ behavior: 'deny', message: expect.stringContaining('rm is blocked in this project') });
    expect(permission({ command: 'echo hi' })).toEqual({ behavior: 'allow' });
    const cursorHooks = JSON.parse(readFileSync(path.join(home, '.cursor/hooks.json'), 'utf8')) as { hooks: Record<string, Array<{ command: string; matcher?: string }>> };
    const fileEntry = cursorHooks.hooks.preToolUse![0]!;
    expect(fileEntry.matcher).toBe('Write|StrReplace|Delete|ApplyPatch');
    const write = (file_path: string) => JSON.parse(run(fileEntry.command, { conversation_id: 'c', generation_id: 'g', hook_event_name: 'preToolUse', tool_name: 'Write', tool_input: { file_path, content: 'x' }, tool_use_id: 't', cwd: '', workspace_roots: [app] }).stdout) as { permission: string };
    expect(write(path.join(app, 'made.txt')).permission).toBe('allow');
    expect(write(path.join(parent, 'outside.txt')).permission).toBe('deny');
  });

  it('project scope, from the project toolgate is installed in, writes a command every clone can run (through CLAUDE_PROJECT_DIR), which the real Claude Code runs', { timeout: 120_000 }, async () => {
    const root = packed.project;
    const home = path.join(parent, 'shared-home');
    const sessionHome = path.join(parent, 'shared-session-home');
    mkdirSync(home, { recursive: true });
    mkdirSync(sessionHome, { recursive: true });
    mkdirSync(path.join(root, 'victim'), { recursive: true });
    writeFileSync(path.join(root, 'victim/keep.txt'), 'keep\n');
    writeFileSync(path.join(root, 'toolgate.yaml'), HOST_TEST_POLICY);
    const run = (args: string[], env: NodeJS.ProcessEnv = { HOME: home }) => npxToolgate(NODE_24_DIRECTORY, args, '', { cwd: root, env });
    expect(run(['trust']).code).toBe(0);
    const installed = run(['install', 'claude-code']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).not.toContain('note:');
    const settingsFile = path.join(root, '.claude/settings.json');
    const command = JSON.parse(readFileSync(settingsFile, 'utf8')).hooks.PreToolUse[0].hooks[0].command as string;
    expect(command).toBe('/usr/bin/env -u NODE_OPTIONS -u NODE_COMPILE_CACHE -u NODE_PATH node "$CLAUDE_PROJECT_DIR"/node_modules/toolgate/bin/toolgate.js hook claude-code --timeout 600 || exit 2');
    expect(command).not.toContain(parent);
    // A teammate's clone: another user, who trusted the project's policy in their own home.
    expect(run(['trust'], { HOME: sessionHome }).code).toBe(0);
    const project = { directory: root, home: sessionHome, policyFile: path.join(root, 'toolgate.yaml') };
    const blocked = await runHostSession({ host: 'claude-code', project, call: { name: 'Bash', input: { command: 'rm -rf victim' } }, hook: command });
    expect(blocked.toolResult).toContain('rm is blocked in this project');
    expect(existsSync(path.join(root, 'victim/keep.txt'))).toBe(true);
    expect(run(['uninstall', 'claude-code']).code).toBe(0);
    expect(existsSync(settingsFile)).toBe(false);
  });
});
