/**
 * Issue 13, items 4, 5 and 7, walked through the CLI as a person meets them:
 * the same mode flags in run, check and mcp; unknown flags answered with the
 * nearest one; state commands that find the state of the last run in this
 * directory; a task read from a pipe, and asks denied with the how-to line.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApprovalsFile } from '../src/approvals/approvals-file.ts';
import { runCli } from './cli-harness.ts';

const WRITE_SCRIPT = [
  'steps:',
  '  - text: "Writing."',
  '    tool_calls: [{ tool: write_file, args: { path: notes.txt, content: "new\\n" } }]',
  '  - text: "Done."',
].join('\n');

/** A project folder with the scripted model; `policy` is written as toolgate.yaml when given. */
function project(policy?: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-flags-'));
  writeFileSync(path.join(root, 'notes.txt'), 'old\n');
  writeFileSync(path.join(root, 'script.yaml'), WRITE_SCRIPT);
  if (policy !== undefined) writeFileSync(path.join(root, 'toolgate.yaml'), policy);
  return root;
}

const ZONE_POLICY = 'fs:\n  zones:\n    - { name: project, root: ., mode: rw, approval: { read: allow, write: ask, delete: ask } }\nsandbox: { os: preferred }\n';

function auditOf(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the same mode flags in run, check and mcp (item 5)', () => {
  it('run --mode strict runs in strict mode, like --strict (no parser message)', async () => {
    for (const flags of [['--mode', 'strict'], ['--strict'], ['--mode=strict']]) {
      const root = project(ZONE_POLICY);
      const result = await runCli(['run', 'write it', '--model', 'script:script.yaml', ...flags], { cwd: root });
      expect(result.stderr).not.toMatch(/Unknown option|ERR_PARSE_ARGS/);
      expect(result.code).toBe(0);
      const decided = auditOf(path.join(root, '.toolgate', 'audit.jsonl')).find((entry) => entry.decision === 'denied');
      expect(decided).toMatchObject({ tool: 'write_file', source: 'mode' });
      expect(readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('old\n');
    }
  });

  it('run --mode approve_all and --approve-all both approve the write', async () => {
    for (const flags of [['--mode', 'approve_all'], ['--approve-all'], ['--mode', 'approve-all']]) {
      const root = project(ZONE_POLICY);
      const result = await runCli(['run', 'write it', '--model', 'script:script.yaml', ...flags], { cwd: root });
      expect(result.code).toBe(0);
      expect(readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('new\n');
    }
  });

  it('check takes --strict, --approve-all and --auto-deny as well as --mode', async () => {
    const root = project(ZONE_POLICY);
    const call = ['check', '--tool', 'write_file', '--args', '{"path":"notes.txt","content":"x"}', '--json'];
    const asks = await runCli(call, { cwd: root });
    expect(asks.code).toBe(5);
    for (const [flags, decision] of [[['--approve-all'], 'approved'], [['--mode', 'approve_all'], 'approved'], [['--auto-deny'], 'denied'], [['--mode', 'auto_deny'], 'denied']] as const) {
      const result = await runCli([...call, ...flags], { cwd: root });
      expect(JSON.parse(result.stdout).decision, flags.join(' ')).toBe(decision);
    }
  });

  it('two different modes are refused in every command, before anything starts', async () => {
    const root = project(ZONE_POLICY);
    for (const command of [['run', 'x'], ['check', '--tool', 'read_file'], ['mcp']]) {
      const result = await runCli([...command, '--mode', 'strict', '--approve-all'], { cwd: root });
      expect(result.code, command[0]).toBe(2);
      expect(result.stderr).toContain('not --mode strict and --approve-all');
    }
    // The same mode twice is one choice.
    const same = await runCli(['check', '--tool', 'read_file', '--args', '{"path":"notes.txt"}', '--mode', 'strict', '--strict'], { cwd: root });
    expect(same.code).toBe(0);
  });

  it('an unknown mode names the modes', async () => {
    const root = project(ZONE_POLICY);
    for (const command of [['run', 'x'], ['check', '--tool', 'read_file'], ['mcp']]) {
      const result = await runCli([...command, '--mode', 'yolo'], { cwd: root });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--mode must be one of interactive, approve_all, strict, auto_deny, not "yolo"');
    }
  });

  it("each command's --help lists the flags it accepts", async () => {
    const flags: Record<string, string[]> = {
      run: ['--policy', '--model', '--base-url', '--mode', '--approve-all', '--strict', '--auto-deny', '--session', '--max-steps', '--demo', '--help'],
      check: ['--policy', '--tool', '--args', '--session', '--chat', '--mode', '--approve-all', '--strict', '--auto-deny', '--answer', '--batch', '--explain', '--show', '--json', '--help'],
      mcp: ['--policy', '--http', '--token', '--namespace', '--call-timeout', '--mode', '--approve-all', '--strict', '--auto-deny', '--no-terminal', '--stats-file', '--help'],
      approvals: ['--policy', '--json', '--all', '--help'],
      audit: ['--log', '--policy', '--session', '--chat', '--run', '--approver', '--tool', '--since', '--limit', '--json', '--help'],
      init: ['--policy', '--force', '--gitignore', '--no-gitignore', '--help'],
      doctor: ['--policy', '--json', '--help'],
    };
    for (const [command, expected] of Object.entries(flags)) {
      const help = await runCli([command, '--help']);
      expect(help.code, command).toBe(0);
      for (const flag of expected) expect(help.stdout, `${command} ${flag}`).toMatch(new RegExp(`(^|\\s)${flag}\\b`, 'm'));
    }
  });
});

describe('unknown flags are answered with "did you mean" (item 5)', () => {
  it('suggests the nearest flag of that command, in every command', async () => {
    const cases: [string[], string][] = [
      [['run', 'x', '--mdoe', 'strict'], '--mode'],
      [['run', 'x', '--approve'], '--approve-all'],
      [['run', 'x', '--modle', 'openai:gpt-4o'], '--model'],
      [['check', '--tol', 'read_file'], '--tool'],
      [['check', '--tool', 'x', '--aprove-all'], '--approve-all'],
      [['mcp', '--polcy', 'p.yaml'], '--policy'],
      [['audit', '--sesion', 's'], '--session'],
      [['approvals', 'list', '--jsn'], '--json'],
      [['doctor', '--jsno'], '--json'],
      [['init', '--forse'], '--force'],
    ];
    for (const [argv, suggestion] of cases) {
      const result = await runCli(argv, { cwd: os.tmpdir() });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toContain(`did you mean ${suggestion}?`);
      expect(result.stderr).not.toMatch(/Unknown option '|ERR_PARSE_ARGS|at parseArgs/);
    }
  });

  it('does not guess when nothing is near, and never suggests a flag of another command', async () => {
    const far = await runCli(['run', 'x', '--zzzzzzzz'], { cwd: os.tmpdir() });
    expect(far.code).toBe(2);
    expect(far.stderr).toContain('unknown option --zzzzzzzz');
    expect(far.stderr).not.toContain('did you mean');
    // --tool is check's, not run's.
    const other = await runCli(['doctor', '--tool', 'x'], { cwd: os.tmpdir() });
    expect(other.stderr).not.toContain('--tool?');
  });

  it('a flag without its value, a stray argument and an unknown command say so plainly', async () => {
    const missing = await runCli(['run', 'x', '--model'], { cwd: os.tmpdir() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--model needs a value: --model VALUE');
    const stray = await runCli(['check', 'read_file'], { cwd: os.tmpdir() });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('unexpected argument "read_file"');
    const command = await runCli(['chekc']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "chekc": did you mean check?');
  });

  it('a hostile flag name is shown escaped, not obeyed', async () => {
    const result = await runCli(['run', 'x', '--mod\u001b[2Je'], { cwd: os.tmpdir() });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('\u001b');
  });
});

describe('state commands find the state the last run here used (item 4)', () => {
  it('approvals made under the built-in policy are listed and revoked in the same directory', async () => {
    const root = project();
    const run = await runCli(['run', 'write it', '--model', 'script:script.yaml'], { cwd: root });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('the built-in default policy');
    // An "approve always" as [a] at the prompt records it, beside the built-in policy's audit log.
    const approvals = openApprovalsFile({ path: path.join(root, '.toolgate', 'approvals.json'), redactKeys: new Set() });
    await approvals.add({ tool: 'write_file', payload: { path: 'notes.txt' }, description: 'Write notes.txt' });
    const list = await runCli(['approvals', 'list'], { cwd: root });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('Write notes.txt');
    const audit = await runCli(['audit', '--json'], { cwd: root });
    expect(audit.code).toBe(0);
    expect(audit.stdout).toContain('"tool":"write_file"');
    const revoke = await runCli(['approvals', 'revoke', '--all'], { cwd: root });
    expect(revoke.code).toBe(0);
    expect(revoke.stdout).toContain('revoked');
    expect((await runCli(['approvals', 'list', '--json'], { cwd: root })).stdout).toBe('');
  });

  it('after `run --policy elsewhere`, approvals and audit here read that policy\'s state, and say so', async () => {
    const root = project(ZONE_POLICY);
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'toolgate-flags-elsewhere-'));
    mkdirSync(path.join(elsewhere, 'state'));
    writeFileSync(
      path.join(elsewhere, 'p.yaml'),
      `fs:\n  zones:\n    - { name: project, root: ${root}, mode: rw, approval: { read: allow, write: ask, delete: ask } }\nsandbox: { os: preferred }\naudit: { path: state/log.jsonl }\napprovals: { path: state/approvals.json }\n`,
    );
    const run = await runCli(['run', 'write it', '--model', 'script:script.yaml', '--policy', path.join(elsewhere, 'p.yaml')], { cwd: root });
    expect(run.code).toBe(0);
    expect(existsSync(path.join(elsewhere, 'state', 'log.jsonl'))).toBe(true);
    await openApprovalsFile({ path: path.join(elsewhere, 'state', 'approvals.json'), redactKeys: new Set() }).add({ tool: 'write_file', payload: {}, description: 'ELSEWHERE approval' });
    await openApprovalsFile({ path: path.join(root, '.toolgate', 'approvals.json'), redactKeys: new Set() }).add({ tool: 'write_file', payload: {}, description: 'LOCAL approval' });

    const list = await runCli(['approvals', 'list'], { cwd: root });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('ELSEWHERE approval');
    expect(list.stdout).not.toContain('LOCAL approval');
    expect(list.stderr).toContain(`policy ${path.join(elsewhere, 'p.yaml')} (the last run here`);
    const audit = await runCli(['audit', '--json'], { cwd: root });
    expect(audit.stdout).toContain('"tool":"write_file"');
    expect(audit.stderr).toContain(path.join(elsewhere, 'p.yaml'));
    // --policy still chooses.
    const local = await runCli(['approvals', 'list', '--policy', 'toolgate.yaml'], { cwd: root });
    expect(local.stdout).toContain('LOCAL approval');
    // A subfolder is another directory: its own lookup, not the parent's run.
    mkdirSync(path.join(root, 'sub'));
    const sub = await runCli(['approvals', 'list'], { cwd: path.join(root, 'sub') });
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain(path.join(root, 'sub', '.toolgate', 'approvals.json'));
  });

  it('a recorded policy file that is gone falls back to the policy here', async () => {
    const root = project(ZONE_POLICY);
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'toolgate-flags-gone-'));
    writeFileSync(path.join(elsewhere, 'p.yaml'), ZONE_POLICY.replace('root: .', `root: ${root}`));
    expect((await runCli(['run', 'write it', '--model', 'script:script.yaml', '--policy', path.join(elsewhere, 'p.yaml')], { cwd: root })).code).toBe(0);
    rmSync(path.join(elsewhere, 'p.yaml'));
    const list = await runCli(['approvals', 'list'], { cwd: root });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(path.join(root, '.toolgate', 'approvals.json'));
  });
});

describe('a task from a pipe (item 7)', () => {
  it('echo "task" | toolgate run takes the task from stdin and, with no terminal, denies every ask with the how-to line', async () => {
    const root = project(ZONE_POLICY);
    const result = await runCli(['run', '--model', 'script:script.yaml'], { cwd: root, stdin: 'write the notes\n' });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('→ write_file');
    // The rule that asked and who could approve; never a broader mode or a rule that lets the write through.
    expect(result.stderr).toContain('write_file needs approval (asked by fs.zones[0].approval.write');
    expect(result.stderr).toContain('nobody who can approve it is reachable here: toolgate run has no terminal to ask on');
    expect(result.stderr).toContain('start toolgate run from a terminal, or start the task as a run on toolgate serve');
    expect(result.stderr).not.toMatch(/approve_all|--approve-all|auto_deny|mode:/);
    expect(readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('old\n');
    const denied = auditOf(path.join(root, '.toolgate', 'audit.jsonl')).filter((entry) => entry.decision === 'denied');
    expect(denied).toHaveLength(1);
  });

  it('`-` reads the task from stdin too; an empty pipe is a usage error that shows both ways', async () => {
    const root = project(ZONE_POLICY);
    expect((await runCli(['run', '-', '--model', 'script:script.yaml'], { cwd: root, stdin: 'go' })).code).toBe(0);
    const empty = await runCli(['run', '--model', 'script:script.yaml'], { cwd: root, stdin: '  \n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('echo "what the agent should do" | toolgate run');
  });

  it('under the built-in policy the denial says who could approve, and never advises a mode', async () => {
    const root = project();
    const result = await runCli(['run', '--model', 'script:script.yaml'], { cwd: root, stdin: 'write' });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('needs approval (asked by ');
    expect(result.stderr).toContain('To be asked, start toolgate run from a terminal');
    expect(result.stderr).not.toMatch(/approve_all|--approve-all|auto_deny|mode:/);
    expect(existsSync(path.join(root, 'toolgate.yaml'))).toBe(false);
  });
});
