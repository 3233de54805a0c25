import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxDetection } from '../../sandbox/detect-sandbox.ts';
import type { CliIo } from '../cli-io.ts';
import { runDoctorCommand, type DoctorDependencies } from './doctor-command.ts';

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

function project(policy: string | undefined): string {
  const directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-doctor-')));
  directories.push(directory);
  mkdirSync(path.join(directory, 'ws'));
  mkdirSync(path.join(directory, 'docs'));
  if (policy !== undefined) writeFileSync(path.join(directory, 'toolgate.yaml'), policy);
  return directory;
}

async function doctor(argv: string[], options: { cwd: string; dependencies?: DoctorDependencies }): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text), isTTY: false },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    stdin: Readable.from([]) as unknown as CliIo['stdin'],
    env: process.env,
    cwd: options.cwd,
  };
  const code = await runDoctorCommand(argv, io, options.dependencies);
  return { code, stdout, stderr };
}

const ZONES = 'fs:\n  zones:\n    - { name: ws, root: ./ws, mode: rw }\n    - { name: docs, root: ./docs, mode: ro }\n';
const unavailable: DoctorDependencies = {
  detectSandbox: async (): Promise<SandboxDetection> => ({
    available: false,
    kind: 'bwrap',
    reason: 'bwrap (bubblewrap) is not installed or not on PATH: install bubblewrap: apt-get install bubblewrap',
    details: { platform: 'linux', fix: 'install bubblewrap: apt-get install bubblewrap' },
  }),
};

function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1)!;
}

