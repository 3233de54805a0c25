/**
 * Issue 15, classes 3 and 5: an agent working in a zone that holds
 * toolgate's state (approvals file, audit log) tries to swap that state for
 * a forgery by changing the folders above it, or to plant a looser policy or
 * approvals for the next run. The policy layer alone (sandbox off) must stop
 * every attempt; afterwards no forged approval is trusted and the audit log
 * is intact.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApprovalsFile } from '../src/approvals/approvals-file.ts';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import type { RunMode } from '../src/core/types.ts';
import { createBuiltinTools } from '../src/runtime/create-builtin-tools.ts';
import { createRuntimeGate } from '../src/runtime/create-runtime-gate.ts';
import { defaultPolicyText } from '../src/runtime/demo-workspace.ts';
import { parsePolicy } from '../src/core/policy/parse-policy.ts';
import type { BuiltinTool } from '../src/tools/builtin-tool.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';

interface Project {
  root: string;
  ws: string;
  approvals: string;
  audit: string;
  /** A forged approvals file, prepared elsewhere in the zone, approving `touch pwned`. */
  fake: string;
}

const FORGED_COMMAND = 'touch pwned';

/**
 * A project whose approvals file and audit log were moved into the rw zone
 * `ws` (allowed explicitly), where writes and deletes need no person, and
 * the shell allows what its rules do not cover — so only the own-state
 * guard stands between the agent and its forgery.
 */
function createProject(options: { approvals?: string; sandbox?: string } = {}): Project {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-own-attack-')));
  const ws = path.join(root, 'ws');
  mkdirSync(path.join(ws, 'sub'), { recursive: true });
  const approvalsPath = options.approvals ?? 'ws/state/approvals.json';
  writeFileSync(
    path.join(root, 'toolgate.yaml'),
    [
      'fs:',
      '  zones:',
      '    - { name: ws, root: ws, mode: rw, approval: { read: allow, write: allow, delete: allow } }',
      'shell:',
      '  default: allow',
      '  rules:',
      '    - { match: touch, decision: ask }',
      `approvals: { path: ${approvalsPath}, allow_in_writable_zone: true }`,
      'audit: { path: ws/logs/audit.jsonl, allow_in_writable_zone: true }',
      `sandbox: { os: ${options.sandbox ?? 'off'} }`,
      '',
    ].join('\n'),
  );
  const fake = path.join(ws, 'fake');
  mkdirSync(fake);
  const forged = openApprovalsFile({ path: path.join(fake, 'approvals.json') });
  void forged.add({ tool: 'shell', payload: { command: FORGED_COMMAND, cwd: ws }, description: 'forged' });
  return { root, ws, approvals: path.join(root, approvalsPath), audit: path.join(ws, 'logs', 'audit.jsonl'), fake };
}

async function gateFor(project: Project, mode: RunMode) {
  const loaded = await loadPolicyFile(path.join(project.root, 'toolgate.yaml'));
  const { tools } = await createBuiltinTools({ loaded, cwd: project.root });
  const gate = createRuntimeGate({ loaded, tools, mode });
  const byName = new Map((tools as BuiltinTool[]).map((tool) => [tool.name, tool]));
  let calls = 0;
  /** The whole path a model's call takes: the gate, then the tool when the gate lets it run. */
  const attempt = async (tool: string, args: unknown) => {
    const authorization = await gate.authorize({ tool, args, callId: `c${++calls}` }, { sessionId: 'attack' });
    if (authorization.decision === 'allow' || authorization.decision === 'approved') {
      const authorizationOption = authorization.decision === 'approved' ? { decision: 'approved' as const, payload: authorization.request?.payload } : { decision: 'allow' as const };
      await byName
        .get(tool)!
        .execute(authorization.args as never, { authorization: authorizationOption })
        .catch(() => undefined);
    }
    return authorization;
  };
  return { gate, attempt };
}

/** Whether a gate started now trusts the forged approval without asking anyone. */
async function forgeryTrusted(project: Project): Promise<boolean> {
  const { gate } = await gateFor(project, 'auto_deny');
  const authorization = await gate.authorize({ tool: 'shell', args: { command: FORGED_COMMAND }, callId: 'check' }, { sessionId: 'later' });
  await gate.close();
  return authorization.decision === 'approved';
}

