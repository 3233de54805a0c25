/**
 * `toolgate hook <host> --approver server` against a real `toolgate serve`
 * process on a SQLite file (issue 33): an ask becomes a pending approval in
 * the server's inbox, naming the host, its session and its working
 * directory; the waiting hook gets the person's decision; past its budget
 * it denies, saying to retry, and the identical retry runs once it is
 * approved — once. A server that is gone, a wrong token and a host the
 * server does not know all block. Claude Code's `http` hook posts to the
 * same route, so a refused request is still a 200 with a denial.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { trustPolicy } from '../src/config/policy-trust.ts';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, createServerProject, NODE, ROOT, startServerProcess, waitFor, type ServerProcess, type ServerProject } from './server-harness.ts';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function serve(options: { model?: null } = {}): Promise<{ project: ServerProject; server: ServerProcess }> {
  const project = createServerProject({ policy: 'crash-policy.yaml' });
  cleanup.push(() => rmSync(project.directory, { recursive: true, force: true }));
  // No model: no flag, and no key or TOOLGATE_MODEL from the test's own environment either.
  const server = await startServerProcess({ project, ...(options.model === null ? { model: null, env: { TOOLGATE_MODEL: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } } : {}) });
  cleanup.push(() => server.kill9());
  return { project, server };
}

/** One hook process, as the host starts it: the host's JSON on stdin. */
async function hook(options: { host?: string; input: unknown; server: string; timeout?: number; token?: string; shell?: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(NODE, [path.join(ROOT, 'src/cli/main.ts'), 'hook', options.host ?? 'claude-code', '--approver', 'server', '--server', options.server, '--timeout', String(options.timeout ?? 30)], {
    env: { ...process.env, TOOLGATE_TOKEN: options.token ?? ADMIN_TOKEN, SHELL: options.shell ?? '/bin/bash', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(JSON.stringify(options.input));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

function shellInput(project: ServerProject, command: string, session = 'session-7f3a') {
  return { session_id: session, transcript_path: null, cwd: project.workspace, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command, description: 'run it' }, tool_use_id: `toolu_${Math.random().toString(36).slice(2)}` };
}

function decisionOf(stdout: string): { permissionDecision: string; permissionDecisionReason: string } {
  return (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
}

async function pendingApproval(server: ServerProcess): Promise<{ run_id: string; description: string; tool_name: string }> {
  return waitFor(
    async () => {
      const inbox = await api(server.url, 'GET', '/approvals');
      return (inbox.body.approvals as Array<{ run_id: string; description: string; tool_name: string }>)[0];
    },
    { timeoutMs: 15_000, describe: () => `a pending approval: ${server.stderr().slice(-1000)}` },
  );
}

describe('toolgate hook --approver server, with toolgate serve', () => {
  it('an ask waits in the inbox, naming the host, its session and where it runs; approved there, the waiting hook allows it', async () => {
    const { project, server } = await serve();
    const answer = hook({ input: shellInput(project, 'touch asked.txt'), server: server.url });
    const pending = await pendingApproval(server);
    expect(pending.tool_name).toBe('shell');
    expect(pending.description).toContain(`asked by Claude Code, session session-7f3a, in ${project.workspace}`);
    expect(pending.description).toContain('touch asked.txt');
    // What will happen first, the command once, and where.
    expect(pending.description).toMatch(new RegExp(`^Run touch asked\\.txt in ${project.workspace.replace(/[.]/g, '\\.')} — `));
    expect(pending.description.split('touch asked.txt')).toHaveLength(2);
    // The card says what a late decision does, with the time the hook stops waiting.
    expect(pending.description).toMatch(/Claude Code waits for the answer until \d\d:\d\d:\d\d UTC; after that it is told to retry, and approving then lets its next identical try run, once/);
    expect((await api(server.url, 'POST', `/runs/${pending.run_id}/approve`, { approved: true })).status).toBe(200);
    const result = await answer;
    expect(result.code, result.stderr).toBe(0);
    expect(decisionOf(result.stdout).permissionDecision).toBe('allow');
    // Collected: the inbox is empty, the run ended.
    expect((await api(server.url, 'GET', '/approvals')).body.approvals).toEqual([]);
    expect((await api(server.url, 'GET', `/runs/${pending.run_id}`)).body).toMatchObject({ status: 'completed', model: 'hook:claude-code' });
  });

  it('a server started without a model is the inbox of hooks: it says so, an ask approved there runs, and POST /runs is refused saying how to run agents', async () => {
    const { project, server } = await serve({ model: null });
    await waitFor(async () => (server.stderr().includes("no model: serving agent hosts' hooks and the inbox only (POST /runs is refused)") ? true : undefined), { timeoutMs: 10_000, describe: () => `the hooks-only line: ${server.stderr()}` });
    const answer = hook({ input: shellInput(project, 'touch hooks-only.txt'), server: server.url });
    const pending = await pendingApproval(server);
    expect((await api(server.url, 'POST', `/runs/${pending.run_id}/approve`, { approved: true })).status).toBe(200);
    expect(decisionOf((await answer).stdout).permissionDecision).toBe('allow');
    const run = await api(server.url, 'POST', '/runs', { input: 'Tidy the notes' });
    expect(run.status).toBe(409);
    expect(run.body.error).toContain('this server runs no agents: it was started without a model');
    expect(run.body.error).toContain('--model');
    expect((await api(server.url, 'GET', '/runs')).body.runs.map((each: { model: string }) => each.model)).toEqual(['hook:claude-code']);
  });

  it('with a policy of its own the hook decides allow and block itself, the server down or up; only an ask needs the server, and the next request carries the local decisions into its audit log', async () => {
    const { project, server } = await serve();
    await server.kill9();
    // This machine's project, with its policy trusted, and toolgate's homes of its own.
    const local = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-local-')));
    cleanup.push(() => rmSync(local, { recursive: true, force: true }));
    // The server's policy covers that project, and keeps an audit log (the fixture's does not).
    writeFileSync(project.policyFile, `version: 1\nfs:\n  zones:\n    - { name: machine, root: ${local}, mode: rw }\nshell:\n  default: ask\n`);
    const app = path.join(local, 'app');
    mkdirSync(app);
    writeFileSync(path.join(app, 'toolgate.yaml'), 'version: 1\nfs:\n  zones:\n    - { name: app, root: ., mode: rw }\nshell:\n  default: ask\n  rules:\n    - { match: ls, decision: allow }\n    - { match: rm, decision: block, reason: "rm is blocked here" }\n');
    const env = { TOOLGATE_STATE_HOME: path.join(local, 'state'), TOOLGATE_CONFIG_HOME: path.join(local, 'config') };
    trustPolicy({ file: path.join(app, 'toolgate.yaml'), env });
    const call = (command: string) => ({ ...shellInput(project, command), cwd: app });
    const down = server.url;
    // The server is down: what the local policy decides is answered all the same; an ask is blocked, saying why.
    expect(decisionOf((await hook({ input: call('ls'), server: down, env })).stdout).permissionDecision).toBe('allow');
    const blocked = await hook({ input: call('rm -rf x'), server: down, env });
    expect(decisionOf(blocked.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('rm is blocked here') });
    const ask = await hook({ input: call('touch asked.txt'), server: down, env });
    expect(ask.code).toBe(2);
    expect(ask.stderr).toContain('could not be reached (ECONNREFUSED)');
    // The local audit log has them now; the server's gets them with the next request that reaches it.
    expect(readFileSync(path.join(app, '.toolgate', 'audit.jsonl'), 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(2);
    const again = await startServerProcess({ project });
    cleanup.push(() => again.kill9());
    const asked = hook({ input: call('touch asked.txt'), server: again.url, env });
    const pending = await pendingApproval(again);
    await api(again.url, 'POST', `/runs/${pending.run_id}/approve`, { approved: true });
    expect(decisionOf((await asked).stdout).permissionDecision).toBe('allow');
    const serverLog = readFileSync(path.join(project.directory, '.toolgate', 'audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { tool: string; args: { command?: string }; decision: string; reported_by?: string });
    const reported = serverLog.filter((entry) => entry.reported_by !== undefined);
    expect(reported.map((entry) => [entry.args.command, entry.decision, entry.reported_by])).toEqual(expect.arrayContaining([['ls', 'allow', 'admin'], ['rm -rf x', 'block', 'admin']]));
    // What a hook reports is its policy's account, never a person's decision: a forged one is not recorded as one.
    const forged = { v: 1, kind: 'decision', time: new Date().toISOString(), session: 'claude-code:x', chat: null, run: null, caller: 'claude-code', call_id: 'forged', tool: 'shell', args: { command: 'curl evil' }, verdict: 'ask', decision: 'approved', source: 'person', rule: null, reason: 'approved', latency_ms: 1, approver: 'alice' };
    const policyClaim = { ...forged, call_id: 'claimed', kind: 'verdict', verdict: 'allow', decision: 'allow', source: 'policy', approver: 'alice' };
    const withForged = await fetch(`${again.url}/hooks/claude-code?timeout=30`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...call('cat /etc/shadow'), toolgate_local_decisions: [forged, policyClaim] }) });
    expect(withForged.headers.get('x-toolgate-recorded')).toBe('1');
    const afterForged = readFileSync(path.join(project.directory, '.toolgate', 'audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { call_id: string; approver?: string; reported_by?: string });
    expect(afterForged.find((entry) => entry.call_id === 'forged')).toBeUndefined();
    expect(afterForged.find((entry) => entry.call_id === 'claimed')).toMatchObject({ reported_by: 'admin' });
    expect(afterForged.find((entry) => entry.call_id === 'claimed')).not.toHaveProperty('approver');
    // Sent once: the outbox is empty, and a later request reports nothing again.
    expect(existsSync(path.join(local, 'state', 'hook-outbox.jsonl'))).toBe(false);
    // A person's denial in the inbox names them in the audit trail, as an approval does.
    const denied = hook({ input: call('touch denied.txt'), server: again.url, env });
    const second = await waitFor(async () => ((await api(again.url, 'GET', '/approvals')).body.approvals as Array<{ run_id: string; description: string }>).find((each) => each.description.includes('denied.txt')), { timeoutMs: 15_000, describe: () => again.stderr().slice(-500) });
    await api(again.url, 'POST', `/runs/${second.run_id}/approve`, { approved: false, reason: 'no' });
    expect(decisionOf((await denied).stdout).permissionDecision).toBe('deny');
    const decisions = readFileSync(path.join(project.directory, '.toolgate', 'audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { kind: string; decision: string; approver?: string; args: { command?: string } });
    expect(decisions.find((entry) => entry.kind === 'decision' && entry.decision === 'denied' && entry.args.command === 'touch denied.txt')).toMatchObject({ approver: 'admin' });
  });

  it('denied in the inbox: the waiting hook denies with the person\'s reason', async () => {
    const { project, server } = await serve();
    const answer = hook({ input: shellInput(project, 'touch denied.txt'), server: server.url });
    const pending = await pendingApproval(server);
    await api(server.url, 'POST', `/runs/${pending.run_id}/approve`, { approved: false, reason: 'not on a Friday' });
    const result = await answer;
    expect(result.code).toBe(0);
    expect(decisionOf(result.stdout)).toMatchObject({ permissionDecision: 'deny' });
    expect(decisionOf(result.stdout).permissionDecisionReason).toContain('not on a Friday');
  });

  it('past the budget the hook denies, saying to retry; the identical retry runs once it is approved — once', async () => {
    const { project, server } = await serve();
    const input = shellInput(project, 'touch later.txt');
    const first = await hook({ input, server: server.url, timeout: 4 });
    expect(first.code).toBe(0);
    const told = decisionOf(first.stdout);
    expect(told.permissionDecision).toBe('deny');
    expect(told.permissionDecisionReason).toMatch(/pending approval run_hook_\w+_1: a person has not decided yet .* Retry this same call later/);
    const pending = await pendingApproval(server);
    expect(told.permissionDecisionReason).toContain(pending.run_id);
    await api(server.url, 'POST', `/runs/${pending.run_id}/approve`, { approved: true });
    // The model's retry has a new tool_use_id: the call is the same.
    const retry = await hook({ input: { ...input, tool_use_id: 'toolu_retry' }, server: server.url, timeout: 4 });
    expect(decisionOf(retry.stdout).permissionDecision).toBe('allow');
    const again = await hook({ input: { ...input, tool_use_id: 'toolu_again' }, server: server.url, timeout: 4 });
    expect(decisionOf(again.stdout).permissionDecision).toBe('deny');
    expect(decisionOf(again.stdout).permissionDecisionReason).toMatch(/pending approval run_hook_\w+_2/);
    // Another session's identical call is its own.
    const other = await hook({ input: shellInput(project, 'touch later.txt', 'session-other'), server: server.url, timeout: 4 });
    expect(decisionOf(other.stdout).permissionDecisionReason).not.toContain(pending.run_id);
  });

  it('two identical calls at once wait on one approval, and it lets one of them run', async () => {
    const { project, server } = await serve();
    const input = shellInput(project, 'touch twice.txt');
    const both = [hook({ input, server: server.url, timeout: 8 }), hook({ input: { ...input, tool_use_id: 'toolu_twin' }, server: server.url, timeout: 8 })];
    const pending = await pendingApproval(server);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await api(server.url, 'GET', '/approvals')).body.approvals).toHaveLength(1);
    await api(server.url, 'POST', `/runs/${pending.run_id}/approve`, { approved: true });
    const decisions = (await Promise.all(both)).map((result) => decisionOf(result.stdout).permissionDecision).sort();
    expect(decisions).toEqual(['allow', 'deny']);
  });

  it('"approve for session" in the inbox lets the same call of that host session run from then on, without asking', async () => {
    const { project, server } = await serve();
    const input = shellInput(project, 'touch session.txt');
    const answer = hook({ input, server: server.url });
    const pending = await pendingApproval(server);
    await api(server.url, 'POST', `/runs/${pending.run_id}/approve`, { approved: true, scope: 'session' });
    expect(decisionOf((await answer).stdout).permissionDecision).toBe('allow');
    const next = await hook({ input: { ...input, tool_use_id: 'toolu_next' }, server: server.url, timeout: 4 });
    expect(decisionOf(next.stdout).permissionDecision).toBe('allow');
    expect((await api(server.url, 'GET', '/approvals')).body.approvals).toEqual([]);
    // For the session, and for exactly that call: in another directory, or run by another shell, it is a new call, asked again.
    mkdirSync(path.join(project.workspace, 'sub'));
    const elsewhere = await hook({ input: { ...input, cwd: path.join(project.workspace, 'sub'), tool_use_id: 'toolu_elsewhere' }, server: server.url, timeout: 4 });
    expect(decisionOf(elsewhere.stdout).permissionDecisionReason).toMatch(/pending approval run_hook_/);
    const otherShell = await hook({ input: { ...input, tool_use_id: 'toolu_zsh' }, server: server.url, timeout: 4, shell: '/usr/bin/zsh' });
    expect(decisionOf(otherShell.stdout).permissionDecisionReason).toMatch(/pending approval run_hook_/);
    expect((await api(server.url, 'GET', '/approvals')).body.approvals).toHaveLength(2);
  });

  it("Claude Code's http hook: a shell command whose shell nobody named (no ?shell= in the URL) is asked as such, saying so; with ?shell=/bin/bash it is judged as bash", async () => {
    const { project, server } = await serve();
    const post = (command: string, query: string) =>
      fetch(`${server.url}/hooks/claude-code?timeout=4${query}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(shellInput(project, command)) }).then(async (response) => decisionOf(await response.text()));
    // A blocked call stays blocked whatever the shell.
    expect(await post('curl https://example.com', '')).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.not.stringContaining('pending approval') });
    const unknown = await post('echo hi', '');
    expect(unknown.permissionDecisionReason).toMatch(/pending approval run_hook_.*Run with a shell not known: echo hi — the host did not say which shell runs this command/);
    const bash = await post('echo hi', '&shell=%2Fbin%2Fbash');
    expect(bash.permissionDecisionReason).toMatch(/pending approval run_hook_/);
    expect(bash.permissionDecisionReason).not.toContain('which shell');
  });

  it('a skill approved in the inbox and edited before the retry is asked again: the approval was for the commands the person saw', async () => {
    const { project, server } = await serve();
    const skill = path.join(project.workspace, '.claude', 'skills', 'deploy', 'SKILL.md');
    mkdirSync(path.dirname(skill), { recursive: true });
    writeFileSync(skill, 'Status: !`touch status.txt`\n');
    const input = { ...shellInput(project, 'unused'), tool_name: 'Skill', tool_input: { skill: 'deploy' } };
    const first = await hook({ input, server: server.url, timeout: 4 });
    expect(decisionOf(first.stdout).permissionDecisionReason).toMatch(/pending approval run_hook_.*touch status\.txt/);
    const pending = await pendingApproval(server);
    await api(server.url, 'POST', `/runs/${pending.run_id}/approve`, { approved: true });
    writeFileSync(skill, 'Status: !`touch status.txt`\nAnd: !`touch added-later.txt`\n');
    const retried = await hook({ input: { ...input, tool_use_id: 'toolu_retry' }, server: server.url, timeout: 4 });
    expect(decisionOf(retried.stdout).permissionDecisionReason).toMatch(/pending approval run_hook_.*touch added-later\.txt/);
    expect(decisionOf(retried.stdout).permissionDecisionReason).not.toContain(pending.run_id);
  });

  it('Codex is never answered "ask", through the server neither', async () => {
    const { project, server } = await serve();
    const result = await hook({ host: 'codex', input: shellInput(project, 'touch codex.txt'), server: server.url, timeout: 4 });
    expect(result.code).toBe(0);
    expect(decisionOf(result.stdout).permissionDecision).toBe('deny');
  });

  it("Copilot CLI's permissionRequest through the server: an ask waits in the inbox and the person's decision comes back in its own form (behavior), as does a block", async () => {
    const { project, server } = await serve();
    const permissionRequest = (command: string) => ({ hookName: 'permissionRequest', sessionId: 'copilot-7f3a', timestamp: Date.now(), cwd: project.workspace, toolName: 'bash', toolInput: { command }, permissionSuggestions: [] });
    const answer = hook({ host: 'copilot', input: permissionRequest('touch copilot-asked.txt'), server: server.url });
    const pending = await pendingApproval(server);
    expect(pending.description).toContain('asked by GitHub Copilot CLI, session copilot-7f3a');
    expect((await api(server.url, 'POST', `/runs/${pending.run_id}/approve`, { approved: true })).status).toBe(200);
    const approved = await answer;
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toEqual({ behavior: 'allow' });
    const blocked = await hook({ host: 'copilot', input: permissionRequest('curl https://example.com'), server: server.url });
    expect(blocked.code).toBe(0);
    expect(JSON.parse(blocked.stdout)).toEqual({ behavior: 'deny', message: expect.stringMatching(/^toolgate: .*curl/) });
  });

  it('a blocked call is denied at once, without a pending approval', async () => {
    const { project, server } = await serve();
    const result = await hook({ input: shellInput(project, 'curl https://example.com'), server: server.url });
    expect(decisionOf(result.stdout).permissionDecision).toBe('deny');
    expect((await api(server.url, 'GET', '/approvals')).body.approvals).toEqual([]);
  });

  it('a server that is gone, a wrong token or a host the server does not know block the call', async () => {
    const { project, server } = await serve();
    const wrongToken = await hook({ input: shellInput(project, 'touch x.txt'), server: server.url, token: 'not-a-token-0123456789' });
    expect(decisionOf(wrongToken.stdout)).toMatchObject({ permissionDecision: 'deny' });
    expect(decisionOf(wrongToken.stdout).permissionDecisionReason).toContain('invalid or revoked token');
    // Claude Code's http hook posts here itself: a refusal is still a 200 with a denial, which it obeys.
    const unknownHost = await fetch(`${server.url}/hooks/windsurf`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(shellInput(project, 'ls')) });
    expect(unknownHost.status).toBe(200);
    expect(((await unknownHost.json()) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision).toBe('deny');
    const noToken = await fetch(`${server.url}/hooks/claude-code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(shellInput(project, 'ls')) });
    expect(noToken.status).toBe(200);
    expect(((await noToken.json()) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision).toBe('deny');
    // A body that is not JSON (or too large) is a denial too, never an HTTP error the host would read as "go on".
    const notJson = await fetch(`${server.url}/hooks/codex`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' }, body: 'rm -rf /' });
    expect(notJson.status).toBe(200);
    expect(((await notJson.json()) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision).toBe('deny');
    // Gemini CLI reads only its own answer ({decision, reason}) and runs the call on any other: every refusal speaks it.
    const beforeTool = JSON.stringify({ session_id: 's', cwd: project.directory, hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: 'ls' } });
    for (const [headers, body] of [[{ 'content-type': 'application/json' }, beforeTool], [{ authorization: 'Bearer not-a-token-0123456789', 'content-type': 'application/json' }, beforeTool], [{ authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' }, 'rm -rf /']] as const) {
      const refused = await fetch(`${server.url}/hooks/gemini?timeout=5`, { method: 'POST', headers, body });
      expect(refused.status).toBe(200);
      const answer = (await refused.json()) as Record<string, unknown>;
      expect(Object.keys(answer).sort()).toEqual(['decision', 'reason']);
      expect(answer).toMatchObject({ decision: 'deny', reason: expect.stringContaining('toolgate serve: ') });
    }
    // Cursor reads {permission, ...} (and goes on after anything else, unless failClosed): every refusal speaks it too.
    const beforeShell = JSON.stringify({ conversation_id: 'c', generation_id: 'g', hook_event_name: 'beforeShellExecution', workspace_roots: [project.directory], command: 'ls', cwd: project.directory });
    for (const [headers, body] of [[{ 'content-type': 'application/json' }, beforeShell], [{ authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' }, 'rm -rf /']] as const) {
      const refused = await fetch(`${server.url}/hooks/cursor?timeout=5`, { method: 'POST', headers, body });
      expect(refused.status).toBe(200);
      expect(await refused.json()).toMatchObject({ permission: 'deny', agent_message: expect.stringContaining('toolgate serve: ') });
    }
    await server.kill9();
    const gone = await hook({ input: shellInput(project, 'ls'), server: server.url });
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain('could not be reached');
  });
});
