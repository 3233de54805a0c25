import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';

/** A project with a policy at its root, a rw zone `ws`, a ro zone `docs`, and a secret outside. */
function project(extra = ''): { root: string; outside: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-builtins-'));
  const outside = mkdtempSync(path.join(os.tmpdir(), 'toolgate-outside-'));
  mkdirSync(path.join(root, 'ws'));
  mkdirSync(path.join(root, 'docs'));
  writeFileSync(path.join(root, 'ws', 'notes.txt'), 'line one\nline two\n');
  writeFileSync(path.join(root, 'docs', 'guide.md'), '# Guide\n');
  writeFileSync(path.join(outside, 'secret.txt'), 'hunter2\n');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'ws', 'link-out'));
  writeFileSync(
    path.join(root, 'toolgate.yaml'),
    [
      'fs:',
      '  zones:',
      '    - { name: project, root: ., mode: rw, approval: { read: allow, write: ask, delete: block } }',
      '    - { name: workspace, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: ask } }',
      '    - { name: docs, root: ./docs, mode: ro }',
      'shell:',
      '  default: ask',
      '  rules:',
      '    - { match: "git status", decision: allow }',
      '    - { match: "ls", decision: allow }',
      '    - { match: rm, decision: block, reason: "no rm" }',
      extra,
    ].join('\n'),
  );
  return { root, outside };
}

async function check(root: string, tool: string, args: unknown, flags: string[] = []) {
  const result = await runCli(['check', '--tool', tool, '--args', JSON.stringify(args), '--json', ...flags], { cwd: root });
  return { ...result, output: JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, unknown> };
}

describe('toolgate check with the built-in tools, on the real filesystem', () => {
  it('gives the file tools their zone verdicts', async () => {
    const { root } = project();
    expect((await check(root, 'read_file', { path: 'ws/notes.txt' })).output).toMatchObject({ decision: 'allow' });
    expect((await check(root, 'write_file', { path: 'ws/notes.txt', content: 'x' })).output).toMatchObject({ decision: 'ask' });
    expect((await check(root, 'write_file', { path: 'docs/guide.md', content: 'x' })).output).toMatchObject({ decision: 'block' });
    const escaped = await check(root, 'read_file', { path: 'ws/link-out' });
    expect(escaped.output).toMatchObject({ decision: 'block' });
    expect(String(escaped.output.reason)).toMatch(/outside|escape/);
    expect((await check(root, 'read_file', { path: 'ws/../../etc/passwd' })).output).toMatchObject({ decision: 'block' });
    expect((await check(root, 'read_file', { path: 'ws/notes.txt', extra: 1 })).output).toMatchObject({ decision: 'block' });
    // The simulator writes nothing: no state, no audit log.
    expect(existsSync(path.join(root, '.toolgate'))).toBe(false);
  });

  it("never lets a tool change toolgate's own files, even inside a rw zone", async () => {
    const { root } = project();
    for (const target of ['toolgate.yaml', '.toolgate/approvals.json', '.toolgate/audit.jsonl']) {
      const result = await check(root, 'write_file', { path: target, content: 'mode: approve_all' });
      expect(result.output, target).toMatchObject({ decision: 'block' });
      expect(String(result.output.reason)).toContain("toolgate's own files");
    }
    // Reading is refused too: the policy may hold MCP tokens, which the sandbox hides from the shell.
    expect((await check(root, 'read_file', { path: 'toolgate.yaml' })).output).toMatchObject({ decision: 'block' });
    // A second policy file beside the first would take over the next run: planting one is refused.
    for (const planted of ['toolgate.json', 'toolgate.yml']) {
      expect((await check(root, 'write_file', { path: planted, content: '{"mode": "approve_all"}' })).output, planted).toMatchObject({ decision: 'block' });
    }
    expect(readFileSync(path.join(root, 'toolgate.yaml'), 'utf8')).not.toContain('approve_all');
  });

  it('refuses two policy files in one directory, which is how a planted one would take over', async () => {
    const { root } = project();
    writeFileSync(path.join(root, 'toolgate.json'), '{"mode": "approve_all"}');
    const result = await runCli(['check', '--tool', 'read_file', '--args', '{"path":"ws/notes.txt"}'], { cwd: root });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('several policy files');
  });

  it('refuses a policy reached through a symlink inside a writable zone', async () => {
    const { root } = project();
    symlinkSync(path.join(root, 'toolgate.yaml'), path.join(root, 'link-policy.yaml'));
    const result = await runCli(['check', '--policy', 'link-policy.yaml', '--tool', 'read_file', '--args', '{"path":"ws/notes.txt"}'], { cwd: root });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('is a symlink inside the writable zone project');
  });

  it('shows the diff a person would approve', async () => {
    const { root } = project();
    const result = await runCli(['check', '--tool', 'write_file', '--args', JSON.stringify({ path: 'ws/notes.txt', content: 'line one\nline 2\n' }), '--show'], { cwd: root });
    expect(result.stdout).toContain('-line two');
    expect(result.stdout).toContain('+line 2');
    expect(result.code).toBe(5);
  });

  it('gives the shell tool its rule verdicts', async () => {
    const { root } = project();
    expect((await check(root, 'shell', { command: 'git status' })).output).toMatchObject({ decision: 'allow' });
    expect((await check(root, 'shell', { command: 'ls -la' })).output).toMatchObject({ decision: 'allow' });
    expect((await check(root, 'shell', { command: 'git status; rm -rf ~' })).output).toMatchObject({ decision: 'block' });
    expect((await check(root, 'shell', { command: 'git statusx' })).output).toMatchObject({ decision: 'ask' });
    expect((await check(root, 'shell', { command: 'echo hi > /etc/passwd' })).output).toMatchObject({ decision: 'block' });
    expect((await check(root, 'shell', { command: 'bash -c "rm x"' })).output).toMatchObject({ decision: 'block' });
  });

  it('reports a zone whose root does not exist as a policy error', async () => {
    const { root } = project();
    writeFileSync(path.join(root, 'toolgate.yaml'), 'fs:\n  zones:\n    - { name: gone, root: ./missing, mode: rw }\n');
    const result = await runCli(['check', '--tool', 'read_file', '--args', '{"path":"x"}'], { cwd: root });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('fs.zones[0].root');
  });
});
