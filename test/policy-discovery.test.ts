/**
 * Issue 15, class 5: a policy planted for the next run. Every start says
 * which policy it loaded, and warns when that file (or the approvals file
 * beside it) lies where the agent of the last run there could write.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';

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
