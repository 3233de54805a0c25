/**
 * `toolgate check` as a user meets it: batch lines that say which input they
 * answer, arguments that must be an object, a policy file that is not YAML,
 * and a tool nobody declared.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';

const root = path.resolve(import.meta.dirname, '..');
const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

function workspace(files: Record<string, string>): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-check-output-'));
  directories.push(directory);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(directory, name), text);
  return directory;
}

const POLICY = 'tools:\n  send_email: { decision: ask, description: "Send an email" }\n  format_disk: { decision: block, reason: never }\n';

function jsonLines(text: string): Record<string, unknown>[] {
  return text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('toolgate check --batch', () => {
  it('each output line carries its input line number and tool, blank and malformed lines included in the count', async () => {
    const cwd = workspace({ 'toolgate.yaml': POLICY });
    const input = ['{"tool":"send_email","args":{"to":"a@b.c"}}', '', '{"tool":"format_disk"}', 'not json', '{"tool":"send_email","args":{"to":"a@b.c"},"answer":"once"}'].join('\n');
    const result = await runCli(['check', '--batch', '-'], { cwd, stdin: input });
    expect(result.code).toBe(4);
    const lines = jsonLines(result.stdout);
    expect(lines.map((line) => [line.line, line.tool ?? null, line.decision ?? 'error'])).toEqual([
      [1, 'send_email', 'ask'],
      [3, 'format_disk', 'block'],
      [4, null, 'error'],
      [5, 'send_email', 'approved'],
    ]);
    // The line number and the tool come first, so a person reading the output sees them at once.
    expect(Object.keys(lines[0]!).slice(0, 2)).toEqual(['line', 'tool']);
  });

  it('an audit log replayed: each line names the audit line it came from', async () => {
    const cwd = workspace({ 'toolgate.yaml': POLICY });
    const audit = [
      JSON.stringify({ v: 1, kind: 'verdict', tool: 'send_email', args: { to: 'x' }, session: 's', call_id: 'c1' }),
      JSON.stringify({ v: 1, kind: 'decision', source: 'person', decision: 'approved', session: 's', call_id: 'c1' }),
      JSON.stringify({ v: 1, kind: 'verdict', tool: 'format_disk', args: {}, session: 's', call_id: 'c2' }),
    ].join('\n');
    writeFileSync(path.join(cwd, 'audit.jsonl'), audit);
    const result = await runCli(['check', '--batch', 'audit.jsonl'], { cwd });
    expect(jsonLines(result.stdout).map((line) => [line.line, line.tool, line.decision])).toEqual([
      [1, 'send_email', 'approved'],
      [3, 'format_disk', 'block'],
    ]);
  });

  it('"args" that is not an object is a malformed line, not a call', async () => {
    const cwd = workspace({ 'toolgate.yaml': POLICY });
    const result = await runCli(['check', '--batch', '-'], { cwd, stdin: '{"tool":"send_email","args":["rm","-rf"]}\n{"tool":"send_email","args":"x"}\n' });
    expect(result.code).toBe(4);
    expect(jsonLines(result.stdout)).toEqual([
      { line: 1, error: '"args" must be a JSON object, not a list' },
      { line: 2, error: '"args" must be a JSON object, not a string' },
    ]);
  });
});

describe('toolgate check --args', () => {
  for (const [args, kind] of [['[1,2]', 'a list'], ['"path"', 'a string'], ['42', 'a number'], ['null', 'null']] as const) {
    it(`refuses ${kind} as arguments with a usage error`, async () => {
      const cwd = workspace({ 'toolgate.yaml': POLICY });
      const result = await runCli(['check', '--tool', 'send_email', '--args', args], { cwd });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`--args must be a JSON object such as '{"path": "notes.txt"}', not ${kind}`);
      // Said before the policy is read: no policy line, however the policy is found.
      expect(result.stderr).not.toContain('toolgate: policy');
    });
  }

  it('still takes an object', async () => {
    const cwd = workspace({ 'toolgate.yaml': POLICY });
    const result = await runCli(['check', '--tool', 'send_email', '--args', '{"to":"a@b.c"}', '--json'], { cwd });
    expect(result.code).toBe(5);
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: 'ask', rule: 'tools.send_email' });
  });
});

describe('a policy file that is not YAML', () => {
  it('a README given as the policy is one short error, not the whole file', async () => {
    const cwd = workspace({ 'notes.yaml': readFileSync(path.join(root, 'README.md'), 'utf8') });
    const result = await runCli(['check', '--policy', 'notes.yaml', '--tool', 'x'], { cwd });
    expect(result.code).toBe(3);
    const lines = result.stderr.trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(4);
    expect(result.stderr).toMatch(/notes\.yaml:\d+:\d+: this is not a YAML or JSON policy \(\d+ syntax errors; the first: /);
    expect(result.stderr.length).toBeLessThan(600);
  });

  it('a shell script given as the policy is one short error too', async () => {
    const script = '#!/bin/sh\nset -e\nfor f in *.txt; do\n  if [ -f "$f" ]; then echo "$f: {" ; fi\ndone\ncase $1 in\n  a) echo [a ;;\n  *) echo } ;;\nesac\n\tindented: [\n';
    const cwd = workspace({ 'toolgate.yaml': script.repeat(5) });
    const result = await runCli(['check', '--tool', 'x'], { cwd });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('this is not a YAML or JSON policy');
    expect(result.stderr.trim().split('\n').length).toBeLessThanOrEqual(4);
  });

  it('a YAML file with one or two mistakes still lists each with its line', async () => {
    const cwd = workspace({ 'toolgate.yaml': 'tools:\n  send_email: [ask\n' });
    const result = await runCli(['check', '--tool', 'send_email'], { cwd });
    expect(result.code).toBe(3);
    expect(result.stderr).not.toContain('not a YAML or JSON policy');
    expect(result.stderr).toMatch(/toolgate\.yaml:\d+:\d+: /);
  });
});

describe('check --tool with a tool nobody declared', () => {
  it('says how the gate judges it and that toolgate run would block it', async () => {
    const cwd = workspace({ 'toolgate.yaml': POLICY });
    const result = await runCli(['check', '--tool', 'frobnicate'], { cwd });
    expect(result.code).toBe(5);
    expect(result.stdout).toContain('ask (policy: unknown_tools.decision)');
    expect(result.stdout).toContain('note: frobnicate is not a toolgate tool and the policy has no rule for it');
    expect(result.stdout).toContain('unknown_tools.decision');
    expect(result.stdout).toContain('`toolgate run` offers the model only its own tools and blocks a call to any other');
  });

  it('follows unknown_tools.decision from the policy, and suggests a close name', async () => {
    const cwd = workspace({ 'toolgate.yaml': `${POLICY}unknown_tools: { decision: block }\n` });
    const result = await runCli(['check', '--tool', 'send_emial', '--json'], { cwd });
    expect(result.code).toBe(1);
    const output = JSON.parse(result.stdout) as Record<string, string>;
    expect(output).toMatchObject({ decision: 'block', rule: 'unknown_tools.decision' });
    expect(output.note).toContain('(did you mean send_email?)');
  });

  it('says nothing more for a tool the policy names or toolgate ships', async () => {
    const cwd = workspace({ 'toolgate.yaml': POLICY });
    const named = await runCli(['check', '--tool', 'send_email', '--json'], { cwd });
    expect(JSON.parse(named.stdout)).not.toHaveProperty('note');
    const worker = await runCli(['check', '--tool', 'call_worker', '--args', '{"task":"x"}', '--json'], { cwd });
    expect(JSON.parse(worker.stdout)).not.toHaveProperty('note');
  });
});
