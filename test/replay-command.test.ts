/**
 * `toolgate replay` over transcripts the real CLIs wrote (test/fixtures/replay,
 * recorded by record.ts from the CLIs pinned in test/hosts: each file is
 * named with the CLI and the version it came from), an audit log and batch
 * lines: the exact decisions under two policies, the calls that would change,
 * and every kind of line it cannot read reported with its file and line.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HOST_TEST_POLICY } from './agent-host-harness.ts';
import { runCli } from './cli-harness.ts';
import type { ReplaySummary } from '../src/replay/replay-history.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures/replay');
const CLAUDE = 'claude-code-2.1.332.jsonl';
const CODEX = 'codex-0.171.0.jsonl';

/** The host tests' policy, and the same with git status and ls allowed (and a try at allowing rm -rf build, which rm's block outranks). */
const NEW_POLICY = HOST_TEST_POLICY.replace(
  '    - { match: rm, decision: block, reason: "rm is blocked in this project" }\n',
  '    - { match: rm, decision: block, reason: "rm is blocked in this project" }\n    - { match: git status, decision: allow }\n    - { match: ls, decision: allow }\n    - { match: "rm -rf build", decision: allow }\n',
);

const made: string[] = [];
afterEach(() => {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A scratch project with both policies, and the fixtures with the project's path where the recorded one was. */
function scratch(): { base: string; project: string; home: string; transcript: (name: string) => string } {
  const base = mkdtempSync(path.join(os.tmpdir(), 'toolgate-replay-'));
  made.push(base);
  const project = path.join(base, 'project');
  const home = path.join(base, 'home');
  mkdirSync(project);
  mkdirSync(home);
  writeFileSync(path.join(project, 'toolgate.yaml'), HOST_TEST_POLICY);
  writeFileSync(path.join(project, 'new.yaml'), NEW_POLICY);
  // The files the recorded project had.
  mkdirSync(path.join(project, 'src'));
  writeFileSync(path.join(project, 'README.md'), '# demo\n');
  writeFileSync(path.join(project, 'src/app.js'), 'export const answer = 41;\n');
  const transcript = (name: string) => {
    const file = path.join(base, name);
    writeFileSync(file, readFileSync(path.join(FIXTURES, name), 'utf8').replaceAll('__PROJECT__', project));
    return file;
  };
  return { base, project, home, transcript };
}

const ENV = (home: string) => ({ HOME: home, SHELL: '/bin/bash' });

async function replayJson(argv: string[], where: { project: string; home: string }): Promise<{ code: number; summary: ReplaySummary; stderr: string }> {
  const result = await runCli(['replay', '--json', ...argv], { cwd: where.project, env: ENV(where.home) });
  return { code: result.code, summary: JSON.parse(result.stdout) as ReplaySummary, stderr: result.stderr };
}

/** What the hooks answered when the sessions were recorded, by call id: Claude Code keeps its hook's answer; Codex the refusal it gave the model. */
function recordedAnswers(): Map<string, 'allow' | 'ask' | 'deny' | 'ran'> {
  const answers = new Map<string, 'allow' | 'ask' | 'deny' | 'ran'>();
  for (const line of readFileSync(path.join(FIXTURES, CLAUDE), 'utf8').split('\n')) {
    if (line.includes('"hook_success"')) {
      const attachment = (JSON.parse(line) as { attachment: { toolUseID: string; stdout: string } }).attachment;
      answers.set(attachment.toolUseID, (JSON.parse(attachment.stdout) as { hookSpecificOutput: { permissionDecision: 'allow' | 'ask' | 'deny' } }).hookSpecificOutput.permissionDecision);
    }
    // A call the hook blocked: its result says the hook rejected it.
    const entry = line.includes('"permissionDecision":{"decision":"reject","source":"hook"') ? (JSON.parse(line) as { message: { content: Array<{ tool_use_id: string }> } }) : undefined;
    if (entry !== undefined) answers.set(entry.message.content[0]!.tool_use_id, 'deny');
  }
  for (const line of readFileSync(path.join(FIXTURES, CODEX), 'utf8').split('\n')) {
    if (!line.includes('"function_call_output"')) continue;
    const payload = (JSON.parse(line) as { payload: { call_id: string; output: string } }).payload;
    answers.set(payload.call_id, payload.output.startsWith('Command blocked by PreToolUse hook') ? 'deny' : 'ran');
  }
  return answers;
}

interface ReplayedCall {
  at: string;
  call_id: string;
  source: string;
  tool: string;
  call: string;
  decision: string;
  rule: string | null;
  against?: { decision: string; rule: string | null };
}

describe('toolgate replay over real transcripts', () => {
  it('decides every recorded call as the hook decided it when Claude Code and Codex ran it', async () => {
    const where = scratch();
    const result = await runCli(['replay', '--calls', where.transcript(CLAUDE), where.transcript(CODEX)], { cwd: where.project, env: ENV(where.home) });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const calls = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as ReplayedCall);
    const recorded = recordedAnswers();
    expect(calls).toHaveLength(22);
    for (const call of calls) {
      const answer = recorded.get(call.call_id);
      if (call.source.startsWith('Claude Code')) {
        // Claude Code's Edit and Write after a failed read never reached the hook's answer line; every other call did.
        if (answer === undefined) continue;
        expect({ id: call.call_id, decision: call.decision }).toEqual({ id: call.call_id, decision: answer === 'deny' ? 'block' : answer });
      } else {
        // Codex can ask nobody: what the hook did not allow it refused.
        expect({ id: call.call_id, ran: call.decision === 'allow' }).toEqual({ id: call.call_id, ran: answer === 'ran' });
      }
    }
    expect(calls.filter((call) => recorded.has(call.call_id)).length).toBe(20);
    // A replay is no call: nothing recorded (the policy keeps an audit log, and "approve always" beside it).
    expect(existsSync(path.join(where.project, '.toolgate'))).toBe(false);
    expect(calls.map((call) => `${call.tool} ${call.decision}`)).toEqual([
      ...['shell allow', 'shell allow', 'shell ask', 'shell ask', 'shell ask', 'shell block', 'shell block', 'shell ask', 'write_file allow', 'write_file allow', 'read_file allow', 'write_file block'],
      ...['shell allow', 'shell allow', 'shell ask', 'shell ask', 'shell ask', 'shell block', 'shell block', 'shell ask', 'shell ask', 'apply_patch allow'],
    ]);
  });

  it('says what a new policy changes, newly allowed first, grouped by rule with examples', async () => {
    const where = scratch();
    const files = [where.transcript(CLAUDE), where.transcript(CODEX)];
    const { code, summary, stderr } = await replayJson(['--policy', 'new.yaml', '--against', 'toolgate.yaml', ...files], where);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(summary.sources).toEqual({ 'Claude Code 2.1.332': 12, 'Codex 0.171.0': 10 });
    expect(summary.calls).toBe(22);
    const [now, before] = summary.policies;
    expect(before!.totals).toEqual({ allow: 8, ask: 9, block: 5 });
    expect(now!.totals).toEqual({ allow: 15, ask: 2, block: 5 });
    // git status (twice in each session) and ls (ls -la in each, ls in Codex's src); rm -rf build stays blocked (rm's block outranks).
    expect(summary.changes.map((change) => ({ from: change.from.rule, to: change.to.rule, decision: change.to.decision, count: change.count, calls: change.examples.map((example) => example.call) }))).toEqual([
      { from: 'shell.default (ask)', to: 'shell.rules[3] (match: git status)', decision: 'allow', count: 4, calls: ['git status', 'git status', 'git status'] },
      { from: 'shell.default (ask)', to: 'shell.rules[4] (match: ls)', decision: 'allow', count: 3, calls: ['ls -la', 'ls -la', 'ls'] },
    ]);
    expect(summary.changes[0]!.examples[0]!.at).toBe(`${path.join(where.base, CLAUDE)}:37`);
    expect(summary.changes[0]!.to.ruleAt).toBe(`${path.join(where.project, 'new.yaml')}:12`);
    expect(summary.malformed.count).toBe(0);

    const text = await runCli(['replay', '--policy', 'new.yaml', '--against', 'toolgate.yaml', ...files], { cwd: where.project, env: ENV(where.home) });
    expect(text.stdout).toContain('7 calls would be decided otherwise under new.yaml than under toolgate.yaml:');
    expect(text.stdout).toMatch(/ 4 {2}newly allowed: ask \(shell\.default \(ask\), toolgate\.yaml:6\) → allow \(shell\.rules\[3\] \(match: git status\), new\.yaml:12\)/);
  });

  it('reads Claude Code and Codex where they keep their transcripts, judges a call read twice once, and keeps to --since', async () => {
    const where = scratch();
    const claudeProjects = path.join(where.home, '.claude/projects/-project');
    const codexSessions = path.join(where.home, 'codex/sessions/2026/12/07');
    mkdirSync(claudeProjects, { recursive: true });
    mkdirSync(codexSessions, { recursive: true });
    writeFileSync(path.join(claudeProjects, 'a.jsonl'), readFileSync(where.transcript(CLAUDE)));
    // A resumed session carries the calls of the one it resumed.
    writeFileSync(path.join(claudeProjects, 'b.jsonl'), readFileSync(where.transcript(CLAUDE)));
    writeFileSync(path.join(codexSessions, 'rollout.jsonl'), readFileSync(where.transcript(CODEX)));
    const env = { ...ENV(where.home), CODEX_HOME: path.join(where.home, 'codex') };
    const all = await runCli(['replay', '--json'], { cwd: where.project, env });
    expect(all.code).toBe(0);
    const summary = JSON.parse(all.stdout) as ReplaySummary;
    expect(summary.sources).toEqual({ 'Claude Code 2.1.332': 12, 'Codex 0.171.0': 10 });
    expect(summary.duplicates).toBe(12);
    // In the text, a transcript under the home is shown as ~/…, the policy here relative to the working directory.
    const text = (await runCli(['replay', '--policy', 'new.yaml', '--against', 'toolgate.yaml'], { cwd: where.project, env })).stdout;
    expect(text).toContain('(~/.claude/projects/-project/a.jsonl:37)');
    expect(text).toContain('e.g. shell: ');
    expect(text).toContain('toolgate.yaml');
    expect(text).not.toContain(where.home);
    const later = JSON.parse((await runCli(['replay', '--json', '--since', '2026-12-07T19:49:00Z'], { cwd: where.project, env })).stdout) as ReplaySummary;
    // Codex's calls from 19:49:00 on: rm -rf build (19:49:00.093) and the four after it; Claude Code's session ended at 19:48:52.
    expect(later.sources).toEqual({ 'Codex 0.171.0': 5 });
    expect(later.skipped).toBe(12 + 5);
  });
});

describe('toolgate replay over what it cannot read', () => {
  it('reports a torn line, garbage, an enormous line and another version with file and line, and replays the rest', async () => {
    const where = scratch();
    const claude = where.transcript(CLAUDE);
    const lines = readFileSync(claude, 'utf8').split('\n');
    // Another Claude Code version: its tool_use blocks carry "arguments" for "input".
    const other = lines.map((line) => (line.includes('"call_1h7eeons1","name":"Bash","input"') && line.includes('"type":"assistant"') ? line.replace('"version":"2.1.332"', '"version":"3.0.0"').replace('"input":{"command":"echo hello"', '"arguments":{"command":"echo hello"') : line));
    const changedAt = other.findIndex((line, index) => line !== lines[index]) + 1;
    expect(changedAt).toBeGreaterThan(0);
    writeFileSync(claude, other.join('\n'));
    appendFileSync(claude, 'not json at all\n');
    appendFileSync(claude, `{"type":"assistant","sessionId":"s","message":{"content":[{"type":"tool_use","id":"x","name":"Bash","input":{"command":"${'a'.repeat(17 * 1024 * 1024)}"}}]}}\n`);
    // A torn last line: the writer stopped mid-line.
    appendFileSync(claude, lines.find((line) => line.includes('"call_2qk9y24hp","name":"Bash"') && line.includes('"type":"assistant"'))!.slice(0, 200));
    const codex = where.transcript(CODEX);
    writeFileSync(codex, readFileSync(codex, 'utf8').replace('"arguments":"{\\"cmd\\":\\"echo hello\\"}"', '"arguments":"{\\"cmd\\": echo hello}"'));
    const unknown = path.join(where.base, 'notes.jsonl');
    writeFileSync(unknown, '{"hello": "world"}\n{"tool": "shell"}\n');
    const result = await runCli(['replay', '--json', claude, codex, unknown], { cwd: where.project, env: ENV(where.home) });
    expect(result.code).toBe(4);
    const summary = JSON.parse(result.stdout) as ReplaySummary;
    const total = lines.length;
    expect(summary.malformed.lines).toEqual([
      { at: `${claude}:${changedAt}`, problem: expect.stringMatching(/^a tool call its hook could not be given: tool_input must be a JSON object, not missing \(Claude Code 3\.0\.0; replay reads the transcripts of Claude Code 2\.1/) },
      { at: `${claude}:${total}`, problem: expect.stringMatching(/^not a whole JSON object/) },
      { at: `${claude}:${total + 1}`, problem: expect.stringMatching(/^a line of 178\d{5} bytes, longer than the 16 MiB replay reads: skipped$/) },
      { at: `${claude}:${total + 2}`, problem: expect.stringMatching(/^not a whole JSON object: a line cut short/) },
      { at: `${codex}:10`, problem: expect.stringMatching(/^exec_command's arguments are not valid JSON .*\(Codex 0\.171\.0;/) },
      { at: `${unknown}:1`, problem: expect.stringMatching(/^not a line of a Claude Code transcript, a Codex rollout, a toolgate audit log or a check --batch file/) },
    ]);
    // Every other call was replayed.
    expect(summary.sources).toEqual({ 'Claude Code 2.1.332': 11, 'Codex 0.171.0': 9 });
    expect(result.stderr).toContain(`${claude}:${total + 1}: a line of`);
  });

  it('never prints a value the policy masks, in the summary or in each call', async () => {
    const where = scratch();
    const file = path.join(where.base, 'session.jsonl');
    const secret = 'sk-live-0123456789abcdef';
    const call = (id: string) => JSON.stringify({ type: 'assistant', sessionId: 's1', cwd: where.project, timestamp: '2026-12-01T10:00:00Z', version: '2.1.332', message: { content: [{ type: 'tool_use', id, name: 'mcp__deploy__push', input: { target: 'prod', api_key: secret } }] } });
    writeFileSync(file, `${call('t1')}\n${call('t2')}\n`);
    const summary = await runCli(['replay', '--json', file], { cwd: where.project, env: ENV(where.home) });
    const each = await runCli(['replay', '--calls', file], { cwd: where.project, env: ENV(where.home) });
    const text = await runCli(['replay', file], { cwd: where.project, env: ENV(where.home) });
    for (const result of [summary, each, text]) {
      expect(result.code).toBe(0);
      expect(result.stdout + result.stderr).not.toContain(secret);
    }
    // Shown, masked: the tool nothing declares is listed as judged without its content.
    expect(JSON.parse(summary.stdout).unjudged).toEqual([{ why: 'a tool with no rule and no declaration (mcp__deploy__push): judged by unknown_tools alone', count: 2, examples: [expect.objectContaining({ call: '{"target":"prod","api_key":"[REDACTED]"}' }), expect.anything()] }]);
    expect(text.stdout).toContain('Judged without reading their content (2 calls):');
  });

  it("judges as the hook does where the policy lives outside the project (the project's own toolgate.yaml is out of reach), records nothing under sandbox.hosts: wrap, and survives what no CLI writes", async () => {
    const where = scratch();
    const outside = path.join(where.base, 'policy');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'toolgate.yaml'), `version: 1\nfs:\n  zones:\n    - { name: project, root: ${where.project}, mode: rw, approval: { read: allow, write: allow } }\nshell:\n  default: ask\nsandbox: { hosts: wrap }\n`);
    const line = (id: string, name: string, input: unknown) => JSON.stringify({ type: 'assistant', sessionId: 's1', cwd: where.project, timestamp: '2026-12-01T10:00:00Z', version: '2.1.332', message: { content: [{ type: 'tool_use', id, name, input }] } });
    // An input nested 6,000 deep (too deep for JSON.stringify, which keys replay's memo), written as text.
    const deep = line('t2', 'Bash', { command: 'echo hi', x: 'DEEP' }).replace('"DEEP"', `${'['.repeat(6000)}"x"${']'.repeat(6000)}`);
    const file = path.join(where.base, 'odd.jsonl');
    writeFileSync(file, [line('t1', 'Read', { file_path: path.join(where.project, 'toolgate.yaml') }), deep, line('t3', 'Bash', { command: 'ls' })].join('\n') + '\n');
    const rollout = path.join(where.base, 'rollout.jsonl');
    writeFileSync(rollout, ['{"timestamp":"t","type":"session_meta","payload":null}', `{"timestamp":"t","type":"session_meta","payload":{"id":"c1","cwd":"${where.project}","cli_version":"0.171.0"}}`, '{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\\"cmd\\":\\"rm -rf src\\"}","call_id":"k1"}}'].join('\n') + '\n');
    const result = await runCli(['replay', '--calls', '--policy', path.join(outside, 'toolgate.yaml'), file, rollout], { cwd: where.base, env: ENV(where.home) });
    expect(result.code).toBe(4);
    const calls = result.stdout.trim().split('\n').map((text) => JSON.parse(text) as ReplayedCall);
    expect(calls.map((call) => [call.call_id, call.decision])).toEqual([['t1', 'block'], ['t2', 'ask'], ['t3', 'ask'], ['k1', 'ask']]);
    expect(result.stderr).toMatch(/rollout\.jsonl:1: a session_meta record without its payload object/);
    // Nothing written, nothing run: no state beside either policy, wrap or not.
    expect(existsSync(path.join(outside, '.toolgate'))).toBe(false);
    expect(existsSync(path.join(where.project, '.toolgate'))).toBe(false);
    // The hook answers this Read with a denial: toolgate.yaml in the call's directory is toolgate's own file.
    const hook = await runCli(['hook', 'claude-code', '--policy', path.join(outside, 'toolgate.yaml')], { cwd: where.project, env: ENV(where.home), stdin: JSON.stringify({ session_id: 's1', cwd: where.project, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: path.join(where.project, 'toolgate.yaml') }, tool_use_id: 't1' }) });
    expect(JSON.parse(hook.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('an audit log of hosts that give no call id (Gemini CLI, Copilot CLI, Cursor) keeps every call', async () => {
    const where = scratch();
    const log = path.join(where.base, 'audit.jsonl');
    const record = (command: string) => JSON.stringify({ v: 1, kind: 'verdict', time: '2026-12-07T10:00:00.000Z', session: 'gemini:s1', chat: null, run: null, caller: 'gemini', call_id: 'gemini-call', tool: 'shell', args: { command, cwd: where.project }, verdict: 'allow', decision: 'allow', source: 'policy', rule: null, reason: 'r', latency_ms: 1 });
    writeFileSync(log, `${record('echo one')}\n${record('rm -rf src')}\n${record('echo one')}\n`);
    const { summary } = await replayJson([log], where);
    expect(summary.calls).toBe(3);
    expect(summary.duplicates).toBe(0);
    expect(summary.policies[0]!.totals).toEqual({ allow: 2, ask: 0, block: 1 });
  });

  it('refuses a source that does not exist and a bad --against, saying which', async () => {
    const where = scratch();
    const missing = await runCli(['replay', path.join(where.base, 'nope.jsonl')], { cwd: where.project, env: ENV(where.home) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${path.join(where.base, 'nope.jsonl')} does not exist`);
    writeFileSync(path.join(where.project, 'bad.yaml'), 'version: 1\nshell:\n  default: perhaps\n');
    const bad = await runCli(['replay', '--against', 'bad.yaml', where.transcript(CODEX)], { cwd: where.project, env: ENV(where.home) });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/--against: .*bad\.yaml:3/);
    const none = await runCli(['replay'], { cwd: where.project, env: ENV(where.home) });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no history given');
  });
});