describe("toolgate's own state cannot be swapped through the folders above it (sandbox off)", () => {
  it('the forgery would be trusted if it landed (control)', async () => {
    const project = createProject();
    expect(await forgeryTrusted(project)).toBe(false);
    mkdirSync(path.dirname(project.approvals), { recursive: true });
    cpSync(path.join(project.fake, 'approvals.json'), project.approvals);
    expect(await forgeryTrusted(project)).toBe(true);
  });

  it('blocks renames, deletes, replacements and would-be folders through the shell, even in approve_all', async () => {
    const project = createProject();
    const { gate, attempt } = await gateFor(project, 'approve_all');
    // A first call writes the audit log and (through an approve-always) nothing else.
    expect((await attempt('shell', { command: 'ls' })).decision).toBe('allow');
    const auditBefore = readFileSync(project.audit, 'utf8');
    const approvalsBefore = existsSync(project.approvals) ? readFileSync(project.approvals, 'utf8') : undefined;
    const attacks = [
      'mv state state.old && mv fake state',
      'mv -T fake state',
      'mv fake/approvals.json state/approvals.json',
      'rm -r state',
      'rm -rf state && mv fake state',
      'rm -r logs',
      'mv logs elsewhere',
      'ln -sfn fake state',
      'ln -s fake/approvals.json state/approvals.json',
      'cp -r fake/. state',
      'cp fake/approvals.json state/approvals.json',
      'echo "{}" > state/approvals.json',
      'echo forged > logs/audit.jsonl',
      'rmdir state',
      'rm -r *',
    ];
    for (const command of attacks) {
      const authorization = await attempt('shell', { command });
      expect(authorization.decision, command).toBe('block');
    }
    await gate.close();
    expect(readFileSync(project.audit, 'utf8').startsWith(auditBefore)).toBe(true);
    expect(existsSync(project.approvals) ? readFileSync(project.approvals, 'utf8') : undefined).toBe(approvalsBefore);
    expect(await forgeryTrusted(project)).toBe(false);
  });

  it("still knows the state's folders when the operator's sandbox.profile hides the state too", async () => {
    const project = createProject({ sandbox: 'off, profile: { read_write: [ws], hidden: [ws/state/approvals.json] }' });
    const { gate } = await gateFor(project, 'approve_all');
    for (const command of ['rm -r state', 'mv state state.old', 'ln -sfn fake state']) {
      expect((await gate.evaluate({ tool: 'shell', args: { command }, callId: 'c' }, { sessionId: 's' })).kind, command).toBe('block');
    }
    await gate.close();
  });

  it('blocks creating a folder that would hold the approvals file before toolgate first creates it', async () => {
    const project = createProject({ approvals: 'ws/later/approvals.json' });
    const { gate, attempt } = await gateFor(project, 'approve_all');
    for (const command of ['mkdir later', 'mkdir -p later', 'mv fake later', 'cp -r fake later', 'ln -s fake later', 'echo x > later', 'touch later']) {
      expect((await attempt('shell', { command })).decision, command).toBe('block');
    }
    for (const [tool, args] of [
      ['write_file', { path: 'ws/later', content: 'x' }],
      ['write_file', { path: 'ws/later/approvals.json', content: '{}' }],
      ['move_file', { source: 'ws/fake/approvals.json', destination: 'ws/later/approvals.json' }],
      ['move_file', { source: 'ws/fake/approvals.json', destination: 'ws/later' }],
    ] as const) {
      expect((await attempt(tool, args)).decision, `${tool} ${JSON.stringify(args)}`).toBe('block');
    }
    await gate.close();
    expect(existsSync(path.join(project.ws, 'later'))).toBe(false);
    expect(await forgeryTrusted(project)).toBe(false);
  });

  it('blocks the file tools on every folder above the state', async () => {
    const project = createProject();
    const { gate, attempt } = await gateFor(project, 'approve_all');
    await attempt('shell', { command: 'ls' });
    const auditBefore = readFileSync(project.audit, 'utf8');
    for (const [tool, args] of [
      ['write_file', { path: 'ws/state', content: 'x' }],
      ['write_file', { path: 'ws/logs', content: 'x' }],
      ['delete_file', { path: 'ws/state' }],
      ['delete_file', { path: 'ws/logs' }],
      ['move_file', { source: 'ws/fake/approvals.json', destination: 'ws/state/approvals.json' }],
      ['move_file', { source: 'ws/logs/audit.jsonl', destination: 'ws/audit.jsonl' }],
      ['edit_file', { path: 'ws/logs/audit.jsonl', old_string: '{', new_string: '[' }],
    ] as const) {
      expect((await attempt(tool, args)).decision, `${tool} ${JSON.stringify(args)}`).toBe('block');
    }
    await gate.close();
    expect(readFileSync(project.audit, 'utf8').startsWith(auditBefore)).toBe(true);
    expect(await forgeryTrusted(project)).toBe(false);
  });
});

