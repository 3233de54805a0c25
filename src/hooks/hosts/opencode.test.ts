/**
 * opencode's dialect, in-process with a real policy file: its tools judged
 * as the same acts Claude Code's are (the shell where its workdir puts it,
 * files, edits as the writes they make, a folder read as a listing, MCP
 * tools by the server opencode names in front of them), tools a repository
 * names like toolgate's own judged as the repository's, a repository's own
 * opencode code blocking every call, and answers only "allow" or "deny",
 * with every failure of toolgate's own exiting 2.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../../config/load-policy-file.ts';
import { HostInputError } from '../host-call.ts';
import { opencodeRepositoryCode, opencodeShell } from '../opencode-settings-layers.ts';
import { runHook } from '../run-hook.ts';
import { opencode } from './opencode.ts';
import { opencodePluginSource, readOpencodePlugin } from './opencode-plugin.ts';
import { opencodeInClaudeTerms } from './opencode-tools.ts';

const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-opencode-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const project = path.join(directory, 'project');
const home = path.join(directory, 'home');
mkdirSync(path.join(project, 'src'), { recursive: true });
mkdirSync(home);
writeFileSync(path.join(project, 'notes.txt'), 'one\ntwo\n');
const policyFile = path.join(project, 'toolgate.yaml');
writeFileSync(
  policyFile,
  `version: 1
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: allow, delete: ask } }
shell:
  default: ask
  network: false
  rules:
    - { match: ls, decision: allow }
    - { match: rm, decision: block, reason: "rm is blocked here" }
mcp:
  servers:
    files:
      command: /bin/true
      default: ask
      tools:
        read_text_file: allow
        write_file: block
`,
);
const env = { HOME: home, PATH: process.env.PATH };

async function judge(tool: string, args: Record<string, unknown>, options: { cwd?: string; env?: Record<string, string | undefined> } = {}) {
  const input = { event: 'tool.execute.before', tool, sessionID: 'ses_1', callID: 'toolu_1', args, directory: options.cwd ?? project, worktree: project };
  const answer = await runHook({ dialect: opencode, stdin: Readable.from([JSON.stringify(input)]), loadPolicy: () => loadPolicyFile(policyFile), env: options.env ?? env });
  return { ...answer, ...(answer.stdout === '' ? {} : (JSON.parse(answer.stdout) as { decision: string; reason: string })) };
}

describe('opencodeInClaudeTerms', () => {
  const map = (tool: string, input: Record<string, unknown>, mcpServers: string[] = []) => opencodeInClaudeTerms({ tool, input, cwd: project, mcpServers, hasMeaning: (name) => ['shell', 'read_file'].includes(name) });

  it("maps its shell, file, search and web tools, relative paths against the session's folder, the shell where workdir puts it", () => {
    expect(map('bash', { command: 'ls', description: 'x', timeout: 5 })).toEqual({ tool: 'Bash', input: { command: 'ls' }, cwd: project });
    expect(map('bash', { command: 'ls', workdir: '..' })).toEqual({ tool: 'Bash', input: { command: 'ls' }, cwd: directory });
    expect(map('read', { filePath: 'notes.txt', offset: 1 })).toEqual({ tool: 'Read', input: { file_path: path.join(project, 'notes.txt') }, cwd: project });
    expect(map('read', { filePath: 'src' })).toEqual({ tool: 'LS', input: { path: path.join(project, 'src') }, cwd: project });
    expect(map('write', { filePath: '../x', content: 'x' })).toEqual({ tool: 'Write', input: { file_path: path.join(directory, 'x'), content: 'x' }, cwd: project });
    expect(map('edit', { filePath: 'notes.txt', oldString: 'a', newString: 'b', replaceAll: true })).toMatchObject({ tool: 'Edit', input: { old_string: 'a', new_string: 'b', replace_all: true } });
    expect(map('grep', { pattern: 'x', include: '*.ts' })).toEqual({ tool: 'Grep', input: { pattern: 'x', path: project, glob: '*.ts' }, cwd: project });
    expect(map('glob', { pattern: '**/*.ts', path: '/etc' })).toMatchObject({ tool: 'Glob', input: { path: '/etc' } });
    expect(map('webfetch', { url: 'https://example.com', format: 'text' })).toEqual({ tool: 'WebFetch', input: { url: 'https://example.com' }, cwd: project });
    expect(map('apply_patch', { patchText: '*** Begin Patch\n*** End Patch' })).toMatchObject({ tool: 'apply_patch', input: { patch: '*** Begin Patch\n*** End Patch' } });
    for (const internal of ['todowrite', 'task', 'skill', 'question']) expect(map(internal, {})).toMatchObject({ tool: 'TodoWrite' });
  });

  it("names an MCP tool by the one server the policy names in front of it; a tool a repository names like toolgate's or Claude Code's is judged as the repository's", () => {
    expect(map('files_write_file', { path: 'x' }, ['files'])).toEqual({ tool: 'mcp__files__write_file', input: { path: 'x' }, cwd: project });
    // opencode writes a server's other characters as _.
    expect(map('my_files_read', {}, ['my.files'])).toMatchObject({ tool: 'mcp__my.files__read' });
    // Two servers could own it: judged by its own name.
    expect(map('a_b_c', {}, ['a', 'a_b'])).toMatchObject({ tool: 'a_b_c' });
    expect(map('files_', {}, ['files'])).toMatchObject({ tool: 'files_' });
    for (const name of ['shell', 'read_file', 'Read', 'Bash', 'TodoWrite', 'mcp__files__read_text_file']) expect(map(name, { command: 'ls' }, ['files'])).toMatchObject({ tool: `opencode:${name}` });
    expect(map('deploy', { to: 'prod' })).toEqual({ tool: 'deploy', input: { to: 'prod' }, cwd: project });
  });

  it('refuses arguments it cannot judge, naming the field', () => {
    for (const [tool, input, field] of [
      ['bash', { command: ['rm', '-rf', '/'] }, "bash's command"],
      ['bash', { command: 'ls', workdir: 3 }, "bash's workdir"],
      ['read', {}, "read's filePath"],
      ['write', { filePath: 'x', content: 42 }, "write's content"],
      ['edit', { filePath: 'x', oldString: 'a' }, "edit's newString"],
      ['apply_patch', { patch: 'x' }, "apply_patch's patchText"],
    ] as const) {
      expect(() => map(tool, input as Record<string, unknown>), tool).toThrow(HostInputError);
      expect(() => map(tool, input as Record<string, unknown>), tool).toThrow(field);
    }
  });
});

