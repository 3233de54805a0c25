/**
 * One sanitiser for every line a person reads (issue 11, class 6): every
 * output path of the CLI — check's decision line, --explain, --show (box and
 * decision line), --json, --batch and its errors, audit's table and --json,
 * error messages — is fed the same hostile strings, and prints them escaped:
 * an OSC 52 clipboard write, cursor moves, a window title, bidi overrides,
 * zero-width characters and `\r\x1b[2K` never reach the terminal as such.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApprovalsFile } from '../src/approvals/approvals-file.ts';
import { createAuditLog } from '../src/audit/audit-log.ts';
import { createGate } from '../src/core/gate.ts';
import { normalizePolicy } from '../src/core/policy/normalize-policy.ts';
import { runCli } from './cli-harness.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The hostile strings, each with a piece of its escaped form that must show instead. */
const HOSTILE: ReadonlyArray<{ name: string; text: string; shown: string }> = [
  { name: 'OSC 52 clipboard write', text: '\x1b]52;c;cm0gLXJmIH4=\x07', shown: '\\x1b]52;c;cm0gLXJmIH4=\\x07' },
  { name: 'CSI cursor moves', text: '\x1b[2A\x1b[10D', shown: '\\x1b[2A\\x1b[10D' },
  { name: 'OSC 0 window title', text: '\x1b]0;all clear\x07', shown: '\\x1b]0;all clear\\x07' },
  { name: 'bidi overrides', text: 'report\u202efdp.exe\u2066x\u2069', shown: 'report\\u202efdp.exe\\u2066x\\u2069' },
  { name: 'zero-width characters', text: 'ap\u200bprove\ufeff', shown: 'ap\\u200bprove\\ufeff' },
  { name: 'carriage return and erase line', text: 'safe\r\x1b[2Kevil', shown: 'safe\\r\\x1b[2Kevil' },
  { name: 'C1 CSI', text: '\x9b2J', shown: '\\x9b2J' },
];

/** Everything a terminal would act on or hide: C0 but newline, DEL, C1, bidi controls, zero-width and other format characters. */
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u;

function expectSafe(output: string, label: string): void {
  const match = UNSAFE.exec(output);
  expect(match === null ? null : `${label}: U+${match[0].codePointAt(0)!.toString(16)} at ${match.index} in ${JSON.stringify(output.slice(Math.max(0, match.index - 30), match.index + 30))}`).toBeNull();
}

/** A policy whose tool descriptions and reasons carry the hostile text, as a planted or careless policy could. */
function project(hostile: string): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'toolgate-hostile-'));
  const quoted = JSON.stringify(hostile);
  writeFileSync(
    path.join(directory, 'toolgate.yaml'),
    [`tools:`, `  send_email: { decision: ask, description: ${quoted} }`, `  format_disk: { decision: block, reason: ${quoted} }`, `  read_file: allow`].join('\n') + '\n',
  );
  return directory;
}

