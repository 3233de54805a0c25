import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';

/** A project with a rw zone, a policy, and a script for the scripted model. */
function project(script: string, policyExtra = ''): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-run-'));
  mkdirSync(path.join(root, 'ws'));
  writeFileSync(path.join(root, 'ws', 'notes.txt'), 'old\n');
  writeFileSync(
    path.join(root, 'toolgate.yaml'),
    [
      'fs:',
      '  zones:',
      '    - { name: workspace, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: ask } }',
      'shell:',
      '  default: ask',
      '  rules:',
      '    - { match: rm, decision: block, reason: "no rm here" }',
      'sandbox: { os: preferred }',
      policyExtra,
    ].join('\n'),
  );
  writeFileSync(path.join(root, 'script.yaml'), script);
  return root;
}

const SCRIPT = `
steps:
  - text: "Reading."
    tool_calls: [{ tool: read_file, args: { path: ws/notes.txt } }]
  - text: "Writing."
    tool_calls: [{ tool: write_file, args: { path: ws/notes.txt, content: "new\\n" } }]
  - when: { tool: write_file, last_result: denied }
    text: "The write was denied; removing instead."
    tool_calls: [{ tool: shell, args: { command: "rm -rf ws" } }]
  - when: otherwise
    text: "Written."
    tool_calls: [{ tool: shell, args: { command: "rm -rf ws" } }]
  - text: "Done."
`;

function auditLines(root: string): Record<string, unknown>[] {
  const file = path.join(root, '.toolgate', 'audit.jsonl');
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('toolgate run', () => {
  it('without a terminal and without a mode, denies every ask, names the rule that asked and says who could approve', async () => {
    const root = project(SCRIPT);
    const result = await runCli(['run', 'update the notes', '--model', 'script:script.yaml'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('write_file denied: write_file needs approval (asked by fs.zones[0].approval.write (zone workspace: ask) — ');
    expect(result.stderr).toContain('toolgate.yaml:3), but nobody who can approve it is reachable here: toolgate run has no terminal to ask on');
    expect(result.stderr).toContain('To be asked, start toolgate run from a terminal');
    // Never a broader mode: whoever wrote the rule meant a person to decide.
    expect(result.stderr).not.toMatch(/--approve-all|approve_all|auto_deny/);
    expect(result.stderr).toContain('shell blocked');
    expect(result.stderr).toContain('3 tool calls: 1 allowed, 0 approved, 1 denied, 1 blocked');
    expect(result.stdout).toContain('The write was denied; removing instead.');
    expect(readFileSync(path.join(root, 'ws', 'notes.txt'), 'utf8')).toBe('old\n');
    expect(existsSync(path.join(root, 'ws'))).toBe(true);
    const decisions = auditLines(root).filter((entry) => entry.kind === 'decision');
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ tool: 'write_file', decision: 'denied', source: 'mode' });
  });

  it('--approve-all approves asks but never a block', async () => {
    const root = project(SCRIPT);
    const result = await runCli(['run', 'update the notes', '--model', 'script:script.yaml', '--approve-all'], { cwd: root });
    expect(result.code).toBe(0);
    expect(readFileSync(path.join(root, 'ws', 'notes.txt'), 'utf8')).toBe('new\n');
    expect(result.stdout).toContain('Written.');
    expect(result.stderr).toContain('shell blocked: rm -rf ws: no rm here');
    expect(existsSync(path.join(root, 'ws'))).toBe(true);
    expect(result.stderr).toContain('1 allowed, 1 approved, 0 denied, 1 blocked');
  });

  it('stops the run on a denial when the policy says on_deny: stop, with exit code 1', async () => {
    const root = project(SCRIPT, 'on_deny: stop');
    const result = await runCli(['run', 'update the notes', '--model', 'script:script.yaml', '--strict'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('stopped by the denial of write_file: denied by mode strict');
    expect(result.stdout).not.toContain('removing instead');
  });

  it('explains bad usage and bad model ids', async () => {
    const root = project(SCRIPT);
    expect((await runCli(['run'], { cwd: root })).code).toBe(2);
    const both = await runCli(['run', 'x', '--strict', '--auto-deny'], { cwd: root });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('choose one of --approve-all, --strict and --auto-deny');
    const key = await runCli(['run', 'x', '--model', 'openai:gpt-4o'], { cwd: root, env: { OPENAI_API_KEY: undefined } });
    expect(key.code).toBe(1);
    expect(key.stderr).toContain('OPENAI_API_KEY');
    const url = await runCli(['run', 'x', '--model', 'openai-compatible:llama3.2'], { cwd: root });
    expect(url.stderr).toMatch(/TOOLGATE_BASE_URL|--base-url/);
  });

  it('--demo runs the demo agent in a fresh workspace without a key', async () => {
    const result = await runCli(['run', '--demo'], { cwd: os.tmpdir() });
    expect(result.code).toBe(0);
    const workspace = /a fresh workspace in (\S+)/.exec(result.stderr)?.[1];
    expect(workspace).toBeDefined();
    expect(readFileSync(path.join(workspace!, 'ws', 'notes.txt'), 'utf8')).toContain('pad the invoice numbers');
    expect(result.stderr).toContain('rm -rf ws');
    expect(result.stderr).toContain('blocked');
    expect(result.stderr).toContain(`toolgate audit --policy ${path.join(workspace!, 'toolgate.yaml')}`);
  });
});
