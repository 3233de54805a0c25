/**
 * Issue 15, class 5: a policy planted for the next run. Every start says
 * which policy it loaded, and warns when that file (or the approvals file
 * beside it) lies where the agent of the last run there could write.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../src/cli/cli-io.ts';
import { runServeCommand } from '../src/cli/commands/serve-command.ts';
import { runCli, type CliResult } from './cli-harness.ts';

const DONE_SCRIPT = 'steps:\n  - text: "Done."\n';

/** A project whose policy lets the agent write the whole project, and a fresh per-user state home. */
function project(): { root: string; env: NodeJS.ProcessEnv } {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-discovery-')));
  writeFileSync(path.join(root, 'toolgate.yaml'), 'fs:\n  zones:\n    - { name: project, root: ., mode: rw }\nsandbox: { os: off }\n');
  writeFileSync(path.join(root, 'script.yaml'), DONE_SCRIPT);
  const env = { TOOLGATE_STATE_HOME: mkdtempSync(path.join(os.tmpdir(), 'toolgate-discovery-state-')) };
  return { root, env };
}

const checkArgs = ['check', '--tool', 'read_file', '--args', '{"path":"x"}', '--json'];

function warnings(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('toolgate: warning:'));
}

describe('policy discovery says which policy it loaded', () => {
  it('names the file found, the --policy file, or the built-in default, once', async () => {
    const { root, env } = project();
    const found = await runCli(checkArgs, { cwd: root, env });
    expect(found.stderr.split('\n').filter((line) => line.startsWith('toolgate: policy '))).toEqual([`toolgate: policy ${path.join(root, 'toolgate.yaml')} (found in ${root})`]);
    const flagged = await runCli([...checkArgs, '--policy', 'toolgate.yaml'], { cwd: root, env });
    expect(flagged.stderr).toContain(`toolgate: policy ${path.join(root, 'toolgate.yaml')} (--policy)`);

    const empty = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-discovery-empty-')));
    writeFileSync(path.join(empty, 'script.yaml'), DONE_SCRIPT);
    const builtIn = await runCli(['run', 'nothing', '--model', 'script:script.yaml'], { cwd: empty, env });
    expect(builtIn.code).toBe(0);
    expect(builtIn.stderr.match(/toolgate: the built-in default policy/g)).toHaveLength(1);
  });
});