describe('a looser policy or forged state for the next run asks, in every zone (sandbox off)', () => {
  it('asks before writing a file named like a policy, or anything in a .toolgate/ folder, even where the zone allows writes', async () => {
    const project = createProject();
    const { gate } = await gateFor(project, 'interactive');
    writeFileSync(path.join(project.ws, 'sub', 'toolgate.yml'), 'mode: interactive\n');
    const cases: [string, unknown][] = [
      ['edit_file', { path: 'ws/sub/toolgate.yml', old_string: 'interactive', new_string: 'approve_all' }],
      ['delete_file', { path: 'ws/sub/toolgate.yml' }],
      ['write_file', { path: 'ws/sub/toolgate.yaml', content: 'mode: approve_all\n' }],
      ['write_file', { path: 'ws/sub/toolgate.json', content: '{"mode":"approve_all"}' }],
      ['write_file', { path: 'ws/sub/.toolgate/approvals.json', content: '{}' }],
      ['move_file', { source: 'ws/fake/approvals.json', destination: 'ws/sub/.toolgate/approvals.json' }],
      ['shell', { command: 'echo "mode: approve_all" > sub/toolgate.yaml' }],
      ['shell', { command: 'cp fake/approvals.json sub/.toolgate/approvals.json' }],
      ['shell', { command: 'mkdir sub/.toolgate' }],
      ['shell', { command: 'mv fake sub/.toolgate' }],
      ['shell', { command: 'tee sub/toolgate.yml' }],
    ];
    for (const [tool, args] of cases) {
      const verdict = await gate.evaluate({ tool, args, callId: 'c' }, { sessionId: 's' });
      expect(verdict.kind, `${tool} ${JSON.stringify(args)}`).toBe('ask');
      const text = verdict.kind === 'ask' ? verdict.request.description : '';
      expect(text, `${tool} ${JSON.stringify(args)}`).toMatch(/toolgate loads as the (policy|approvals)/);
    }
    // Files of names not known before they run, in a folder that holds the state: a person decides.
    for (const command of ['find . -name state -exec rm -r {} +', 'find . -delete', 'tar -xf fake.tar']) {
      const verdict = await gate.evaluate({ tool: 'shell', args: { command }, callId: 'c' }, { sessionId: 's' });
      expect(verdict.kind, command).toBe('ask');
      expect(verdict.kind === 'ask' ? verdict.request.description : '').toContain("a folder above toolgate's own file");
    }
    // An ordinary write in the same zone still needs nobody.
    expect((await gate.evaluate({ tool: 'write_file', args: { path: 'ws/sub/notes.yaml', content: 'x' }, callId: 'c' }, { sessionId: 's' })).kind).toBe('allow');
    await gate.close();
  });

  it('with nobody to ask, the planted policy and approvals are never written', async () => {
    const project = createProject();
    const { gate, attempt } = await gateFor(project, 'auto_deny');
    expect((await attempt('write_file', { path: 'ws/sub/toolgate.yaml', content: 'mode: approve_all\n' })).decision).toBe('denied');
    expect((await attempt('shell', { command: 'mkdir -p sub/.toolgate && cp fake/approvals.json sub/.toolgate/' })).decision).toBe('denied');
    await gate.close();
    expect(existsSync(path.join(project.ws, 'sub', 'toolgate.yaml'))).toBe(false);
    expect(existsSync(path.join(project.ws, 'sub', '.toolgate'))).toBe(false);
  });
});

describe('the built-in default policy (zone: the whole directory, state in .toolgate/ there)', () => {
  it("keeps the shell off its own state, and its folders, like a policy file's", async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-own-builtin-')));
    // As `toolgate run` builds it when there is no policy file.
    const loaded = { policy: parsePolicy({ text: defaultPolicyText(), source: '<built-in default policy>' }), path: path.join(root, 'toolgate.yaml'), directory: root };
    await requireWorkingBwrap();
    const { tools, sandbox } = await createBuiltinTools({ loaded, cwd: root });
    // The policy layer is what is judged here: the shell runs, it is not refused.
    expect(sandbox.mode).toBe('sandboxed');
    const gate = createRuntimeGate({ loaded, tools, mode: 'approve_all', audit: { record: async () => undefined } });
    for (const command of ['echo "{}" > .toolgate/approvals.json', 'mv fake .toolgate', 'ln -s fake .toolgate', 'mkdir .toolgate', 'rm -r .toolgate']) {
      const verdict = await gate.evaluate({ tool: 'shell', args: { command }, callId: 'c' }, { sessionId: 's' });
      expect(verdict.kind, command).toBe('block');
    }
    expect(existsSync(path.join(root, '.toolgate'))).toBe(false);
  });
});

