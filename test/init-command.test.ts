/**
 * `toolgate init` (issue 13, item 3) as a person uses it: a commented
 * starter policy that loads, never written over an existing one or through
 * a symlink, and chosen for this machine's sandbox.
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../src/core/policy/parse-policy.ts';
import { runCli } from './cli-harness.ts';
import { pathWithoutBwrap } from './path-without-bwrap.ts';

function folder(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'toolgate-init-'));
}

describe('toolgate init', () => {
  it('writes a commented toolgate.yaml that loads and that check then finds', async () => {
    const root = folder();
    const result = await runCli(['init'], { cwd: root });
    expect(result.code).toBe(0);
    const file = path.join(root, 'toolgate.yaml');
    expect(result.stdout).toContain(`wrote ${file}`);
    const text = readFileSync(file, 'utf8');
    // Commented: each part a person changes next says what it does.
    for (const part of ['# The file tools', '# The shell tool', '# Shell commands run inside an OS sandbox', '# How asks are answered', '.gitignore']) expect(text).toContain(part);
    for (const key of [/^mode: interactive$/m, /^fs:$/m, /^shell:$/m, /^sandbox: /m]) expect(text).toMatch(key);
    expect(() => parsePolicy({ text, source: file })).not.toThrow();
    // The starter is the built-in policy spelled out: reads allowed, writes ask, rm blocked.
    const read = await runCli(['check', '--tool', 'read_file', '--args', '{"path":"toolgate.yaml"}'], { cwd: root });
    expect(read.stderr).toContain(`policy ${file} (found in ${root})`);
    writeFileSync(path.join(root, 'a.txt'), 'a\n');
    expect((await runCli(['check', '--tool', 'read_file', '--args', '{"path":"a.txt"}'], { cwd: root })).code).toBe(0);
    expect((await runCli(['check', '--tool', 'write_file', '--args', '{"path":"a.txt","content":"b"}'], { cwd: root })).code).toBe(5);
    expect((await runCli(['check', '--tool', 'shell', '--args', '{"command":"rm -rf ."}'], { cwd: root })).code).toBe(1);
    // The agent can never write the policy it runs under.
    const own = await runCli(['check', '--tool', 'write_file', '--args', '{"path":"toolgate.yaml","content":"mode: approve_all"}'], { cwd: root });
    expect(own.code).toBe(1);
  });

  it('chooses the sandbox line for this machine: required where bubblewrap works, preferred where it does not', async () => {
    const withSandbox = folder();
    const here = await runCli(['init'], { cwd: withSandbox });
    expect(readFileSync(path.join(withSandbox, 'toolgate.yaml'), 'utf8')).toMatch(/^sandbox: \{ os: required, fallback: refuse_tools \}$/m);
    expect(here.stdout).toContain('an OS sandbox (bwrap) works here');
    const without = folder();
    const there = await runCli(['init'], { cwd: without, env: { PATH: pathWithoutBwrap() } });
    expect(readFileSync(path.join(without, 'toolgate.yaml'), 'utf8')).toMatch(/^sandbox: \{ os: preferred \}$/m);
    expect(there.stdout).toContain('no OS sandbox here (bwrap (bubblewrap) is not installed');
  });

  it('never writes over a policy that is there, nor beside one that would be found first', async () => {
    const root = folder();
    writeFileSync(path.join(root, 'toolgate.yaml'), 'mode: strict\n');
    const again = await runCli(['init'], { cwd: root });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('is already there: nothing written (--force replaces it;');
    expect(readFileSync(path.join(root, 'toolgate.yaml'), 'utf8')).toBe('mode: strict\n');
    const json = folder();
    writeFileSync(path.join(json, 'toolgate.json'), '{"mode":"strict"}');
    expect((await runCli(['init'], { cwd: json })).code).toBe(1);
    const forced = await runCli(['init', '--force'], { cwd: root });
    expect(forced.code).toBe(0);
    expect(readFileSync(path.join(root, 'toolgate.yaml'), 'utf8')).toContain('# toolgate policy');
  });

  it('never writes through a symlink: without --force it refuses, with --force it replaces the link itself', async () => {
    const root = folder();
    const outside = path.join(folder(), 'victim.yaml');
    writeFileSync(outside, 'precious\n');
    symlinkSync(outside, path.join(root, 'toolgate.yaml'));
    expect((await runCli(['init'], { cwd: root })).code).toBe(1);
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    // A dangling link is no better: wx refuses to follow it.
    const dangling = folder();
    const target = path.join(folder(), 'not-yet.yaml');
    symlinkSync(target, path.join(dangling, 'toolgate.yaml'));
    const result = await runCli(['init'], { cwd: dangling });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is already there');
    expect(() => lstatSync(target)).toThrow();
    expect((await runCli(['init', '--force'], { cwd: root })).code).toBe(0);
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    expect(lstatSync(path.join(root, 'toolgate.yaml')).isSymbolicLink()).toBe(false);
  });

  it('--policy writes elsewhere; only a YAML name is accepted', async () => {
    const root = folder();
    mkdirSync(path.join(root, 'config'));
    expect((await runCli(['init', '--policy', 'config/agent.yml'], { cwd: root })).code).toBe(0);
    expect(readFileSync(path.join(root, 'config', 'agent.yml'), 'utf8')).toContain('# toolgate policy');
    const bad = await runCli(['init', '--policy', 'notes.txt'], { cwd: root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--policy must name a .yaml or .yml file');
  });

  it('the message for a command without a policy points to toolgate init', async () => {
    const root = folder();
    const result = await runCli(['check', '--tool', 'read_file'], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`run \`toolgate init\` to write a starter toolgate.yaml in ${root}`);
  });
});