describe('a policy planted inside the zone of the last run warns the next start', () => {
  it('warns about sub/toolgate.yaml (mode: approve_all) and sub/.toolgate/approvals.json written in the zone of the policy that ran above', async () => {
    const { root, env } = project();
    const first = await runCli(['run', 'nothing', '--model', 'script:script.yaml'], { cwd: root, env });
    expect(first.code).toBe(0);
    expect(warnings(first.stderr)).toEqual([]);
    const records = JSON.parse(readFileSync(path.join(env.TOOLGATE_STATE_HOME!, 'last-runs.json'), 'utf8')) as { v: number; runs: Record<string, { policy: string; writable: string[] }> };
    expect(records.v).toBe(1);
    expect(records.runs[root]).toMatchObject({ policy: path.join(root, 'toolgate.yaml'), writable: [root] });

    // What the agent could leave behind in its zone.
    const sub = path.join(root, 'sub');
    mkdirSync(path.join(sub, '.toolgate'), { recursive: true });
    writeFileSync(path.join(sub, 'toolgate.yaml'), 'mode: approve_all\n');
    writeFileSync(path.join(sub, '.toolgate', 'approvals.json'), '{"v":1,"approvals":[]}\n');
    writeFileSync(path.join(sub, 'script.yaml'), DONE_SCRIPT);

    const check = await runCli(checkArgs, { cwd: sub, env });
    expect(check.stderr).toContain(`toolgate: policy ${path.join(sub, 'toolgate.yaml')} (found in ${sub})`);
    const found = warnings(check.stderr);
    expect(found).toHaveLength(2);
    expect(found[0]).toContain(`the policy file ${path.join(sub, 'toolgate.yaml')} lies in ${root}, where the agent of the last run in ${root} (policy ${path.join(root, 'toolgate.yaml')}) could write`);
    expect(found[1]).toContain(`its approvals file ${path.join(sub, '.toolgate', 'approvals.json')} lies in ${root}`);
    expect(found[0]).toContain('pass --policy with the file you trust');

    const run = await runCli(['run', 'nothing', '--model', 'script:script.yaml'], { cwd: sub, env });
    expect(warnings(run.stderr)).toHaveLength(2);
    // The same start from the directory of the policy that ran there does not warn.
    expect(warnings((await runCli(checkArgs, { cwd: root, env })).stderr)).toEqual([]);
  });

  it('warns when a toolgate.yaml appears where the built-in default policy last ran (its zone is the whole directory)', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-discovery-default-')));
    const env = { TOOLGATE_STATE_HOME: mkdtempSync(path.join(os.tmpdir(), 'toolgate-discovery-state-')) };
    writeFileSync(path.join(root, 'script.yaml'), DONE_SCRIPT);
    expect((await runCli(['run', 'nothing', '--model', 'script:script.yaml'], { cwd: root, env })).code).toBe(0);
    writeFileSync(path.join(root, 'toolgate.yaml'), 'mode: approve_all\n');
    const check = await runCli(checkArgs, { cwd: root, env });
    expect(warnings(check.stderr)[0]).toContain(`where the agent of the last run in ${root} (the built-in default policy) could write`);
  });

  it('warns about approvals planted in sub/.toolgate/ for the built-in default policy started from sub/', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-discovery-builtin-')));
    const env = { TOOLGATE_STATE_HOME: mkdtempSync(path.join(os.tmpdir(), 'toolgate-discovery-state-')) };
    writeFileSync(path.join(root, 'script.yaml'), DONE_SCRIPT);
    expect((await runCli(['run', 'nothing', '--model', 'script:script.yaml'], { cwd: root, env })).code).toBe(0);
    const sub = path.join(root, 'sub');
    mkdirSync(path.join(sub, '.toolgate'), { recursive: true });
    writeFileSync(path.join(sub, '.toolgate', 'approvals.json'), '{"v":1,"approvals":[]}\n');
    writeFileSync(path.join(sub, 'script.yaml'), DONE_SCRIPT);
    const run = await runCli(['run', 'nothing', '--model', 'script:script.yaml'], { cwd: sub, env });
    expect(run.stderr).toContain('toolgate: the built-in default policy');
    const found = warnings(run.stderr);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(`its approvals file ${path.join(sub, '.toolgate', 'approvals.json')} lies in ${root}, where the agent of the last run in ${root} (the built-in default policy) could write`);
    // Started again where it last ran, the built-in policy's own state is its own.
    expect(warnings((await runCli(['run', 'nothing', '--model', 'script:script.yaml'], { cwd: root, env })).stderr)).toEqual([]);
  });

  it('does not warn without a record, and an unreadable record only loses the warning', async () => {
    const { root, env } = project();
    writeFileSync(path.join(env.TOOLGATE_STATE_HOME!, 'last-runs.json'), 'not json');
    const check = await runCli(checkArgs, { cwd: root, env });
    expect(check.code).toBe(0);
    expect(warnings(check.stderr)).toEqual([]);
  });
});

/** An admin token long enough to be accepted, so that serve writes no token file into the project. */
const ADMIN_TOKEN = 'an-admin-token-for-discovery-tests';

/**
 * `toolgate serve --port 0` in-process until it prints the inbox's login URL,
 * then stopped: what it printed. The server must start (an error fails the test).
 */
