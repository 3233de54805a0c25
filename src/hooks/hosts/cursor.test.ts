/**
 * Cursor's hooks dialect, in-process with a real policy file, against
 * payloads in the shapes Cursor's hooks documentation gives (no Cursor runs
 * here): a shell command judged with its cwd, a file read (which has no
 * "ask": one the policy would ask about is denied), an MCP tool by its own
 * name, the answer `{permission, user_message, agent_message}`, and every
 * failure of toolgate's own a printed denial with exit 2.
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

  it('blocks (a printed denial and exit 2) what it cannot read: another event, a missing field, tool_input that is not JSON, a relative cwd', async () => {
    for (const [event, fields, said] of [
      ['afterFileEdit', { file_path: path.join(project, 'notes.txt'), edits: [] }, 'toolgate hook cursor answers beforeShellExecution, beforeReadFile, beforeMCPExecution'],
      ['beforeShellExecution', { cwd: project }, 'command must be a non-empty string'],
      ['beforeMCPExecution', { tool_name: 'x', tool_input: '{not json' }, 'tool_input is text that is not JSON'],
      ['beforeShellExecution', { command: 'ls', cwd: 'project' }, 'cwd'],
    ] as const) {
      const answer = await decide(event, fields);
      expect(answer, event).toMatchObject({ exitCode: 2, permission: 'deny', message: expect.stringContaining(said) });
    }
  });
});