describe('toolgate doctor', () => {
  it('prints its help', async () => {
    const result = await doctor(['--help'], { cwd: os.tmpdir() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: toolgate doctor [--policy FILE] [--json]');
  });

  it('rejects unknown flags (exit 2 through main)', async () => {
    await expect(doctor(['--nope'], { cwd: os.tmpdir() })).rejects.toMatchObject({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' });
  });

  it('reports the working sandbox and the profile derived from the policy, exit 0', async () => {
    const cwd = project(`${ZONES}shell:\n  network: false\n`);
    const result = await doctor(['--policy', 'toolgate.yaml'], { cwd });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Node\s+v\d+/);
    expect(result.stdout).toMatch(/bwrap\s+\/\S*bwrap, bubblewrap \d/);
    expect(result.stdout).toContain('starts (a trial command ran with /usr read-only)');
    expect(result.stdout).toContain('OS sandbox     available: bwrap');
    expect(result.stdout).toContain('sandbox.os       required (default)');
    expect(result.stdout).toContain('sandbox.fallback refuse_tools (default)');
    expect(result.stdout).toContain(`writable      ${path.join(cwd, 'ws')}  (zone ws)`);
    expect(result.stdout).toContain(`read-only     ${path.join(cwd, 'docs')}  (zone docs)`);
    expect(result.stdout).toMatch(/read-only\s+system: \/usr/);
    expect(result.stdout).toContain('network       none');
    expect(result.stdout).toContain('OK: the policy\'s sandbox requirement can be met here.');
  });

  it('uses the policy in the working directory and explains a domain list it cannot enforce', async () => {
    const cwd = project(`${ZONES}shell:\n  network: { allow_domains: [example.com] }\n`);
    const result = await doctor([], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('network       only example.com');
    expect(result.stdout).toMatch(/note\s+shell.network allows only some domains; bubblewrap cannot filter by domain/);
  });

  it('writes one JSON report with --json', async () => {
    const cwd = project(`${ZONES}sandbox: { os: required, fallback: fail_fast }\n`);
    const result = await doctor(['--json'], { cwd });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, any>;
    expect(report.ok).toBe(true);
    expect(report.sandbox).toMatchObject({ available: true, kind: 'bwrap' });
    expect(report.policy.requirement).toEqual({ os: 'required', fallback: 'fail_fast', defaulted: { os: false, fallback: false } });
    expect(report.policy.decision).toMatchObject({ mode: 'sandboxed', kind: 'bwrap' });
    expect(report.policy.profile.writable).toEqual([{ path: path.join(cwd, 'ws'), source: 'zone ws' }]);
    expect(report.policy.profile.network).toEqual({ mode: 'none' });
  });

  it('exits 1 when the tools would be refused (no sandbox, the default requirement)', async () => {
    const cwd = project(ZONES);
    const result = await doctor([], { cwd, dependencies: unavailable });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('OS sandbox     NOT available: bwrap (bubblewrap) is not installed');
    expect(result.stdout).toContain('fix          install bubblewrap: apt-get install bubblewrap');
    // The policy has an fs section and no shell section: only the file tools are named.
    expect(result.stdout).toMatch(/will\s+start, but refuse the file tools: /);
    expect(result.stdout).not.toMatch(/shell tool/);
    expect(result.stdout).toContain('NOT OK');
  });

  it('exits 1 when toolgate would refuse to start (required, fail_fast)', async () => {
    const cwd = project(`${ZONES}sandbox: { os: required }\n`);
    const result = await doctor(['--json'], { cwd, dependencies: unavailable });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as Record<string, any>;
    expect(report.ok).toBe(false);
    expect(report.policy.decision).toBeNull();
    expect(report.policy.failFast).toMatch(/refuse to start: .*apt-get install bubblewrap/);
  });

  it('exits 0 when the policy accepts running without a sandbox, and says so', async () => {
    const cwd = project(`${ZONES}sandbox: { os: preferred }\n`);
    const result = await doctor([], { cwd, dependencies: unavailable });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/will\s+run the file tools WITHOUT an OS sandbox/);
    // A check failed (no sandbox): the last line is a warning, never OK.
    expect(lastLine(result.stdout)).toMatch(/^WARNING: no OS sandbox here: the policy lets the file tools run without one/);
    expect(result.stdout).not.toMatch(/^OK/m);
    const off = await doctor(['--policy', 'toolgate.yaml'], { cwd: project(`${ZONES}sandbox: { os: 'off' }\n`) });
    expect(off.code).toBe(0);
    expect(off.stdout).toContain('sandbox.os is off');
  });

  it('without a policy, reports the built-in default policy toolgate run uses here', async () => {
    const cwd = project(undefined);
    const working = await doctor([], { cwd });
    expect(working.code).toBe(0);
    expect(working.stdout).toContain('Policy         none here: `toolgate run` uses its built-in default policy');
    expect(working.stdout).toMatch(/tools\s+the file and shell tools/);
    expect(working.stdout).toContain(`writable      ${cwd}  (zone project)`);
    expect(lastLine(working.stdout)).toBe('OK: the policy\'s sandbox requirement can be met here.');
    // Without bubblewrap the built-in policy (os: preferred) still runs its tools, unconfined: a warning, exit 0.
    const missing = await doctor([], { cwd, dependencies: unavailable });
    expect(missing.code).toBe(0);
    expect(lastLine(missing.stdout)).toMatch(/^WARNING: no OS sandbox here: the policy lets the file and shell tools run without one/);
    const json = JSON.parse((await doctor(['--json'], { cwd, dependencies: unavailable })).stdout) as Record<string, any>;
    expect(json).toMatchObject({ ok: true, status: 'warning', problems: [], policy: { file: null, builtIn: true, tools: { fs: true, shell: true } } });
  });

  it('never promises tools the policy does not declare', async () => {
    const shellOnly = project('shell:\n  default: ask\n');
    const refused = await doctor([], { cwd: shellOnly, dependencies: unavailable });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/tools\s+the shell tool \(the built-in tools it declares\)/);
    expect(refused.stdout).toMatch(/will\s+start, but refuse the shell tool: /);
    expect(refused.stdout).not.toMatch(/file tools/);

    const none = project('tools:\n  send_email: ask\n');
    const nothing = await doctor([], { cwd: none, dependencies: unavailable });
    // Nothing to confine: the missing sandbox refuses nothing, but the failed check is still not OK.
    expect(nothing.code).toBe(0);
    expect(nothing.stdout).toMatch(/tools\s+no file or shell tools/);
    expect(nothing.stdout).toMatch(/will\s+start; there is nothing for the OS sandbox to confine/);
    expect(nothing.stdout).not.toContain('refuse the');
    expect(nothing.stdout).not.toContain('Sandbox profile');
    expect(lastLine(nothing.stdout)).toMatch(/^WARNING: no OS sandbox here \(the policy declares no file or shell tools/);
  });

  it('a Node that is too old is NOT OK, whatever the sandbox', async () => {
    const cwd = project(`${ZONES}shell:\n  network: false\n`);
    const result = await doctor([], { cwd, dependencies: { nodeVersion: 'v20.11.1' } });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Node           v20.11.1 (too old: toolgate needs 22 or later)');
    expect(lastLine(result.stdout)).toMatch(/^NOT OK: Node v20\.11\.1 is too old: toolgate needs 22 or later/);
    const json = JSON.parse((await doctor(['--json'], { cwd, dependencies: { nodeVersion: 'v20.11.1' } })).stdout) as Record<string, any>;
    expect(json).toMatchObject({ ok: false, status: 'not_ok', node: { ok: false } });
  });

  it('exits 3 for an invalid or missing policy', async () => {
    const cwd = project('sandbox: { os: sometimes }\n');
    const invalid = await doctor([], { cwd });
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toContain('sandbox.os');
    const missingZone = await doctor([], { cwd: project('fs:\n  zones:\n    - { name: gone, root: ./gone, mode: rw }\n') });
    expect(missingZone.code).toBe(3);
    expect(missingZone.stderr).toContain('fs.zones[0].root');
    const absent = await doctor(['--policy', 'nope.yaml'], { cwd });
    expect(absent.code).toBe(3);
  });
});