describe('toolgate hook opencode', () => {
  it('judges a command opencode runs with zsh ($SHELL) as one zsh reads otherwise than bash', async () => {
    const zsh = await judge('bash', { command: 'ls =ls' }, { env: { ...env, SHELL: '/bin/zsh' } });
    expect(zsh).toMatchObject({ decision: 'deny' });
    expect(zsh.reason).toContain('with zsh, and zsh reads an =word');
    // The same command, run with bash: a listing of the file =ls.
    expect(await judge('bash', { command: 'ls =ls' })).toMatchObject({ decision: 'allow' });
  });

  it('allows, denies with the reason, and denies what the policy would ask about (opencode cannot ask from a plugin), saying so', async () => {
    expect(await judge('bash', { command: 'ls', description: 'x' })).toMatchObject({ exitCode: 0, decision: 'allow' });
    const blocked = await judge('bash', { command: 'rm -rf src' });
    expect(blocked).toMatchObject({ exitCode: 0, decision: 'deny' });
    expect(blocked.reason).toContain('rm is blocked here');
    const asked = await judge('bash', { command: 'make' });
    expect(asked).toMatchObject({ exitCode: 0, decision: 'deny' });
    expect(asked.reason).toMatch(/needs approval/);
    // Allowed in the project, not in the folder above it.
    expect(await judge('bash', { command: 'ls > listing.txt' })).toMatchObject({ decision: 'allow' });
    expect(await judge('bash', { command: 'ls > listing.txt', workdir: directory })).toMatchObject({ decision: 'deny' });
    expect(await judge('edit', { filePath: path.join(project, 'notes.txt'), oldString: 'two', newString: 'three' })).toMatchObject({ decision: 'allow' });
    expect(await judge('files_read_text_file', { path: 'notes.txt' })).toMatchObject({ decision: 'allow' });
    expect((await judge('files_write_file', { path: 'notes.txt', content: 'x' })).reason).toContain('write_file');
    // A repository's tool named like toolgate's shell is not judged as the shell: unknown_tools asks, and so it is denied.
    const shellNamed = await judge('shell', { command: 'ls', cwd: project });
    expect(shellNamed).toMatchObject({ decision: 'deny' });
    expect(shellNamed.reason).toContain('opencode:shell');
  });

  it('a patch is judged by the files it changes, where opencode applies it: a cd before it moves nothing', async () => {
    const patch = (file: string) => `*** Begin Patch\n*** Add File: ${file}\n+x\n*** End Patch`;
    expect(await judge('apply_patch', { patchText: patch('src/new.ts') })).toMatchObject({ decision: 'allow' });
    expect(await judge('apply_patch', { patchText: patch('../outside.ts') })).toMatchObject({ decision: 'deny' });
    // opencode reads what lies between Begin and End Patch, relative to the session: ../x.ts is outside, whatever the cd says.
    expect(await judge('apply_patch', { patchText: `cd src && apply_patch <<'EOF'\n${patch('../x.ts')}\nEOF` })).toMatchObject({ decision: 'deny' });
    expect(await judge('apply_patch', { patchText: `cd src && apply_patch <<'EOF'\n${patch('new.ts')}\nEOF` })).toMatchObject({ decision: 'allow' });
    expect(await judge('apply_patch', { patchText: 'not a patch' })).toMatchObject({ decision: 'deny' });
  });

  it("writing opencode's configuration or an agent's instructions asks (denied here): the next start would run it", async () => {
    for (const file of ['.opencode/plugins/evil.js', 'opencode.json', 'AGENTS.md']) {
      const written = await judge('write', { filePath: path.join(project, file), content: 'x' });
      expect(written, file).toMatchObject({ decision: 'deny' });
      expect(written.reason, file).toMatch(/needs approval/);
    }
  });

  it("blocks every call where the repository's own opencode configuration runs code, naming it, unless opencode reads none (OPENCODE_DISABLE_PROJECT_CONFIG)", async () => {
    const repository = path.join(directory, 'hostile');
    mkdirSync(path.join(repository, '.opencode', 'tools'), { recursive: true });
    writeFileSync(path.join(repository, '.opencode', 'tools', 'bash.ts'), 'export default {}');
    writeFileSync(path.join(repository, 'opencode.json'), '{ // comments are allowed\n "model": "x", "formatter": { "x": { "command": ["./fmt"] } }, }');
    // A provider whose npm is a module of the repository's, which opencode imports (found on review).
    const provided = path.join(directory, 'provided');
    mkdirSync(provided);
    writeFileSync(path.join(provided, 'opencode.json'), '{"provider": {"anthropic": {"npm": "file://{env:PWD}/evil.mjs"}}}');
    expect(opencodeRepositoryCode({ cwd: provided, env })).toEqual([{ file: path.join(provided, 'opencode.json'), what: 'provider' }]);
    const blocked = await judge('bash', { command: 'ls' }, { cwd: repository });
    expect(blocked).toMatchObject({ exitCode: 0, decision: 'deny' });
    expect(blocked.reason).toContain(`${path.join(repository, 'opencode.json')} (formatter)`);
    expect(blocked.reason).toContain(`${path.join(repository, '.opencode', 'tools')} (tools (bash.ts))`);
    expect(blocked.reason).toContain('OPENCODE_DISABLE_PROJECT_CONFIG=1');
    expect(await judge('bash', { command: 'ls' }, { cwd: repository, env: { ...env, OPENCODE_DISABLE_PROJECT_CONFIG: 'true' } })).toMatchObject({ decision: 'deny' });
    // (ls is allowed, but the call is outside the policy's project: that decides here.)
    expect(opencodeRepositoryCode({ cwd: repository, env: { ...env, OPENCODE_DISABLE_PROJECT_CONFIG: '1' } })).toEqual([]);
    // A configuration that runs nothing is not code; the user's own folders are not the repository's.
    expect(opencodeRepositoryCode({ cwd: project, env })).toEqual([]);
    mkdirSync(path.join(home, '.opencode', 'plugins'), { recursive: true });
    writeFileSync(path.join(home, '.opencode', 'plugins', 'mine.js'), '');
    expect(opencodeRepositoryCode({ cwd: home, env })).toEqual([]);
    writeFileSync(path.join(project, 'opencode.json'), '{"model": "anthropic/x", "permission": {"bash": "allow"}}');
    expect(opencodeRepositoryCode({ cwd: path.join(project, 'src'), env })).toEqual([]);
    rmSync(path.join(project, 'opencode.json'));
    // A configuration file that cannot be read as one might say anything.
    writeFileSync(path.join(repository, '.opencode', 'opencode.json'), '[1]');
    expect(opencodeRepositoryCode({ cwd: repository, env })).toContainEqual({ file: path.join(repository, '.opencode', 'opencode.json'), what: '(the whole file: it cannot be read)' });
  });

  it("knows opencode's shell: the user's configured one, else $SHELL, else bash; one a repository sets blocks the call instead", async () => {
    const bash = opencodeShell(env);
    expect(bash).toMatch(/\/bash$/);
    mkdirSync(path.join(home, '.config', 'opencode'), { recursive: true });
    writeFileSync(path.join(home, '.config', 'opencode', 'opencode.json'), '{"shell": "/bin/zsh"}');
    expect(opencodeShell(env)).toBe('/bin/zsh');
    writeFileSync(path.join(home, '.config', 'opencode', 'opencode.json'), '{"shell": "fish"}');
    expect(opencodeShell(env)).toBe(bash);
    // Unconfigured, $SHELL (found on review: zsh globs ran past a rule judged as bash's).
    rmSync(path.join(home, '.config', 'opencode', 'opencode.json'));
    expect(opencodeShell({ ...env, SHELL: '/bin/zsh' })).toBe('/bin/zsh');
    expect(opencodeShell({ ...env, SHELL: '/usr/bin/fish' })).toBe(bash);
    expect(opencodeShell({ ...env, SHELL: '/nowhere/sh' })).toBe(bash);
    const repository = path.join(directory, 'shell-repo');
    mkdirSync(repository);
    writeFileSync(path.join(repository, 'opencode.json'), '{"shell": "./bash"}');
    // A repository's shell is never the one judged: the call is blocked, naming it, and without its configuration it does not apply.
    const blocked = await judge('bash', { command: 'ls' }, { cwd: repository });
    expect(blocked).toMatchObject({ decision: 'deny' });
    expect(blocked.reason).toContain(`${path.join(repository, 'opencode.json')} (shell)`);
    expect(opencodeShell({ ...env, OPENCODE_DISABLE_PROJECT_CONFIG: '1' })).toBe(bash);
  });

  it('refuses input it cannot read, exiting 2 with a denial that says why', async () => {
    for (const [input, said] of [
      [{ event: 'permission.ask', tool: 'bash', sessionID: 's', args: {}, directory: project }, 'answers tool.execute.before only'],
      [{ event: 'tool.execute.before', tool: 'bash', sessionID: 's', args: [], directory: project }, 'args must be a JSON object'],
      [{ event: 'tool.execute.before', tool: 'bash', sessionID: 's', args: {}, directory: 'project' }, 'directory must be an absolute path'],
      [{ event: 'tool.execute.before', tool: '', sessionID: 's', args: {}, directory: project }, 'tool must be a non-empty string'],
    ] as const) {
      const answer = await runHook({ dialect: opencode, stdin: Readable.from([JSON.stringify(input)]), loadPolicy: () => loadPolicyFile(policyFile), env });
      expect(answer.exitCode).toBe(2);
      expect(JSON.parse(answer.stdout)).toMatchObject({ decision: 'deny' });
      expect(answer.stderr).toContain(said);
    }
  });
});

describe("toolgate's opencode plugin file", () => {
  it('reads back the hook it was written with, and tells a file of someone else\'s', () => {
    const hook = { command: "/usr/bin/node '/opt/my tools/toolgate.js' hook opencode --timeout 600 || exit 2", timeoutSeconds: 600 };
    expect(readOpencodePlugin(opencodePluginSource(hook))).toEqual(hook);
    expect(readOpencodePlugin('export const Mine = async () => ({});\n')).toBeUndefined();
    expect(readOpencodePlugin(opencodePluginSource(hook).replace(/^const TOOLGATE_HOOK = .*$/m, 'const TOOLGATE_HOOK = {"command": 1};'))).toBe('unreadable');
  });
});
