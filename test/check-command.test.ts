import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TERMINAL_APPROVAL_KEYS } from '../src/approvers/terminal/terminal-approver.ts';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import type { AuditEntry } from '../src/core/audit-entry.ts';
import { createGate } from '../src/core/gate.ts';
import { policyJsonSchema } from '../src/core/policy/policy-schema.ts';
import { createBuiltinTools } from '../src/runtime/create-builtin-tools.ts';
import { runCli } from './cli-harness.ts';

const root = path.resolve(import.meta.dirname, '..');
const example = path.join(root, 'examples', 'toolgate.yaml');

function workspace(policy: string): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-check-'));
  writeFileSync(path.join(directory, 'toolgate.yaml'), policy);
  return directory;
}

function lines(text: string): Record<string, unknown>[] {
  return text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('toolgate check, one call', () => {
  it('allows, asks and blocks with exit codes 0, 5 and 1', async () => {
    const allowed = await runCli(['check', '--policy', example, '--tool', 'read_file', '--args', '{"path":"ws/a"}', '--json']);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toEqual({ decision: 'allow', source: 'policy', rule: 'tools.read_file', rule_at: `${example}:8`, reason: 'tools.read_file is allow' });

    const asked = await runCli(['check', '--policy', example, '--tool', 'send_email', '--args', '{"to":"x@evil.io"}', '--json']);
    expect(asked.code).toBe(5);
    expect(JSON.parse(asked.stdout)).toMatchObject({ decision: 'ask', source: 'policy', rule: 'tools.send_email' });

    const blocked = await runCli(['check', '--policy', example, '--tool', 'format_disk', '--json']);
    expect(blocked.code).toBe(1);
    expect(JSON.parse(blocked.stdout)).toEqual({ decision: 'block', source: 'policy', rule: 'tools.format_disk', rule_at: `${example}:21`, reason: 'Never, from any agent' });
  });

  it('applies an answer and a mode the way a real run would', async () => {
    const approved = await runCli(['check', '--policy', example, '--tool', 'write_file', '--args', '{"path":"ws/a"}', '--answer', 'once', '--json']);
    expect(JSON.parse(approved.stdout)).toMatchObject({ decision: 'approved', source: 'person' });
    expect(approved.code).toBe(0);

    const strict = await runCli(['check', '--policy', example, '--tool', 'write_file', '--args', '{"path":"ws/a"}', '--mode', 'strict', '--json']);
    expect(JSON.parse(strict.stdout)).toMatchObject({ decision: 'denied', source: 'mode' });
    expect(strict.code).toBe(1);

    const approveAll = await runCli(['check', '--policy', example, '--tool', 'format_disk', '--mode', 'approve_all', '--json']);
    expect(JSON.parse(approveAll.stdout)).toMatchObject({ decision: 'block' });
  });

  it('explains which rules spoke', async () => {
    const result = await runCli(['check', '--policy', example, '--tool', 'write_file', '--args', '{}', '--explain']);
    expect(result.stdout).toContain(`ask (policy: tools.write_file, ${example}:10)`);
    expect(result.stdout).toContain(`tools.write_file, ${example}:10: ask`);
    expect(result.stdout).toMatch(new RegExp(`ask_when\\[0\\], ${example.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: ask`));
  });

  it('shows the prompt without any control character but newlines under NO_COLOR', async () => {
    const args = JSON.stringify({ path: 'ws/a', content: 'safe\r\u001b[2Kevil \u202e txt.exe' });
    const result = await runCli(['check', '--policy', example, '--tool', 'write_file', '--args', args, '--show']);
    expect(result.code).toBe(5);
    expect(result.stdout).toContain('write_file');
    expect(result.stdout).toMatch(/\\(x1b|u001b)\[2K/);
    expect(result.stdout).toContain('\\u202e');
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it('rejects bad usage with exit code 2 and says what is wrong', async () => {
    const noTool = await runCli(['check', '--policy', example]);
    expect(noTool.code).toBe(2);
    expect(noTool.stderr).toContain('give either --tool NAME or --batch FILE');
    const badJson = await runCli(['check', '--policy', example, '--tool', 'x', '--args', '{nope']);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('--args is not valid JSON');
    const badFlag = await runCli(['check', '--policy', example, '--tool', 'x', '--frobnicate']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--frobnicate');
    const badMode = await runCli(['check', '--policy', example, '--tool', 'x', '--mode', 'yolo']);
    expect(badMode.code).toBe(2);
  });

  it('reports an invalid or missing policy with file, line and column, exit code 3', async () => {
    const directory = workspace('tools:\n  read_file: alow\n');
    const invalid = await runCli(['check', '--tool', 'read_file'], { cwd: directory });
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toContain(`${path.join(directory, 'toolgate.yaml')}:2:14: tools.read_file: invalid value`);
    expect(invalid.stderr).toContain('found "alow"');
    const missing = await runCli(['check', '--policy', path.join(directory, 'nope.yaml'), '--tool', 'x']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('no such file');
    const none = await runCli(['check', '--tool', 'x'], { cwd: os.tmpdir() });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no policy');
  });
});

describe('toolgate check on a policy that is not plain YAML 1.2', () => {
  it('refuses a merge key that would turn the decision the file shows into another, with file:line:column and exit code 3', async () => {
    const directory = workspace('tools:\n  format_disk: &strict { decision: block }\n  send_email:\n    decision: allow\n    <<: *strict\n');
    const result = await runCli(['check', '--tool', 'send_email', '--json'], { cwd: directory });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`${path.join(directory, 'toolgate.yaml')}:5:5: tools.send_email["<<"]: a YAML merge key`);
  });

  it('refuses %YAML 1.1 and tags the same way', async () => {
    const directory = workspace('%YAML 1.1\n---\ntools:\n  read_file: allow\n');
    const versioned = await runCli(['check', '--tool', 'read_file'], { cwd: directory });
    expect(versioned.code).toBe(3);
    expect(versioned.stderr).toContain(`${path.join(directory, 'toolgate.yaml')}:1:1:`);
    writeFileSync(path.join(directory, 'toolgate.yaml'), 'tools:\n  read_file: !allow block\n');
    const tagged = await runCli(['check', '--tool', 'read_file'], { cwd: directory });
    expect(tagged.code).toBe(3);
    expect(tagged.stderr).toContain(`${path.join(directory, 'toolgate.yaml')}:2:`);
    expect(tagged.stderr).toContain('core schema');
  });
});

describe('toolgate check --batch', () => {
  it('runs lines in order through one memory', async () => {
    const result = await runCli(['check', '--policy', example, '--batch', path.join(root, 'examples', 'calls.jsonl')]);
    const output = lines(result.stdout);
    expect(output.map((line) => line.decision ?? 'error')).toEqual([
      'allow', // read_file
      'allow', // send_email inside the company (argument rule)
      'denied', // send_email outside, answered deny
      'approved', // write_file, answered "session"
      'approved', // the same payload, keys reordered: remembered
      'ask', // the same payload in another session: not remembered
      'block', // delete_file: hidden by the filter
      'block', // format_disk
      'approved', // execute_query: dangerous, answered once
    ]);
    expect(output[4]).toMatchObject({ source: 'memory' });
    expect(result.code).toBe(0);
  });

  it('reads stdin and validates each line', async () => {
    const stdin = [
      '{"tool":"read_file","args":{}}',
      '{"tool":"read_file","args":{},"answr":"once"}',
      '{"tool":"write_file","args":{},"answer":"maybe"}',
      '[1,2]',
      'this line is not JSON',
      '',
      '{"tool":"write_file","args":{},"answer":"deny"}',
    ].join('\n');
    const result = await runCli(['check', '--policy', example, '--batch', '-'], { stdin });
    const output = lines(result.stdout);
    expect(output).toHaveLength(6);
    expect(output[1]).toEqual({ line: 2, error: 'unknown key "answr" (expected tool, args, server, session, chat, answer)' });
    expect(output[2]).toMatchObject({ line: 3 });
    expect(output[3]).toMatchObject({ line: 4 });
    expect(output[4]).toEqual({ line: 5, error: expect.stringContaining('not valid JSON') });
    expect(result.stderr).toContain('<stdin>:5: not valid JSON');
    expect(output[5]).toMatchObject({ decision: 'denied', source: 'person' });
    expect(result.code).toBe(4);
  });

  it('replays an audit log with the answers people gave', async () => {
    const audit = [
      { v: 1, kind: 'verdict', time: '2026-01-01T00:00:00Z', session: 's1', chat: null, run: null, caller: null, call_id: 'a', tool: 'write_file', args: { path: 'ws/x' }, verdict: 'ask', decision: 'ask', source: 'policy', rule: 'tools.write_file', reason: '', latency_ms: 0 },
      { v: 1, kind: 'decision', time: '2026-01-01T00:00:01Z', session: 's1', chat: null, run: null, caller: null, call_id: 'a', tool: 'write_file', args: { path: 'ws/x' }, verdict: 'ask', decision: 'denied', source: 'person', rule: 'tools.write_file', reason: 'no', latency_ms: 1 },
      { v: 1, kind: 'verdict', time: '2026-01-01T00:00:02Z', session: 's1', chat: null, run: null, caller: null, call_id: 'b', tool: 'format_disk', args: {}, verdict: 'allow', decision: 'allow', source: 'policy', rule: null, reason: '', latency_ms: 0 },
    ]
      .map((entry) => JSON.stringify(entry))
      .join('\n');
    const result = await runCli(['check', '--policy', example, '--batch', '-'], { stdin: audit });
    expect(lines(result.stdout).map((line) => line.decision)).toEqual(['denied', 'block']);
    expect(result.code).toBe(0);
  });
});

describe('toolgate schema', () => {
  it('prints the JSON Schema, and the shipped copy is current', async () => {
    const result = await runCli(['schema']);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toEqual(policyJsonSchema());
    expect(printed.properties.tools).toBeDefined();
    expect(printed.additionalProperties).toBe(false);
    const shipped = JSON.parse(readFileSync(path.join(root, 'schema', 'policy.schema.json'), 'utf8'));
    expect(shipped, 'schema/policy.schema.json is stale: run npm run schema').toEqual(printed);
  });
});

describe('toolgate', () => {
  it('prints help, a version, and rejects unknown commands', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('check');
    const unknown = await runCli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('which rule decided a built-in tool’s call (issue 39)', () => {
  const policyText = `version: 1
fs:
  zones:
    - { name: project, root: ., mode: rw, approval: { read: allow, write: ask, delete: ask } }
shell:
  default: ask
  network: false
  rules:
    - { match: echo, decision: allow }
    - { match: rm, decision: block, reason: "rm is blocked here" }
    - { match: git push, decision: ask }
`;
  const project = (): string => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-rule-at-'));
    writeFileSync(path.join(directory, 'toolgate.yaml'), policyText);
    return directory;
  };

  it('names the shell rule, its match and its file:line, in the verdict and in --explain, not "tool:checkApproval"', async () => {
    const cwd = project();
    const file = path.join(cwd, 'toolgate.yaml');
    const blocked = await runCli(['check', '--tool', 'shell', '--args', '{"command":"rm -rf x"}', '--json', '--explain'], { cwd });
    expect(JSON.parse(blocked.stdout)).toMatchObject({ decision: 'block', rule: 'shell.rules[1] (match: rm)', rule_at: `${file}:10`, trace: [{ rule: 'shell.rules[1] (match: rm)', at: `${file}:10`, decision: 'block' }] });
    const allowed = await runCli(['check', '--tool', 'shell', '--args', '{"command":"echo hi"}'], { cwd });
    expect(allowed.stdout).toContain(`allow (policy: shell.rules[0] (match: echo), ${file}:9)`);
    const asked = await runCli(['check', '--tool', 'shell', '--args', '{"command":"ls"}', '--json'], { cwd });
    expect(JSON.parse(asked.stdout)).toMatchObject({ decision: 'ask', rule: 'shell.default (ask)', rule_at: `${file}:6` });
  });

  it('names the zone approval that decided a file tool’s call, located at its zone', async () => {
    const cwd = project();
    writeFileSync(path.join(cwd, 'a.txt'), 'a\n');
    const file = path.join(cwd, 'toolgate.yaml');
    const written = JSON.parse((await runCli(['check', '--tool', 'write_file', '--args', '{"path":"a.txt","content":"b"}', '--json'], { cwd })).stdout);
    expect(written).toMatchObject({ decision: 'ask', rule: 'fs.zones[0].approval.write (zone project: ask)', rule_at: `${file}:4` });
    const read = JSON.parse((await runCli(['check', '--tool', 'read_file', '--args', '{"path":"a.txt"}', '--json'], { cwd })).stdout);
    expect(read).toMatchObject({ decision: 'allow', rule: 'fs.zones[0].approval.read (zone project: allow)', reason: 'zone project allows reads' });
  });

  it('a git push blocked because the network is off says that shell.network decided, and that no rule changes it', async () => {
    const cwd = project();
    const result = await runCli(['check', '--tool', 'shell', '--args', '{"command":"git push"}', '--json'], { cwd });
    const verdict = JSON.parse(result.stdout);
    expect(verdict).toMatchObject({ decision: 'block', rule: 'shell.network', rule_at: `${path.join(cwd, 'toolgate.yaml')}:7` });
    expect(verdict.reason).toContain('no shell rule changes that (a rule that allows or asks cannot open the network); only the shell.network key does');
  });

  it('--show prints the keys the terminal prompt offers, [a] approve always included', async () => {
    const cwd = project();
    const shown = await runCli(['check', '--tool', 'shell', '--args', '{"command":"ls"}', '--show'], { cwd, env: { NO_COLOR: '1' } });
    for (const key of TERMINAL_APPROVAL_KEYS.split(/ {2,}/)) expect(shown.stdout).toContain(key);
    expect(shown.stdout).toContain('[a] approve always');
  });

  it('the audit log records the rule and where it was written', async () => {
    const cwd = project();
    const loaded = await loadPolicyFile(path.join(cwd, 'toolgate.yaml'));
    const { tools } = await createBuiltinTools({ loaded, cwd, judgeOnly: true });
    const entries: AuditEntry[] = [];
    const gate = createGate({ policy: loaded.policy, tools, audit: { record: async (entry) => void entries.push(entry) } });
    await gate.authorize({ tool: 'shell', args: { command: 'rm -rf x' }, callId: 'c1' }, { sessionId: 's' });
    expect(entries.find((entry) => entry.kind === 'verdict')).toMatchObject({ rule: 'shell.rules[1] (match: rm)', rule_at: `${path.join(cwd, 'toolgate.yaml')}:10` });
  });
});
