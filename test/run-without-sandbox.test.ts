/**
 * `toolgate run` on a machine without bubblewrap (issue 13, item 3): PATH
 * without bwrap, so sandbox detection finds none; real files, real bash.
 * The built-in policy keeps the agent's tools and says once what it cannot
 * do; a policy that requires the sandbox refuses the tools and every piece
 * of advice names the file and the line.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';
import { pathWithoutBwrap } from './path-without-bwrap.ts';

const NO_BWRAP = { PATH: pathWithoutBwrap() };

const SCRIPT = [
  'steps:',
  '  - text: "Looking."',
  '    tool_calls:',
  '      - { tool: read_file, args: { path: a.txt } }',
  '      - { tool: shell, args: { command: "ls" } }',
  '      - { tool: write_file, args: { path: b.txt, content: "b\\n" } }',
  '  - text: "Done."',
].join('\n');

function project(policy?: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-no-sandbox-'));
  writeFileSync(path.join(root, 'a.txt'), 'a\n');
  writeFileSync(path.join(root, 'script.yaml'), SCRIPT);
  if (policy !== undefined) writeFileSync(path.join(root, 'toolgate.yaml'), policy);
  return root;
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('toolgate run without bubblewrap', () => {
  it('the built-in policy keeps the tools, says once what it cannot do and how to install bubblewrap', async () => {
    const root = project();
    const result = await runCli(['run', 'look around', '--model', 'script:script.yaml', '--approve-all'], { cwd: root, env: NO_BWRAP });
    expect(result.code).toBe(0);
    expect(count(result.stderr, 'no OS sandbox')).toBe(1);
    expect(result.stderr).toContain('bwrap (bubblewrap) is not installed or not on PATH');
    expect(result.stderr).toContain('apt-get install bubblewrap');
    expect(count(result.stderr, 'apt-get install bubblewrap')).toBe(1);
    expect(result.stderr).toMatch(/not confined: they can read and write whatever you can, and reach the network/);
    // No file to edit under the built-in policy: the advice says how to get one.
    expect(result.stderr).toContain(`run \`toolgate init\` to write ${path.join(root, 'toolgate.yaml')}, then set:  sandbox: { os: required, fallback: refuse_tools }`);
    expect(result.stderr).not.toContain('set sandbox.os: preferred');
    // The agent had its tools: the read, the shell command and the (approved) write ran.
    expect(result.stderr).toContain('✓ read_file ran');
    expect(result.stderr).toContain('✓ shell ran');
    expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('b\n');
  });

  it('the same run with bubblewrap says nothing about a sandbox', async () => {
    const root = project();
    const result = await runCli(['run', 'look around', '--model', 'script:script.yaml', '--approve-all'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('no OS sandbox');
    expect(result.stderr).toContain('✓ shell ran');
  });

  it('a policy without a sandbox line refuses the tools and says which line to add to which file; adding it works', async () => {
    const zones = 'fs:\n  zones:\n    - { name: project, root: ., mode: rw, approval: { read: allow, write: ask, delete: ask } }\nshell:\n  default: ask\n';
    const root = project(zones);
    const file = path.join(root, 'toolgate.yaml');
    const refused = await runCli(['run', 'look around', '--model', 'script:script.yaml', '--approve-all'], { cwd: root, env: NO_BWRAP });
    expect(count(refused.stderr, 'no OS sandbox')).toBe(1);
    expect(refused.stderr).toContain(`The file and shell tools are refused for this run (the agent cannot read, write or run anything): ${file} has no sandbox line`);
    expect(refused.stderr).toContain(`To run them without one instead, add this line in ${file}:  sandbox: { os: preferred }`);
    expect(existsSync(path.join(root, 'b.txt'))).toBe(false);

    writeFileSync(file, `${zones}sandbox: { os: preferred }\n`);
    const accepted = await runCli(['run', 'look around', '--model', 'script:script.yaml', '--approve-all'], { cwd: root, env: NO_BWRAP });
    expect(accepted.code).toBe(0);
    expect(accepted.stderr).toContain('✓ read_file ran');
    expect(accepted.stderr).toContain(`in ${file}, set:  sandbox: { os: required, fallback: refuse_tools }`);
    expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('b\n');
  });

  it('sandbox.os: required with fail_fast refuses to start, naming the file and the lines', async () => {
    const root = project('fs:\n  zones:\n    - { name: project, root: ., mode: rw }\nsandbox: { os: required, fallback: fail_fast }\n');
    const result = await runCli(['run', 'look around', '--model', 'script:script.yaml'], { cwd: root, env: NO_BWRAP });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[SANDBOX_UNAVAILABLE]');
    expect(result.stderr).toContain(`change the sandbox line in ${path.join(root, 'toolgate.yaml')} to \`sandbox: { os: required, fallback: refuse_tools }\``);
    expect(result.stderr).toContain('`sandbox: { os: preferred }`');
    expect(existsSync(path.join(root, 'b.txt'))).toBe(false);
  });
});