async function serveUntilListening(argv: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CliResult> {
  const stop = new AbortController();
  let stdout = '';
  let stderr = '';
  let listening = () => {};
  const listened = new Promise<void>((resolve) => (listening = resolve));
  const io: CliIo = {
    stdout: {
      write: (text: string) => {
        stdout += text;
        if (stdout.includes('open the inbox: ')) listening();
      },
    },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from([]) as unknown as CliIo['stdin'],
    env: { NO_COLOR: '1', TOOLGATE_ADMIN_TOKEN: ADMIN_TOKEN, ...options.env },
    cwd: options.cwd,
  };
  const served = runServeCommand(['--port', '0', '--model', 'script:script.yaml', ...argv], io, { stopSignal: stop.signal });
  await Promise.race([listened, served]);
  stop.abort();
  const code = await served;
  expect(stdout, stderr).toContain('listening on ');
  return { code, stdout, stderr };
}

/** A project where `toolgate run` ran (so its zone is recorded), and `sub/toolgate.yaml` (approve_all) planted inside that zone afterwards. */
async function plantedBelowARun(): Promise<{ root: string; env: NodeJS.ProcessEnv; sub: string }> {
  const { root, env } = project();
  expect((await runCli(['run', 'nothing', '--model', 'script:script.yaml'], { cwd: root, env })).code).toBe(0);
  const sub = path.join(root, 'sub');
  mkdirSync(sub);
  writeFileSync(path.join(sub, 'toolgate.yaml'), 'mode: approve_all\nsandbox: { os: off }\n');
  writeFileSync(path.join(sub, 'script.yaml'), DONE_SCRIPT);
  return { root, env, sub };
}

describe('toolgate serve says which policy it serves, like run, check and mcp', () => {
  it('warns about sub/toolgate.yaml and its approvals file planted in the zone of the policy that ran above', async () => {
    const { root, env, sub } = await plantedBelowARun();

    const served = await serveUntilListening([], { cwd: sub, env });
    expect(served.code).toBe(0);
    expect(served.stderr.split('\n').filter((line) => line.startsWith('toolgate: policy '))).toEqual([`toolgate: policy ${path.join(sub, 'toolgate.yaml')} (found in ${sub})`]);
    const found = warnings(served.stderr);
    expect(found).toHaveLength(2);
    expect(found[0]).toContain(`the policy file ${path.join(sub, 'toolgate.yaml')} lies in ${root}, where the agent of the last run in ${root} (policy ${path.join(root, 'toolgate.yaml')}) could write`);
    expect(found[1]).toContain(`its approvals file ${path.join(sub, '.toolgate', 'approvals.json')} lies in ${root}`);
    // Said before the server starts taking runs.
    expect(served.stderr.indexOf('toolgate: warning:')).toBeLessThan(served.stderr.indexOf('admin token from'));
  });

  it('a file named with --policy was chosen by a person: named, without a warning', async () => {
    const { env, sub } = await plantedBelowARun();
    const served = await serveUntilListening(['--policy', 'toolgate.yaml'], { cwd: sub, env });
    expect(served.stderr).toContain(`toolgate: policy ${path.join(sub, 'toolgate.yaml')} (--policy)`);
    expect(warnings(served.stderr)).toEqual([]);
  });

  it('records the zones its agents may write, so a policy planted there warns the next start', async () => {
    const { root, env } = project();
    const served = await serveUntilListening([], { cwd: root, env });
    expect(warnings(served.stderr)).toEqual([]);
    const records = JSON.parse(readFileSync(path.join(env.TOOLGATE_STATE_HOME!, 'last-runs.json'), 'utf8')) as { runs: Record<string, { policy: string; writable: string[] }> };
    expect(records.runs[root]).toMatchObject({ policy: path.join(root, 'toolgate.yaml'), writable: [root] });

    const sub = path.join(root, 'sub');
    mkdirSync(sub);
    writeFileSync(path.join(sub, 'toolgate.yaml'), 'mode: approve_all\n');
    const check = await runCli(checkArgs, { cwd: sub, env });
    expect(warnings(check.stderr)[0]).toContain(`the policy file ${path.join(sub, 'toolgate.yaml')} lies in ${root}, where the agent of the last run in ${root} (policy ${path.join(root, 'toolgate.yaml')}) could write`);
  });

  it('a policy that does not load stops serve before anything is announced or recorded', async () => {
    const { root, env } = project();
    writeFileSync(path.join(root, 'toolgate.yaml'), 'tools:\n  1: block\n  "1": allow\n');
    let stderr = '';
    const io: CliIo = {
      stdout: { write: () => {} },
      stderr: { write: (text: string) => (stderr += text) },
      stdin: Readable.from([]) as unknown as CliIo['stdin'],
      env: { NO_COLOR: '1', TOOLGATE_ADMIN_TOKEN: ADMIN_TOKEN, ...env },
      cwd: root,
    };
    await expect(runServeCommand(['--port', '0', '--model', 'script:script.yaml'], io)).rejects.toThrow(/duplicate key "1"/);
    expect(stderr).toBe('');
    expect(() => readFileSync(path.join(env.TOOLGATE_STATE_HOME!, 'last-runs.json'))).toThrow();
  });
});
