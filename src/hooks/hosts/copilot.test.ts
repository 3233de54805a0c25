/**
 * GitHub Copilot CLI's two hook events, in-process with a real policy file:
 * preToolUse answered with `permissionDecision`, permissionRequest (asked in
 * place of its own prompt) with `behavior`, in the shapes Copilot CLI 1.0.102
 * sent and read when measured; a file change it asks about as a diff judged
 * as the write it makes; and every failure of toolgate's own, in either
 * event, a denial it enforces (exit 2).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../../config/load-policy-file.ts';
import { runHook } from '../run-hook.ts';
import { copilot } from './copilot.ts';
import { copilotDiffAsWrite } from './copilot-tools.ts';

const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-copilot-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const project = path.join(directory, 'project');
mkdirSync(project, { recursive: true });
writeFileSync(path.join(project, 'notes.txt'), 'one\ntwo\nthree\n');
writeFileSync(path.join(directory, 'outside.txt'), 'outside\n');
const POLICY = `version: 1
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: allow, delete: ask } }
shell:
  default: ask
  network: false
  rules:
    - { match: echo, decision: allow }
    - { match: rm, decision: block, reason: "rm is blocked here" }
audit: { enabled: false }
`;
const policyFile = path.join(project, 'toolgate.yaml');
writeFileSync(policyFile, POLICY);
const wrapPolicyFile = path.join(directory, 'wrap.yaml');
writeFileSync(wrapPolicyFile, POLICY.replace('version: 1\n', `version: 1\nsandbox: { hosts: wrap, fallback: refuse_tools }\n`).replace('root: .', `root: ${project}`));

const permissionRequest = (toolName: string, toolInput: Record<string, unknown>) =>
  JSON.stringify({ hookName: 'permissionRequest', sessionId: 'copilot-session', timestamp: 1796664169980, cwd: project, toolName, toolInput, permissionSuggestions: [] });
const preToolUse = (toolName: string, toolArgs: Record<string, unknown>) => JSON.stringify({ sessionId: 'copilot-session', timestamp: 1796664169980, cwd: project, toolName, toolArgs });

async function hook(input: string, file = policyFile): Promise<{ exitCode: number; answer: Record<string, unknown>; stderr: string }> {
  const answer = await runHook({ dialect: copilot, stdin: Readable.from([input]), loadPolicy: () => loadPolicyFile(file), env: { PATH: '/usr/local/bin:/usr/bin:/bin' } });
  return { exitCode: answer.exitCode, answer: JSON.parse(answer.stdout) as Record<string, unknown>, stderr: answer.stderr };
}

const diffOf = (file: string, body: string) => `\ndiff --git a${file} b${file}\nindex 0000000..0000000 100644\n--- a${file}\n+++ b${file}\n${body}`;

describe('toolgate hook copilot: permissionRequest', () => {
  it('answers in its own form: allow, a denial whose message is the reason; a call that needs a person is denied, saying so (never {}, which Copilot CLI with --allow-all-tools runs)', async () => {
    expect(await hook(permissionRequest('bash', { command: 'echo hi >> log.txt' }))).toEqual({ exitCode: 0, answer: { behavior: 'allow' }, stderr: '' });
    expect(await hook(permissionRequest('bash', { command: 'rm -rf .' }))).toEqual({ exitCode: 0, answer: { behavior: 'deny', message: 'toolgate: rm -rf .: rm is blocked here' }, stderr: '' });
    expect(await hook(permissionRequest('bash', { command: 'make deploy' }))).toEqual({ exitCode: 0, answer: { behavior: 'deny', message: expect.stringContaining('GitHub Copilot CLI cannot ask a person from its hook') }, stderr: '' });
    // preToolUse, from the same command, keeps its own form.
    expect((await hook(preToolUse('bash', { command: 'rm -rf .', description: 'x' }))).answer).toEqual({ permissionDecision: 'deny', permissionDecisionReason: 'toolgate: rm -rf .: rm is blocked here' });
  });

  it('judges a file change asked about as a diff as the write it makes, at file_path: inside the zone it is allowed, outside it is not', async () => {
    const created = `\ndiff --git a${project}/made.txt b${project}/made.txt\ncreate file mode 100644\nindex 0000000..0000000\n--- a/dev/null\n+++ b${project}/made.txt\n@@ -1,0 +1,1 @@\n+hi\n`;
    expect((await hook(permissionRequest('edit', { file_path: path.join(project, 'made.txt'), diff: created }))).answer).toEqual({ behavior: 'allow' });
    const outside = path.join(directory, 'outside.txt');
    const denied = await hook(permissionRequest('edit', { file_path: outside, diff: diffOf(outside, '@@ -1,1 +1,1 @@\n-outside\n+changed\n') }));
    expect(denied.answer.behavior).toBe('deny');
    expect(String(denied.answer.message)).toContain(outside);
    // A relative file_path is the session folder's.
    expect((await hook(permissionRequest('edit', { file_path: '../outside.txt', diff: diffOf('/x', '@@ -1,1 +1,1 @@\n-outside\n+changed\n') }))).answer.behavior).toBe('deny');
  });

  it('an input it cannot read is a denial Copilot CLI enforces (exit 2), in the form of the event it came from', async () => {
    const missing = await hook(permissionRequest('edit', { file_path: path.join(project, 'notes.txt') }));
    expect(missing.exitCode).toBe(2);
    expect(missing.answer).toEqual({ behavior: 'deny', message: expect.stringContaining("edit's path must be a string") });
    const noCwd = await hook(JSON.stringify({ hookName: 'permissionRequest', sessionId: 's', toolName: 'bash', toolInput: { command: 'echo' } }));
    expect(noCwd.exitCode).toBe(2);
    expect(noCwd.answer.behavior).toBe('deny');
    const notObject = await hook(JSON.stringify({ hookName: 'permissionRequest', sessionId: 's', cwd: project, toolName: 'bash', toolInput: 'echo' }));
    expect(notObject.answer).toEqual({ behavior: 'deny', message: expect.stringContaining('toolInput is a string that is not JSON') });
    // Another event of Copilot CLI's, not one toolgate answers: refused, in preToolUse's form (exit 2 blocks either way).
    const other = await hook(JSON.stringify({ hookName: 'sessionStart', sessionId: 's', cwd: project }));
    expect(other.exitCode).toBe(2);
    expect(String(other.answer.permissionDecisionReason)).toContain('answers preToolUse and permissionRequest');
  });

  it('under sandbox.hosts: wrap, a shell call that reaches permissionRequest is not allowed unwrapped (that answer runs no changed command); preToolUse wraps it', async () => {
    const asked = await hook(permissionRequest('bash', { command: 'echo hi' }), wrapPolicyFile);
    expect(asked.answer).toEqual({ behavior: 'deny', message: expect.stringContaining("copilot's permissionRequest hook cannot hand back a changed command") });
    const before = await hook(preToolUse('bash', { command: 'echo hi', description: 'x' }), wrapPolicyFile);
    expect(before.answer.permissionDecision).toBe('allow');
    expect(String((before.answer.modifiedArgs as { command: string }).command)).toMatch(/bwrap .* -- \/usr\/bin\/bash -c 'echo hi'$/);
  });
});

describe('toolgate hook copilot --approver server: permissionRequest', () => {
  it("a server answering {} (Copilot CLI's own prompt, which with --allow-all-tools runs the call) is no decision: the call is blocked", async () => {
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const answer = await runHook({ dialect: copilot, stdin: Readable.from([permissionRequest('bash', { command: 'make deploy' })]), loadPolicy: () => Promise.reject(new Error('no policy here')), env: { PATH: '/usr/bin:/bin' }, server: { url, token: 't' } });
      expect(answer.exitCode).toBe(2);
      expect(JSON.parse(answer.stdout)).toEqual({ behavior: 'deny', message: expect.stringContaining('answered no decision') });
    } finally {
      server.close();
    }
  });
});

describe('copilotDiffAsWrite', () => {
  const readText = (file: string) => (file.startsWith(project) ? readFileSync(file, 'utf8') : undefined);
  const notes = path.join(project, 'notes.txt');

  it("is the file's content after the diff where it applies, a new file's added lines, else the diff itself", () => {
    expect(copilotDiffAsWrite({ input: { file_path: notes, diff: diffOf(notes, '@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n') }, cwd: project, readText })).toEqual({ kind: 'tool', tool: 'write_file', args: { path: notes, content: 'one\nTWO\nthree\n' } });
    const created = '--- a/dev/null\n+++ b/new.txt\n@@ -1,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n';
    expect(copilotDiffAsWrite({ input: { file_path: 'new.txt', diff: created }, cwd: project, readText }).args).toEqual({ path: path.join(project, 'new.txt'), content: 'a\nb' });
    // Not applicable to what the file holds, or a file the zones do not let be read: the diff is what is shown.
    const stale = diffOf(notes, '@@ -1,1 +1,1 @@\n-nothing like it\n+x\n');
    expect(copilotDiffAsWrite({ input: { file_path: notes, diff: stale }, cwd: project, readText }).args).toEqual({ path: notes, content: stale });
    const outside = path.join(directory, 'outside.txt');
    const change = diffOf(outside, '@@ -1,1 +1,1 @@\n-outside\n+x\n');
    expect(copilotDiffAsWrite({ input: { file_path: outside, diff: change }, cwd: project, readText }).args).toEqual({ path: outside, content: change });
  });

  it('judges the path Copilot CLI writes (file_path), whatever file the diff names', () => {
    const elsewhere = '--- a/dev/null\n+++ b/harmless.txt\n@@ -1,0 +1,1 @@\n+x\n';
    expect(copilotDiffAsWrite({ input: { file_path: '/etc/cron.d/job', diff: elsewhere }, cwd: project, readText }).args).toMatchObject({ path: '/etc/cron.d/job' });
  });
});