describe('a policy whose state lies inside a writable zone', () => {
  it('is refused unless it says so, naming the file, the key and what to do', async () => {
    const project = createProject();
    const file = path.join(project.root, 'toolgate.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('approvals: { path: ws/state/approvals.json, allow_in_writable_zone: true }', 'approvals: { path: ws/state/approvals.json }'));
    const loaded = await loadPolicyFile(file);
    const error = await createBuiltinTools({ loaded, cwd: project.root }).then(
      () => undefined,
      (thrown: Error) => thrown,
    );
    expect(error?.message).toContain(file);
    expect(error?.message).toContain('approvals.path');
    expect(error?.message).toContain('approvals.allow_in_writable_zone: true');
    expect(error?.message).not.toContain('audit.path');
  });

  it('is refused when a folder above its state is a symlink inside a writable zone (a link cannot be pinned)', async () => {
    const project = createProject({ approvals: 'ws/link/approvals.json' });
    mkdirSync(path.join(project.ws, 'real'));
    symlinkSync('real', path.join(project.ws, 'link'));
    const loaded = await loadPolicyFile(path.join(project.root, 'toolgate.yaml'));
    await expect(createBuiltinTools({ loaded, cwd: project.root })).rejects.toThrow(`${path.join(project.ws, 'link')}, a folder above ${project.approvals}, is a symlink inside the writable zone ws`);
  });

  it('accepts the default .toolgate/ beside a policy whose zone holds it, and state outside every zone', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-own-default-')));
    writeFileSync(path.join(root, 'toolgate.yaml'), 'fs:\n  zones:\n    - { name: project, root: ., mode: rw }\napprovals: { path: ../approvals-elsewhere.json }\nsandbox: { os: off }\n');
    const { tools } = await createBuiltinTools({ loaded: await loadPolicyFile(path.join(root, 'toolgate.yaml')), cwd: root });
    expect(tools.length).toBeGreaterThan(0);
  });
});

describe('with bubblewrap on, the sandbox alone stops the same swaps', () => {
  it('refuses renames, deletes and replacements of the folders above the state in commands the policy layer cannot see through', async () => {
    await requireWorkingBwrap();
    const project = createProject({ sandbox: 'required' });
    const { gate, attempt } = await gateFor(project, 'approve_all');
    // Creates the state before the first sandboxed command, so the sandbox has it to hide and pin.
    expect((await attempt('shell', { command: 'ls' })).decision).toBe('allow');
    const auditBefore = readFileSync(project.audit, 'utf8');
    const approvalsBefore = readFileSync(project.approvals, 'utf8');
    // `$d` hides the target from the policy layer: the command asks, approve_all approves it, and only the sandbox is left.
    const attacks = [
      'd=state; mv $d state.old; mv fake $d',
      'd=state; rm -rf $d; mv fake $d',
      'd=state; mv -T fake $d',
      'd=state; ln -sfn fake $d',
      'd=logs; rm -rf $d; mkdir $d; echo forged > $d/audit.jsonl',
      'd=logs; mv $d logs.old',
      'd=state; cp fake/approvals.json $d/approvals.json',
      'f=state/approvals.json; rm -f $f; cp fake/approvals.json $f',
    ];
    for (const command of attacks) {
      const authorization = await attempt('shell', { command });
      expect(authorization.decision, command).toBe('approved');
    }
    await gate.close();
    expect(readFileSync(project.approvals, 'utf8')).toBe(approvalsBefore);
    expect(readFileSync(project.audit, 'utf8').startsWith(auditBefore)).toBe(true);
    expect(existsSync(path.join(project.ws, 'state.old'))).toBe(false);
    expect(existsSync(path.join(project.ws, 'logs.old'))).toBe(false);
    expect(await forgeryTrusted(project)).toBe(false);
  });

  it('creates the folders of the state before the first sandboxed command, so a command cannot make them first', async () => {
    await requireWorkingBwrap();
    const project = createProject({ approvals: 'ws/later/approvals.json', sandbox: 'required' });
    const { gate, attempt } = await gateFor(project, 'approve_all');
    // The very first command tries to build the folder, with the forgery in it, where toolgate's state will be.
    expect((await attempt('shell', { command: 'd=later; rm -rf $d; mkdir -p $d; cp fake/approvals.json $d/approvals.json; mv $d later.old; mv fake $d' })).decision).toBe('approved');
    await gate.close();
    expect(JSON.parse(readFileSync(project.approvals, 'utf8'))).toEqual({ v: 1, approvals: [] });
    expect(existsSync(path.join(project.ws, 'later.old'))).toBe(false);
    expect(await forgeryTrusted(project)).toBe(false);
  });
});
