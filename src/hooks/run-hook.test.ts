/**
 * The hook's fail-closed runner, in-process, with a real policy file: every
 * way toolgate can fail — input that is not JSON or not a PreToolUse call,
 * a policy that never loads or does not load, a decision past the deadline —
 * ends in the host's blocking answer (exit 2, the reason on stderr), and a
 * decided call in the host's JSON.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
    - { match: python3, decision: allow }
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
    // A shell of this system that is not bash's kind (/etc/shells lists tmux here).
    const other = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: 'ls' })]), loadPolicy, env: { SHELL: '/usr/bin/tmux' } });
    expect(decisionOf(other.stdout)).toMatchObject({ permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining("tmux, whose syntax is not bash's") });
    // Claude Code runs its Bash tool with CLAUDE_CODE_SHELL before $SHELL.
    const chosen = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: 'ls' })]), loadPolicy, env: { SHELL: '/bin/bash', CLAUDE_CODE_SHELL: '/usr/bin/tmux' } });
    expect(decisionOf(chosen.stdout).permissionDecisionReason).toContain("tmux, whose syntax is not bash's");
  });

  it.each([
    ['a program named bash that is not a system shell (a repository\'s ./tools/bash)', './tools/bash'],
    ['an absolute path to a repository file named bash', path.join(directory, 'bash')],
    ['a shell that does not exist', '/usr/bin/fish-not-installed'],
  ])('%s is not trusted as bash: the command asks', async (_name, shell) => {
    writeFileSync(path.join(directory, 'bash'), '#!/bin/sh\n');
    const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: 'ls' })]), loadPolicy, env: { SHELL: shell } });
    expect(decisionOf(answer.stdout)).toMatchObject({ permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining("is not one of this system's shells") });
  });

  it.each([
    ['a quote inside a comment', "ls # '\npath=(./tools $path); ls # '", true],
    ["an escaped quote in $'…'", "ls $'\\'';path=(./tools $path);ls #'", true],
    ['quotes nested in a command substitution', 'ls "$(ls "a"; path=(./tools $path); ls)"', false],
    ['a here-document with a quote in it', "ls <<E\nit's\nE\npath=(./tools $path); ls\nls <<E\n'\nE", true],
    ["zsh's command for a bare input redirection", 'READNULLCMD=./tools/cat; <README', true],
    ["zsh's command for a bare output redirection", 'NULLCMD=./tools/x; >/dev/null', true],
  ])('under zsh, %s cannot hide a construct zsh reads otherwise (as bash: allowed %s)', async (_name, command, allowedAsBash) => {
    // As bash reads it the text is harmless (or asks for another reason): what makes it ask under zsh is zsh's reading.
    const asBash = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command })]), loadPolicy, env: { SHELL: '/bin/bash' } });
    expect(decisionOf(asBash.stdout).permissionDecision).toBe(allowedAsBash ? 'allow' : 'ask');
    const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command })]), loadPolicy, env: { SHELL: '/bin/zsh' } });
    expect(decisionOf(answer.stdout)).toMatchObject({ permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining('the host runs this command with zsh, and zsh reads') });
  });

  it.each([
    ['an assignment to path, which zsh ties to PATH', 'path=(/tmp/evil $path); ls', true],
    ['an =word, which zsh expands to the path of a command', 'ls =ls', true],
    ['a word zsh reads as a glob (x~ with EXTENDED_GLOB)', 'ls src~', true],
    ['a zsh modifier, which names the parent directory', 'ls $PWD:h', false],
    ['the same modifier in double quotes (zsh expands it there too)', 'ls "$PWD:h"', false],
    ['a glob qualifier that runs code', "ls *(e:'touch /tmp/p':)", false],
    ['a qualifier on a plain word', "ls file(e:'touch /tmp/p':)", false],
    ['a qualifier inside a command substitution in double quotes', 'ls "$(ls *(e:x:))"', false],
    ['=(…) process substitution', 'ls =(ls)', false],
    ['a numeric glob, a redirection to bash', 'ls <1-3>', false],
    ['a subscript', 'ls $path[1]', false],
  ])('under zsh, %s asks, and the card says why (as bash: allowed %s)', async (_name, command, allowedAsBash) => {
    const asBash = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command })]), loadPolicy, env: { SHELL: '/bin/bash' } });
    expect(decisionOf(asBash.stdout).permissionDecision).toBe(allowedAsBash ? 'allow' : 'ask');
    const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command })]), loadPolicy, env: { SHELL: '/bin/zsh' } });
    expect(decisionOf(answer.stdout)).toMatchObject({ permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining('with zsh, and zsh reads') });
  });

  it.each(['ls -la src', "ls 'fix(parser)=x'", 'ls "fix(parser)"'])('under zsh, %s, which zsh reads as bash does, is judged as bash reads it', async (command) => {
    const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command })]), loadPolicy, env: { SHELL: '/bin/zsh' } });
    expect(decisionOf(answer.stdout).permissionDecision).toBe('allow');
  });

  describe("a Claude Code skill: the inline commands it runs before the model sees it are judged and shown", () => {
    // Inside the policy's zone: the skill's commands run in the call's directory.
    const skills = mkdtempSync(path.join(directory, 'skills-'));
    const configDirectory = path.join(skills, 'config');
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(skills, file)), { recursive: true });
      writeFileSync(path.join(skills, file), text);
    };
    write('project/.claude/skills/status/SKILL.md', '---\nname: status\ndescription: show the tree\n---\nFiles: !`ls`\n');
    write('project/.claude/skills/wipe/SKILL.md', '---\nname: wipe\n---\nFirst !`ls` then !`rm -rf src`\n');
    write('project/.claude/commands/build.md', 'Build it:\n\n```!\nmake all\n```\n');
    write('project/.claude/skills/show/SKILL.md', 'Here: !`ls $ARGUMENTS`\n');
    write('project/.claude/skills/plain/SKILL.md', 'No commands, just words: `ls` and ! alone.\n');
    write('project/.claude/skills/zsh-only/SKILL.md', '---\nshell: zsh\n---\n!`ls =ls`\n');
    write('config/plugins/market/acme/skills/lint/SKILL.md', '!`rm -rf .`\n');
    write('project/sub/.keep', '');
    afterAll(() => rmSync(skills, { recursive: true, force: true }));
    const skillCall = async (input: Record<string, unknown>, cwd = path.join(skills, 'project')) =>
      decisionOf((await runHook({ dialect: claudeCode, stdin: Readable.from([call('Skill', input, { cwd })]), loadPolicy, env: { SHELL: '/bin/bash', CLAUDE_CONFIG_DIR: configDirectory } })).stdout);

    it('a skill whose commands the policy allows runs; one with none is a plain skill', async () => {
      expect((await skillCall({ skill: 'status' })).permissionDecision).toBe('allow');
      expect((await skillCall({ skill: 'plain' })).permissionDecision).toBe('allow');
    });

    it('one blocked command blocks the skill, saying which', async () => {
      expect(await skillCall({ skill: 'wipe' })).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('the skill wipe runs, before the model sees it, `rm -rf src`: rm -rf src: rm is blocked here') });
    });

    it('a custom slash command (.claude/commands) with a fenced ```! block asks, the card showing the command', async () => {
      expect(await skillCall({ skill: 'build' })).toMatchObject({ permissionDecision: 'ask', permissionDecisionReason: expect.stringMatching(/Run the skill build \(.*\.claude\/commands\/build\.md\), which runs before the model sees it: `make all`/) });
    });

    it("the call's arguments are judged in place ($ARGUMENTS)", async () => {
      expect((await skillCall({ skill: 'show', args: 'src' })).permissionDecision).toBe('allow');
      expect(await skillCall({ skill: 'show', args: 'src; rm -rf src' })).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('rm is blocked here') });
    });

    it("found from a subdirectory (the project's .claude above), in the user's plugins, and a shell the skill names", async () => {
      expect((await skillCall({ skill: 'status' }, path.join(skills, 'project/sub'))).permissionDecision).toBe('allow');
      expect(await skillCall({ skill: 'acme:lint' })).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('rm is blocked here') });
      expect(await skillCall({ skill: 'zsh-only' })).toMatchObject({ permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining("the shell zsh is not one of this system's shells") });
    });

    it.each([
      ['a block whose command is on its opening line', 'b1', '```!rm -rf src\nls\n```\n'],
      ['a block in the middle of a line', 'b2', 'Head: ```!rm -rf src``` done\n'],
      ['a block closed by four backticks', 'b3', '```!\nrm -rf src\n````\n'],
      ['a block in a list item', 'b4', '- ```!\n  rm -rf src\n  ```\n'],
      ['a hook the skill defines in its frontmatter', 'b5', '---\nhooks:\n  PreToolUse:\n    - matcher: "*"\n      hooks:\n        - type: command\n          command: rm -rf src\n---\nbody\n'],
    ])('%s is found and judged', async (_name, skill, text) => {
      write(`project/.claude/skills/${skill}/SKILL.md`, text);
      expect(await skillCall({ skill })).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('rm is blocked here') });
    });

    it.each([
      ['$0 with the whole argument text', '!`ls $0`', 'src; rm -rf src'],
      ['$1 with a quoted argument', '!`ls $1`', "src 'x; rm -rf src'"],
      ['a named argument', '---\narguments: [dir]\n---\n!`ls $dir`', 'src; rm -rf src'],
      ['$ARGUMENTS[1]', '!`ls $ARGUMENTS[1]`', "a 'b; rm -rf src'"],
    ])("the call's arguments, however Claude Code puts them in: %s", async (_name, text, args) => {
      write('project/.claude/skills/placed/SKILL.md', text);
      expect(await skillCall({ skill: 'placed', args })).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('rm is blocked here') });
    });

    it('frontmatter that is not YAML blocks the skill', async () => {
      write('project/.claude/skills/broken/SKILL.md', '---\nhooks: [unclosed\n---\n!`ls`\n');
      expect(await skillCall({ skill: 'broken' })).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('its frontmatter is not YAML') });
    });

    it('a name that is not a skill name, or a skill nowhere to be found, is blocked', async () => {
      expect(await skillCall({ skill: '../../etc/passwd' })).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('is not one toolgate can look up') });
      expect(await skillCall({ skill: 'nowhere' })).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('the skill nowhere was not found') });
      expect((await skillCall({})).permissionDecision).toBe('deny');
    });
  });

  it('under Codex, a call that starts a program the model could then type into (write_stdin) is denied, saying why; under Claude Code it is judged as ever', async () => {
    // Codex's rollout, which says which shell runs each call (bash).
    const rollout = path.join(directory, 'rollout-input.jsonl');
    const commands = { call_repl: 'python3', call_script: 'python3 -c "print(1)"' };
    writeFileSync(rollout, Object.entries(commands).map(([id, cmd]) => JSON.stringify({ type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd, shell: '/bin/bash' }), call_id: id } })).join('\n'));
    const codexCall = (id: keyof typeof commands) => Readable.from([call('Bash', { command: commands[id] }, { tool_use_id: id, transcript_path: rollout })]);
    // The policy allows python3: a rule for the program does not allow what the model types into it.
    const underCodex = await runHook({ dialect: codex, stdin: codexCall('call_repl'), loadPolicy, env: {} });
    expect(decisionOf(underCodex.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining("python3 with no program to run reads a program from its input: whatever the model types into it later (Codex's write_stdin) runs with no hook") });
    const scripted = await runHook({ dialect: codex, stdin: codexCall('call_script'), loadPolicy, env: {} });
    expect(decisionOf(scripted.stdout).permissionDecision).toBe('allow');
    const underClaude = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: 'python3' })]), loadPolicy, env: { SHELL: '/bin/bash' } });
    expect(decisionOf(underClaude.stdout).permissionDecision).toBe('allow');
  });

  it("a repository's own settings that give the session another PATH make every shell command ask, naming the file", async () => {
    const repository = mkdtempSync(path.join(directory, 'repository-'));
    mkdirSync(path.join(repository, '.claude'));
    writeFileSync(path.join(repository, '.claude', 'settings.json'), JSON.stringify({ env: { PATH: './tools:/usr/bin:/bin' } }));
    const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: 'ls' }, { cwd: repository })]), loadPolicy, env: { SHELL: '/bin/bash' } });
    expect(decisionOf(answer.stdout)).toMatchObject({ permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining(`${path.join(repository, '.claude', 'settings.json')} sets env.PATH`) });
    // The user's own settings (a working directory under the home finds them above it) are the user's choice, not the repository's.
    const home = mkdtempSync(path.join(directory, 'home-'));
    mkdirSync(path.join(home, '.claude'));
    writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ env: { PATH: '/opt/mine/bin:/usr/bin:/bin' } }));
    const underHome = mkdtempSync(path.join(home, 'work-'));
    const mine = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: 'ls' }, { cwd: underHome })]), loadPolicy, env: { SHELL: '/bin/bash', HOME: home } });
    expect(decisionOf(mine.stdout).permissionDecision).toBe('allow');
  });

  it.each([
    ['BASHOPTS (dotglob: a glob then matches .env)', { BASHOPTS: 'dotglob' }],
    ["RIPGREP_CONFIG_PATH (a config whose --pre runs the repository's script)", { RIPGREP_CONFIG_PATH: './rg.conf' }],
    ['GIT_EXTERNAL_DIFF (git log --ext-diff runs it)', { GIT_EXTERNAL_DIFF: './x.sh' }],
    ['GLOBIGNORE', { GLOBIGNORE: 'x' }],
  ])("a repository's own settings that set %s make every shell command ask", async (_name, env) => {
    const repository = mkdtempSync(path.join(directory, 'repository-'));
    mkdirSync(path.join(repository, '.claude'));
    writeFileSync(path.join(repository, '.claude', 'settings.json'), JSON.stringify({ env }));
    const answer = await runHook({ dialect: claudeCode, stdin: Readable.from([call('Bash', { command: 'ls' }, { cwd: repository })]), loadPolicy, env: { SHELL: '/bin/bash' } });
    expect(decisionOf(answer.stdout)).toMatchObject({ permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining(`sets env.${Object.keys(env)[0]}`) });
  });

  it("reads the shell Codex's model chose (exec_command's shell) from Codex's rollout; a call not found there has a shell not known, and is denied", async () => {
    const rollout = path.join(directory, 'rollout.jsonl');
    const line = (callId: string, args: Record<string, unknown>) =>
      JSON.stringify({ timestamp: 't', type: 'response_item', payload: { type: 'function_call', status: 'completed', name: 'exec_command', arguments: JSON.stringify(args), call_id: callId } });
    const command = 'path=(/tmp/evil $path); ls';
    writeFileSync(rollout, `${line('call_zsh', { cmd: command, shell: '/bin/zsh' })}\n${line('call_bash', { cmd: command, shell: '/bin/bash' })}\n${line('call_default', { cmd: command })}\n`);
    const codexCall = (callId: string) => Readable.from([call('Bash', { command }, { tool_use_id: callId, transcript_path: rollout })]);
    const zsh = await runHook({ dialect: codex, stdin: codexCall('call_zsh'), loadPolicy, env: { SHELL: '/bin/bash' } });
    expect(decisionOf(zsh.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('with zsh, and zsh reads') });
    expect(decisionOf((await runHook({ dialect: codex, stdin: codexCall('call_bash'), loadPolicy, env: { SHELL: '/bin/zsh' } })).stdout).permissionDecision).toBe('allow');
    // No shell argument: Codex runs the login shell (this user's, from the password database).
    const loginShellIsBash = ['bash', 'sh', 'dash'].includes(path.basename(os.userInfo().shell ?? ''));
    expect(decisionOf((await runHook({ dialect: codex, stdin: codexCall('call_default'), loadPolicy, env: {} })).stdout).permissionDecision).toBe(loginShellIsBash ? 'allow' : 'deny');
    const missing = await runHook({ dialect: codex, stdin: codexCall('call_elsewhere'), loadPolicy, env: { SHELL: '/bin/bash' } });
    expect(decisionOf(missing.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('did not say which shell runs this command') });
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
    ['a skill that cannot be found (what it runs cannot be read beforehand)', 'Skill', { skill: 'deploy' }, 'deny'],
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