describe.each(HOSTILE)('every CLI output path escapes $name', ({ text, shown }) => {
  it('check: decision line, --explain, --show box and decision line', async () => {
    const cwd = project(text);
    const blocked = await runCli(['check', '--tool', 'format_disk', '--args', JSON.stringify({ note: text }), '--explain'], { cwd });
    expect(blocked.code).toBe(1);
    expectSafe(blocked.stdout + blocked.stderr, 'check --explain (block)');
    expect(blocked.stdout).toContain(shown);

    const shownPrompt = await runCli(['check', '--tool', 'send_email', '--args', JSON.stringify({ to: text, body: text }), '--show', '--answer', 'once', '--explain'], { cwd });
    expect(shownPrompt.code).toBe(0);
    expectSafe(shownPrompt.stdout + shownPrompt.stderr, 'check --show');
    expect(shownPrompt.stdout).toContain('┌─ send_email');
    expect(shownPrompt.stdout).toMatch(/approved \(person/);
    expect(shownPrompt.stdout).toContain(shown.slice(0, 12));

    const unknownTool = await runCli(['check', '--tool', `evil${text}`, '--explain'], { cwd });
    expectSafe(unknownTool.stdout + unknownTool.stderr, 'check unknown tool');
    expect(unknownTool.stdout).toContain(shown.slice(0, 8));
  });

  it('check --json and --batch (results and malformed-line errors)', async () => {
    const cwd = project(text);
    const json = await runCli(['check', '--tool', 'format_disk', '--args', JSON.stringify({ note: text }), '--json', '--explain'], { cwd });
    expectSafe(json.stdout + json.stderr, 'check --json');
    // Still the same JSON value: escaped as \u, not altered.
    expect(JSON.parse(json.stdout).reason).toBe(text);

    const batch = [JSON.stringify({ tool: 'format_disk', args: {} }), JSON.stringify({ tool: `t${text}`, args: {} }), `{"tool": "${text}`, JSON.stringify({ tool: 'read_file', [text]: 1 })].join('\n');
    const result = await runCli(['check', '--batch', '-'], { cwd, stdin: batch });
    expect(result.code).toBe(4);
    expectSafe(result.stdout, 'check --batch stdout');
    expectSafe(result.stderr, 'check --batch stderr');
    const records = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records[0]).toMatchObject({ decision: 'block', reason: text });
    expect(records[3]).toMatchObject({ line: 4 });
  });

  it('error messages: usage errors, bad JSON, an unknown command, a broken policy', async () => {
    const cwd = project(text);
    const outputs = [
      await runCli(['check', '--tool', 'read_file', '--mode', text], { cwd }),
      await runCli(['check', '--tool', 'read_file', '--args', `{"a": ${text}}`], { cwd }),
      await runCli([`check${text}`], { cwd }),
      await runCli(['audit', '--decision', text], { cwd }),
      await runCli(['audit', '--log', path.join(cwd, `missing${text}.jsonl`)], { cwd }),
    ];
    const broken = mkdtempSync(path.join(os.tmpdir(), 'toolgate-hostile-policy-'));
    writeFileSync(path.join(broken, 'toolgate.yaml'), `tools:\n  ${JSON.stringify(`x${text}`)}: sometimes\n`);
    outputs.push(await runCli(['check', '--tool', 'read_file'], { cwd: broken }));
    for (const [index, output] of outputs.entries()) {
      expect(output.code, `case ${index}`).not.toBe(0);
      expectSafe(output.stdout + output.stderr, `error case ${index}`);
    }
    // JSON.stringify already wrote C0 controls as \u001b; the sanitiser escaped what it leaves raw (bidi, zero-width, C1).
    expect(outputs[0]!.stderr).toContain('--mode must be');
  });

  it('audit: the table and --json, from a log a real gate wrote; secrets stay hidden in the log', async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'toolgate-hostile-audit-'));
    const log = path.join(cwd, 'audit.jsonl');
    const audit = createAuditLog({ path: log, fsync: false });
    const policy = normalizePolicy({ tools: { [`send${text}`]: 'allow', format_disk: { decision: 'block', reason: text } } });
    const gate = createGate({ policy, audit, openWorld: true });
    await gate.authorize({ tool: `send${text}`, args: { to: text, password: 'hunter2-do-not-log' }, callId: `c${text}` }, { sessionId: `s${text}` });
    await gate.authorize({ tool: 'format_disk', args: { device: text }, callId: 'c2' }, { sessionId: 's' });
    await audit.close();
    expect(readFileSync(log, 'utf8')).not.toContain('hunter2-do-not-log');

    const table = await runCli(['audit', '--log', log], { cwd, env: {} });
    expect(table.code).toBe(0);
    expectSafe(table.stdout + table.stderr, 'audit table');
    expect(table.stdout).toContain(shown.slice(0, 6));

    const json = await runCli(['audit', '--log', log, '--json'], { cwd });
    expectSafe(json.stdout + json.stderr, 'audit --json');
    const records = json.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.some((record) => record.reason === text)).toBe(true);
    expect(json.stdout).not.toContain('hunter2-do-not-log');
  });
});

