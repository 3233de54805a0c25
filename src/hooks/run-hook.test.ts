/**
 * The hook's fail-closed runner, in-process, with a real policy file: every
 * way toolgate can fail — input that is not JSON or not a PreToolUse call,
 * a policy that never loads or does not load, a decision past the deadline —
 * ends in the host's blocking answer (exit 2, the reason on stderr), and a
 * decided call in the host's JSON.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../config/load-policy-file.ts';
import { claudeCode } from './hosts/claude-code.ts';
import { codex } from './hosts/codex.ts';
import { createHostJudge } from './decide-host-call.ts';
import { MAX_HOOK_INPUT_BYTES, runHook } from './run-hook.ts';

const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-hook-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const policyFile = path.join(directory, 'toolgate.yaml');
writeFileSync(
  policyFile,
  `version: 1
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: ask, delete: ask } }
shell:
  default: ask
  network: false
  rules:
    - { match: ls, decision: allow }
    - { match: rm, decision: block, reason: "rm is blocked here" }
audit: { enabled: false }
`,
);

const loadPolicy = () => loadPolicyFile(policyFile);

function call(toolName: string, toolInput: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ session_id: 'session-1', cwd: directory, hook_event_name: 'PreToolUse', tool_name: toolName, tool_input: toolInput, tool_use_id: 'toolu_1', ...extra });
}

function decisionOf(stdout: string): { permissionDecision: string; permissionDecisionReason: string } {
  return (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
}

describe('runHook', () => {
  it('answers allow, deny and ask in the host JSON, exit 0', async () => {
    const allowed = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: "bash -lc 'ls'" })]), loadPolicy, env: {} });
    expect(allowed.exitCode).toBe(0);
    expect(decisionOf(allowed.stdout)).toMatchObject({ permissionDecision: 'allow' });
    const blocked = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: 'rm -rf /' })]), loadPolicy, env: {} });
    expect(decisionOf(blocked.stdout)).toEqual({ hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'toolgate: rm -rf /: rm is blocked here' });
    const asked = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Write', { file_path: path.join(directory, 'a.txt'), content: 'a' })]), loadPolicy, env: {} });
    expect(decisionOf(asked.stdout)).toMatchObject({ permissionDecision: 'ask' });
    expect(decisionOf(asked.stdout).permissionDecisionReason).toContain('a.txt');
  });

  it('never answers "ask" to Codex: a call that asks is denied, saying why', async () => {
    const answer = await runHook({ dialect: codex, stdin: Readable.from([call('Write', { file_path: path.join(directory, 'a.txt'), content: 'a' })]), loadPolicy, env: {} });
    expect(answer.exitCode).toBe(0);
    expect(decisionOf(answer.stdout).permissionDecision).toBe('deny');
    const reason = decisionOf(answer.stdout).permissionDecisionReason;
    expect(reason).toContain('Codex cannot ask a person from its hook');
    // Who could decide, and how to reach them; never a rule or a mode that would let the call through.
    expect(reason).toContain("toolgate serve's web inbox");
    expect(reason).toContain('toolgate install codex --approver server --server URL');
    expect(reason).toMatch(/asked by \S/);
    expect(reason).not.toMatch(/allow it|approve_all|approve-all|mode:/);
  });

  it.each([
    ['input that is not JSON', 'rm -rf /', /the input is not JSON/],
    ['a JSON value that is not an object', '[1,2]', /expected the JSON object Claude Code sends its PreToolUse hook, not a list/],
    ['another hook event', call('Bash', { command: 'ls' }, { hook_event_name: 'PostToolUse' }), /answers PreToolUse only/],
    ['a missing session id', call('Bash', { command: 'ls' }, { session_id: undefined }), /session_id must be a non-empty string, not missing/],
    ['a relative working directory', call('Bash', { command: 'ls' }, { cwd: 'project' }), /cwd must be an absolute path/],
    ['a command that is not a string', call('Bash', { command: { run: 'ls' } }), /Bash's command must be a string or a list of strings, not an object/],
    ['an edit without old_string', call('Edit', { file_path: '/x', new_string: 'y' }), /Edit's old_string must be a string, not missing/],
  ])('blocks %s: exit 2, the reason on stderr, nothing on stdout', async (_name, input, reason) => {
    const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([input]), loadPolicy, env: {} });
    expect(answer).toMatchObject({ exitCode: 2, stdout: '' });
    expect(answer.stderr).toMatch(reason);
    expect(answer.stderr).toMatch(/the call is blocked\n$/);
  });

  it('blocks input larger than the limit without reading all of it', async () => {
    const big = Buffer.alloc(1024 * 1024, 'x');
    const chunks = Array.from({ length: Math.ceil(MAX_HOOK_INPUT_BYTES / big.length) + 2 }, () => big);
    const answer = await runHook({ dialect: codex, stdin: Readable.from(chunks), loadPolicy, env: {} });
    expect(answer.exitCode).toBe(2);
    expect(answer.stderr).toContain(`larger than ${MAX_HOOK_INPUT_BYTES} bytes`);
  });

  it('blocks when the policy does not load, and when loading it throws anything', async () => {
    const missing = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: 'ls' })]), loadPolicy: () => loadPolicyFile(path.join(directory, 'nope.yaml')), env: {} });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('nope.yaml');
    const thrown = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: 'ls' })]), loadPolicy: () => Promise.reject(new TypeError('boom')), env: {} });
    expect(thrown).toMatchObject({ exitCode: 2, stdout: '' });
    expect(thrown.stderr).toContain('toolgate could not decide this call (boom)');
  });

  it('answers "blocked" by its own deadline, before the host would give up on it, when deciding hangs', async () => {
    const started = Date.now();
    const answer = await runHook({ dialect: codex, stdin: Readable.from([call('Bash', { command: 'ls' })]), loadPolicy: () => new Promise(() => {}), env: {}, budgetMs: 2_000 });
    const took = Date.now() - started;
    expect(answer).toMatchObject({ exitCode: 2, stdout: '' });
    expect(answer.stderr).toContain("no decision within 1.5 s (the hook's deadline, under Codex's 2 s budget): the call is blocked");
    expect(took).toBeGreaterThanOrEqual(1_400);
    expect(took).toBeLessThan(2_000);
  });

  it('blocks when the host never closes its input, by the deadline', async () => {
    const never = new Readable({ read() {} });
    const answer = await runHook({ dialect: claudeCode, stdin: never, loadPolicy, env: {}, budgetMs: 1_000 });
    expect(answer.exitCode).toBe(2);
    expect(answer.stderr).toContain('no decision within');
  });

  it('an edit that would grow the file past the limit is judged as an edit of the file, at once (not computed)', async () => {
    writeFileSync(path.join(directory, 'grow.txt'), 'hello\n');
    const edits = [{ old_string: 'hello', new_string: 'a' }, ...Array.from({ length: 7 }, () => ({ old_string: 'a', new_string: 'a'.repeat(16), replace_all: true }))];
    const started = Date.now();
    const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call('MultiEdit', { file_path: path.join(directory, 'grow.txt'), edits })]), loadPolicy, env: {} });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(answer.exitCode).toBe(0);
    expect(decisionOf(answer.stdout).permissionDecision).toBe('ask');
  });

  it('under zsh, a command zsh reads otherwise than bash asks; under bash it is judged as bash reads it', async () => {
    const command = 'ls =ls';
    const bash = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command })]), loadPolicy, env: { SHELL: '/bin/bash' } });
    expect(decisionOf(bash.stdout).permissionDecision).toBe('allow');
    const zsh = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command })]), loadPolicy, env: { SHELL: '/usr/bin/zsh' } });
    expect(decisionOf(zsh.stdout)).toMatchObject({ permissionDecision: 'ask' });
    expect(decisionOf(zsh.stdout).permissionDecisionReason).toContain('zsh');
    const flags = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: "ls ${(e)${:-'$(touch /tmp/x)'}}" })]), loadPolicy, env: { SHELL: '/bin/zsh', CLAUDE_CODE_SHELL: '/bin/zsh' } });
    expect(decisionOf(flags.stdout).permissionDecision).not.toBe('allow');
    const fish = await runHook({ dialect: codex, stdin: Readable.from([call('Bash', { command: 'ls' })]), loadPolicy, env: { SHELL: '/usr/bin/fish' } });
    expect(decisionOf(fish.stdout).permissionDecision).toBe('deny');
    expect(decisionOf(fish.stdout).permissionDecisionReason).toContain("fish, whose syntax is not bash's");
  });

  it.each([
    ['an absolute Glob pattern outside the zones, whatever its path says', 'Glob', { pattern: '/etc/*', path: directory }, 'deny'],
    ['a Glob pattern that climbs out with ..', 'Glob', { pattern: '../*' }, 'deny'],
    ["Grep's glob outside the zones", 'Grep', { pattern: 'x', glob: '/etc/**' }, 'deny'],
    ['a Glob pattern whose brace alternative is outside the zones', 'Glob', { pattern: '{/etc,src}/*' }, 'deny'],
    ['a Glob pattern whose brace alternative climbs out', 'Glob', { pattern: '{..,src}/*' }, 'deny'],
    ['a Glob pattern that climbs out after a wildcard', 'Glob', { pattern: '**/../../*' }, 'deny'],
    ['a Glob pattern with braces inside the zone', 'Glob', { pattern: 'src/{a,b}/**/*.ts' }, 'allow'],
    ["a write to the host's own configuration", 'Write', { file_path: path.join(directory, '.claude', 'settings.json'), content: '{}' }, 'ask'],
    ['a skill (its !commands run without the hook)', 'Skill', { skill: 'deploy' }, 'ask'],
    ["Monitor's command, judged as a shell command", 'Monitor', { command: 'rm -rf /', description: 'x' }, 'deny'],
    ['a sub-agent that runs elsewhere', 'Agent', { prompt: 'x', isolation: 'remote' }, 'ask'],
    ['a local sub-agent (its calls come through the hook)', 'Agent', { prompt: 'x' }, 'allow'],
  ])('%s: %s', async (_name, tool, input, expected) => {
    const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call(tool, input)]), loadPolicy, env: {} });
    expect(answer.exitCode, answer.stderr).toBe(0);
    expect(decisionOf(answer.stdout).permissionDecision).toBe(expected);
  });

  it("writes a reason that quotes the call inert: no escape, control or bidi character reaches the host's terminal", async () => {
    const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: 'make \u001b]0;owned\u0007\u001b[2J\u202e\u009b' })]), loadPolicy, env: {} });
    const reason = decisionOf(answer.stdout).permissionDecisionReason;
    expect(reason).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(reason).toContain('\\x1b');
  });

  it('an edit in a zone whose reads ask is judged without reading the file: its content is not shown to whoever sent the call', async () => {
    const privateDirectory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-hook-private-'));
    try {
      writeFileSync(path.join(privateDirectory, 'secret.txt'), 'the secret is 42\n');
      const privatePolicy = path.join(privateDirectory, 'toolgate.yaml');
      writeFileSync(privatePolicy, `version: 1\nfs:\n  zones:\n    - { name: private, root: ., mode: rw, approval: { read: ask, write: ask, delete: ask } }\naudit: { enabled: false }\n`);
      const judge = await createHostJudge({ loaded: await loadPolicyFile(privatePolicy), env: {}, cwd: privateDirectory });
      const input = { host: 'claude-code' as const, sessionId: 's', cwd: privateDirectory, toolUseId: undefined, transcriptPath: undefined, hostTool: 'Edit', toolInput: { file_path: path.join(privateDirectory, 'secret.txt'), old_string: 'the', new_string: 'a' } };
      const verdict = await judge.decide(input, { by: 'host' });
      await judge.close();
      expect(verdict.decision).toBe('ask');
      // Judged as the edit, not as a write of the file's new content (which the inbox would show as a diff).
      expect(verdict.call.call).toMatchObject({ kind: 'tool', tool: 'edit_file' });
      expect(JSON.stringify(verdict.call.call)).not.toContain('secret is 42');
    } finally {
      rmSync(privateDirectory, { recursive: true, force: true });
    }
  });
});
