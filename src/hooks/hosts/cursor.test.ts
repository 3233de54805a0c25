/**
 * Cursor's hooks dialect, in-process with a real policy file, against
 * payloads in the shapes Cursor's hooks documentation gives (no Cursor runs
 * here): a shell command judged with its cwd, a file read (which has no
 * "ask": one the policy would ask about is denied), an MCP tool by its own
 * name, its file changes through preToolUse, the answer `{permission,
 * user_message, agent_message}`, and every failure of toolgate's own a
 * printed denial with exit 2.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../../config/load-policy-file.ts';
import { runHook } from '../run-hook.ts';
import { cursor } from './cursor.ts';

const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-cursor-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const project = path.join(directory, 'project');
mkdirSync(path.join(project, 'src'), { recursive: true });
writeFileSync(path.join(project, 'notes.txt'), 'one\n');
mkdirSync(path.join(project, 'private'));
writeFileSync(path.join(project, 'private', 'key.txt'), 'TOKEN=x\n');
writeFileSync(path.join(directory, 'secret.txt'), 'outside\n');
const policyFile = path.join(project, 'toolgate.yaml');
writeFileSync(
  policyFile,
  `version: 1
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: allow, delete: ask } }
    - { name: private, root: ./private, mode: ro, approval: { read: ask } }
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
tools:
  query_database: { decision: block, reason: "no database from the agent" }
unknown_tools: { decision: ask }
audit: { enabled: false }
`,
);

const common = { conversation_id: 'conv-1', generation_id: 'gen-1', model: 'gpt-5', cursor_version: '2.1.0', workspace_roots: [project], user_email: 'dev@example.com' };

async function decide(event: string, fields: Record<string, unknown>): Promise<{ exitCode: number; permission?: string; message?: string; stderr: string }> {
  const answer = await runHook({ dialect: cursor, stdin: Readable.from([JSON.stringify({ ...common, hook_event_name: event, ...fields })]), loadPolicy: () => loadPolicyFile(policyFile), env: { PATH: '/usr/local/bin:/usr/bin:/bin', SHELL: '/bin/bash' } });
  if (answer.stdout === '') return { exitCode: answer.exitCode, stderr: answer.stderr };
  const parsed = JSON.parse(answer.stdout) as { permission: string; user_message: string; agent_message: string };
  expect(Object.keys(parsed).sort()).toEqual(['agent_message', 'permission', 'user_message']);
  expect(parsed.user_message).toBe(parsed.agent_message);
  return { exitCode: answer.exitCode, permission: parsed.permission, message: parsed.agent_message, stderr: answer.stderr };
}

describe('toolgate hook cursor', () => {
  it('judges a shell command in its cwd: blocked with the reason, allowed, and asked (Cursor asks its user)', async () => {
    expect(await decide('beforeShellExecution', { command: 'rm -rf src', cwd: project })).toMatchObject({ exitCode: 0, permission: 'deny', message: expect.stringContaining('rm is blocked here') });
    expect(await decide('beforeShellExecution', { command: 'ls', cwd: path.join(project, 'src') })).toMatchObject({ exitCode: 0, permission: 'allow' });
    expect(await decide('beforeShellExecution', { command: 'make deploy', cwd: project })).toMatchObject({ exitCode: 0, permission: 'ask' });
    // Its cwd is where it runs: a command in a folder outside the zones is not run there.
    expect(await decide('beforeShellExecution', { command: 'ls', cwd: directory })).toMatchObject({ exitCode: 0, permission: 'deny' });
  });

  it('judges a file read by its zone, and never answers "ask" to one (a read has no ask): it is denied, saying a person would have to approve it', async () => {
    expect(await decide('beforeReadFile', { file_path: path.join(project, 'notes.txt'), content: 'one\n' })).toMatchObject({ permission: 'allow' });
    expect(await decide('beforeReadFile', { file_path: path.join(directory, 'secret.txt'), content: 'outside\n' })).toMatchObject({ permission: 'deny' });
    const asked = await decide('beforeReadFile', { file_path: path.join(project, 'private', 'key.txt'), content: 'TOKEN=x\n' });
    expect(asked).toMatchObject({ exitCode: 0, permission: 'deny', message: expect.stringContaining('Cursor cannot ask a person from its hook') });
    expect(asked.message).toContain('install the hook with `toolgate install cursor --approver server --server URL`');
  });

  it('judges an MCP tool by its own name, its arguments given as JSON text', async () => {
    expect(await decide('beforeMCPExecution', { tool_name: 'query_database', tool_input: '{"query":"DROP TABLE users"}', url: 'http://localhost:3000/mcp' })).toMatchObject({ permission: 'deny', message: expect.stringContaining('no database from the agent') });
    expect(await decide('beforeMCPExecution', { tool_name: 'search_docs', tool_input: { q: 'hooks' }, command: 'npx docs-server' })).toMatchObject({ permission: 'ask' });
  });

  // preToolUse, as a captured payload gives it (cursor-agent 2026.09.02): tool_use_id, an empty cwd, session_id beside conversation_id.
  const preToolUse = (tool_name: string, tool_input: unknown, cwd = '') => ({ tool_name, tool_input, tool_use_id: 'b8e299fb-1691-45b0-ade5-d223c95b1cd1', cwd, session_id: 'conv-1', transcript_path: null });

  it("judges its file changes (preToolUse): a write and an edit by the zone they land in, a delete as the delete it is, a patch by each file it changes; never \"ask\" there (Cursor does not enforce it): denied, saying so", async () => {
    expect(await decide('preToolUse', preToolUse('Write', { file_path: path.join(project, 'new.txt'), content: 'x\n' }))).toMatchObject({ exitCode: 0, permission: 'allow' });
    // A relative path is the workspace's; the documented `path` and `contents` are read too.
    expect(await decide('preToolUse', preToolUse('Write', { path: 'src/made.ts', contents: 'x' }))).toMatchObject({ permission: 'allow' });
    expect(await decide('preToolUse', preToolUse('Write', { file_path: path.join(directory, 'escaped.txt'), content: 'x' }))).toMatchObject({ permission: 'deny', message: expect.stringContaining('escaped.txt') });
    expect(await decide('preToolUse', preToolUse('StrReplace', { file_path: path.join(project, 'notes.txt'), old_string: 'one', new_string: 'two' }))).toMatchObject({ permission: 'allow' });
    expect(await decide('preToolUse', preToolUse('StrReplace', { file_path: path.join(directory, 'secret.txt'), old_string: 'outside', new_string: 'x' }))).toMatchObject({ permission: 'deny' });
    // The zone asks about deletes: no ask through preToolUse, so a denial that says a person would have to approve it.
    expect(await decide('preToolUse', preToolUse('Delete', { file_path: path.join(project, 'notes.txt') }))).toMatchObject({ exitCode: 0, permission: 'deny', message: expect.stringContaining('Cursor cannot ask a person from its hook') });
    const patch = (target: string) => `*** Begin Patch\n*** Add File: ${target}\n+x\n*** End Patch\n`;
    expect(await decide('preToolUse', preToolUse('ApplyPatch', { patch: patch('src/patched.ts') }))).toMatchObject({ permission: 'allow' });
    expect(await decide('preToolUse', preToolUse('ApplyPatch', { patch: patch('../patched.ts') }))).toMatchObject({ permission: 'deny' });
    expect(await decide('preToolUse', preToolUse('ApplyPatch', { patch: 'not a patch' }))).toMatchObject({ permission: 'deny', message: expect.stringContaining('does not start with *** Begin Patch') });
  });

  it('preToolUse for the calls a wider matcher of the user sends: a command where its input says, a read, an MCP tool (named like a tool of toolgate\'s, it is judged under Cursor\'s name for it)', async () => {
    expect(await decide('preToolUse', preToolUse('Shell', { command: 'rm -rf src', cwd: '', timeout: 30000 }))).toMatchObject({ permission: 'deny', message: expect.stringContaining('rm is blocked here') });
    expect(await decide('preToolUse', preToolUse('Shell', { command: 'ls', working_directory: directory }))).toMatchObject({ permission: 'deny' });
    // The captured empty cwd beside a documented working_directory: the one given.
    expect(await decide('preToolUse', preToolUse('Shell', { command: 'ls', cwd: '', working_directory: directory }))).toMatchObject({ permission: 'deny' });
    expect(await decide('preToolUse', preToolUse('Shell', { command: 'ls', cwd: path.join(project, 'src'), working_directory: path.join(project, 'src') }))).toMatchObject({ permission: 'allow' });
    expect(await decide('preToolUse', preToolUse('Read', { file_path: path.join(directory, 'secret.txt') }))).toMatchObject({ permission: 'deny' });
    expect(await decide('preToolUse', preToolUse('MCP:query_database', { query: 'x' }))).toMatchObject({ permission: 'deny', message: expect.stringContaining('no database from the agent') });
    // A server's tool named write_file, called with a path in the zone: not toolgate's write_file, so not allowed as one.
    for (const event of ['preToolUse', 'beforeMCPExecution'] as const) {
      const fields = event === 'preToolUse' ? preToolUse('MCP:write_file', { path: 'notes.txt', content: 'x' }) : { tool_name: 'write_file', tool_input: { path: 'notes.txt', content: 'x' } };
      expect(await decide(event, fields), event).toMatchObject({ permission: event === 'preToolUse' ? 'deny' : 'ask', message: expect.stringContaining('cursor:write_file') });
    }
    // Named in the namespace of a server the policy names (files__...): not that server's tool.
    expect(await decide('beforeMCPExecution', { tool_name: 'files__read_text_file', tool_input: { path: 'notes.txt' }, command: 'npx other-server' })).toMatchObject({ permission: 'ask', message: expect.stringContaining('cursor:files__read_text_file') });
  });

  it('blocks (a printed denial and exit 2) what it cannot read: another event, a missing field, tool_input that is not JSON, a relative cwd', async () => {
    for (const [event, fields, said] of [
      ['afterFileEdit', { file_path: path.join(project, 'notes.txt'), edits: [] }, 'toolgate hook cursor answers beforeShellExecution, beforeReadFile, beforeMCPExecution'],
      ['beforeShellExecution', { cwd: project }, 'command must be a non-empty string'],
      ['beforeMCPExecution', { tool_name: 'x', tool_input: '{not json' }, 'tool_input is text that is not JSON'],
      ['beforeShellExecution', { command: 'ls', cwd: 'project' }, 'cwd'],
      // A file change in a shape Cursor is not known to send: refused, not guessed at.
      ['preToolUse', preToolUse('Write', { target_file: 'a.txt', content: 'x' }), "Write's file_path (or path) must be a string"],
      ['preToolUse', preToolUse('ApplyPatch', { diff: '--- a\n+++ b\n' }), "ApplyPatch's patch (or input) must be a string"],
      // Two names of one field, or two patches: which one Cursor acts on is not known, so neither is judged.
      ['preToolUse', preToolUse('Write', { file_path: 'notes.txt', path: 'private/key.txt', content: 'x' }), 'carries both file_path and path'],
      ['preToolUse', preToolUse('ApplyPatch', { patch: '*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n', input: '*** Begin Patch\n*** Add File: private/b.txt\n+x\n*** End Patch\n' }), 'carries both patch and input'],
      // A folder deleted takes what it holds: not judged as the delete of a file.
      ['preToolUse', preToolUse('Delete', { file_path: 'private' }), 'Delete of a folder'],
      ['preToolUse', preToolUse('Shell', { command: 'ls', cwd: project, working_directory: directory }), 'carries both cwd and working_directory'],
      ['preToolUse', preToolUse('Shell', { command: 'ls', cwd: 7 }), "Shell's cwd must be a string"],
    ] as const) {
      const answer = await decide(event, fields);
      expect(answer, event).toMatchObject({ exitCode: 2, permission: 'deny', message: expect.stringContaining(said) });
    }
  });
});