describe.each(HOSTILE)('toolgate approvals escapes $name', ({ text, shown }) => {
  it('list (table and --json) and revoke', async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'toolgate-hostile-approvals-'));
    writeFileSync(path.join(cwd, 'toolgate.yaml'), 'tools: { read_file: allow }\n');
    const file = openApprovalsFile({ path: path.join(cwd, '.toolgate', 'approvals.json'), redactKeys: new Set(['password']) });
    await file.add({ tool: `deploy${text}`, identity: `id${text}`, payload: { env: text, password: 'hunter2-do-not-print' }, description: `Deploy ${text}` });
    const listed = await runCli(['approvals', 'list'], { cwd });
    expect(listed.code).toBe(0);
    expectSafe(listed.stdout + listed.stderr, 'approvals list');
    expect(listed.stdout).toContain(`deploy${shown.slice(0, 6)}`);
    expect(listed.stdout).not.toContain('hunter2-do-not-print');
    const json = await runCli(['approvals', 'list', '--json'], { cwd });
    expectSafe(json.stdout + json.stderr, 'approvals list --json');
    expect(JSON.parse(json.stdout.trim()).tool).toBe(`deploy${text}`);
    const revoked = await runCli(['approvals', 'revoke', '--all'], { cwd });
    expectSafe(revoked.stdout + revoked.stderr, 'approvals revoke');
  });
});

describe('paths a person reads', () => {
  it('a policy in a directory whose name carries escape sequences is announced escaped', async () => {
    const hostile = HOSTILE.map((entry) => entry.text.replace(/\//g, '')).join('');
    const parent = mkdtempSync(path.join(os.tmpdir(), 'toolgate-hostile-dir-'));
    const cwd = path.join(parent, `p${hostile}`);
    mkdirSync(cwd);
    writeFileSync(path.join(cwd, 'toolgate.yaml'), 'tools: { read_file: allow }\n');
    for (const argv of [['check', '--tool', 'read_file'], ['check', '--tool', 'read_file', '--json'], ['audit'], ['approvals', 'list']]) {
      const result = await runCli(argv, { cwd });
      expectSafe(result.stdout + result.stderr, argv.join(' '));
    }
  });
});

describe('toolgate run transcript', () => {
  it('escapes hostile arguments and text, and keeps secrets [REDACTED] in the stream and the audit log', async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'toolgate-hostile-run-'));
    mkdirSync(path.join(cwd, 'ws'));
    writeFileSync(path.join(cwd, 'toolgate.yaml'), 'fs:\n  zones:\n    - { name: workspace, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: ask } }\nsandbox: { os: preferred }\n');
    const hostile = HOSTILE.map((entry) => entry.text).join(' ');
    writeFileSync(
      path.join(cwd, 'script.yaml'),
      [
        'steps:',
        `  - text: ${JSON.stringify(hostile)}`,
        `    tool_calls: [{ tool: write_file, args: { path: ${JSON.stringify(`ws/a${hostile}.txt`)}, content: "x" } }]`,
        '  - tool_calls: [{ tool: write_file, args: { api_token: "sekret-0123456789", path: ws/b.txt, content: "x" } }]',
        '  - text: "done"',
      ].join('\n'),
    );
    const result = await runCli(['run', 'go', '--model', 'script:script.yaml'], { cwd });
    expectSafe(result.stdout + result.stderr, 'toolgate run');
    expect(result.stdout + result.stderr).toContain('\\x1b]52;c;');
    expect(result.stdout + result.stderr).not.toContain('sekret-0123456789');
    expect(result.stdout + result.stderr).toContain('"api_token":"[REDACTED]"');
    expect(readFileSync(path.join(cwd, '.toolgate', 'audit.jsonl'), 'utf8')).not.toContain('sekret-0123456789');
  });
});

describe('the real CLI process', () => {
  it('writes no escape sequence to its real stdout and stderr for hostile input', () => {
    const text = HOSTILE.map((hostile) => hostile.text).join(' ');
    const cwd = project(text);
    const run = (args: string[]): string => {
      try {
        return execFileSync(path.join(ROOT, 'node_modules/.bin/node'), [path.join(ROOT, 'src/cli/main.ts'), ...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (error) {
        const failed = error as { stdout: string; stderr: string };
        return failed.stdout + failed.stderr;
      }
    };
    const explained = run(['check', '--tool', 'format_disk', '--args', JSON.stringify({ note: text }), '--explain', '--show']);
    expectSafe(explained, 'real check');
    expect(explained).toContain('\\x1b]52;c;');
    expectSafe(run(['check', '--tool', 'read_file', '--mode', text]), 'real usage error');
    // Two real process starts on a loaded machine.
  }, 60_000);
});
