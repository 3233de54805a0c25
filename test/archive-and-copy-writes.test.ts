/**
 * An archiver's own archive is a write like any other (a zone that asks
 * before writes asks; a hard link, a FIFO, a policy-like name or
 * toolgate's own file asks or blocks), archivers that delete their
 * sources (`tar --remove-files`, `zip -m`) delete them, and a copy or move
 * lands where the kernel puts it (`-T`, rsync's `src/`) with every name
 * inside a copied directory judged (`.envrc`, `.vscode/`, toolgate's own
 * state). Judged by the shell tool, and executed through the gate in
 * auto_deny mode without a sandbox and in real bubblewrap, checking the
 * files afterwards.
 */
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openApprovalsFile } from '../src/approvals/approvals-file.ts';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { createBuiltinTools } from '../src/runtime/create-builtin-tools.ts';
import { createRuntimeGate } from '../src/runtime/create-runtime-gate.ts';
import type { BuiltinTool } from '../src/tools/builtin-tool.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';

const RULES = ['tar', 'zip', 'cp', 'mv', 'rsync', 'ln', 'cat', 'echo'];

let root: string;
let ws: string;
let free: string;
let realApprovals: string;

function policyText(sandbox: 'off' | 'required'): string {
  return [
    'mode: auto_deny',
    'fs:',
    '  zones:',
    '    - { name: ws, root: ./ws, mode: rw, approval: { read: allow, write: ask, delete: block } }',
    '    - { name: free, root: ./free, mode: rw, approval: { read: allow, write: allow, delete: allow } }',
    'approvals: { path: free/state/approvals.json, allow_in_writable_zone: true }',
    'shell:',
    '  default: ask',
    '  rules:',
    ...RULES.map((match) => `    - { match: ${match}, decision: allow }`),
    `sandbox: { os: ${sandbox} }`,
    '',
  ].join('\n');
}

/** Lays the project out afresh: victims in ws, a hard link to a file outside the zones, a directory carrying code-loading names, a forged approvals file. */
async function layOut(): Promise<void> {
  for (const directory of [ws, free]) rmSync(directory, { recursive: true, force: true });
  mkdirSync(path.join(ws, 'src'), { recursive: true });
  writeFileSync(path.join(ws, 'README.md'), '# readme\n');
  writeFileSync(path.join(ws, 'victim.txt'), 'victim\n');
  writeFileSync(path.join(ws, 'a'), 'a\n');
  mkdirSync(path.join(free, 'evil', '.vscode'), { recursive: true });
  mkdirSync(path.join(free, 'sub'));
  mkdirSync(path.join(free, 'fake'));
  mkdirSync(path.join(free, 'state'));
  mkdirSync(path.join(free, 'plain', 'docs'), { recursive: true });
  writeFileSync(path.join(free, 'plain', 'docs', 'x.md'), 'x\n');
  writeFileSync(path.join(free, 'evil', '.envrc'), 'touch /tmp/pwned\n');
  writeFileSync(path.join(free, 'evil', '.vscode', 'tasks.json'), '{"tasks":[]}\n');
  writeFileSync(path.join(free, 'fake', 'approvals.json'), '{"forged":true}\n');
  await openApprovalsFile({ path: path.join(free, 'state', 'approvals.json') }).add({ tool: 'shell', payload: { command: 'echo real', cwd: free }, description: 'real' });
  realApprovals = readFileSync(path.join(free, 'state', 'approvals.json'), 'utf8');
  writeFileSync(path.join(free, 'a'), 'a\n');
  writeFileSync(path.join(free, 'precious.txt'), 'precious\n');
  writeFileSync(path.join(root, 'outside.txt'), 'outside\n');
  linkSync(path.join(root, 'outside.txt'), path.join(free, 'hl.txt'));
  execFileSync('mkfifo', [path.join(free, 'fifo')]);
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-archive-copy-')));
  ws = path.join(root, 'ws');
  free = path.join(root, 'free');
  writeFileSync(path.join(root, 'toolgate.yaml'), policyText('off'));
  writeFileSync(path.join(root, 'toolgate-bwrap.yaml'), policyText('required'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(async () => layOut());

async function toolsFor(policyFile: string) {
  const loaded = await loadPolicyFile(path.join(root, policyFile));
  const { tools } = await createBuiltinTools({ loaded, cwd: root });
  const gate = createRuntimeGate({ loaded, tools, mode: 'auto_deny' });
  return { gate, tools: new Map((tools as BuiltinTool[]).map((tool) => [tool.name, tool])) };
}

let calls = 0;
/** The whole path of a model's call: the gate, then the tool only when the gate lets it run. */
async function attempt(options: { tool?: string; args: Record<string, unknown>; sandboxed?: boolean }): Promise<{ decision: string; reason: string; ran: boolean }> {
  const { gate, tools } = await toolsFor(options.sandboxed === true ? 'toolgate-bwrap.yaml' : 'toolgate.yaml');
  const tool = options.tool ?? 'shell';
  try {
    const authorization = await gate.authorize({ tool, args: options.args, callId: `c${++calls}` }, { sessionId: 'archive-copy' });
    if (authorization.decision !== 'allow' && authorization.decision !== 'approved') return { decision: authorization.decision, reason: authorization.reason ?? '', ran: false };
    await tools.get(tool)!.execute(authorization.args ?? options.args, { authorization: { decision: 'allow' } } as never);
    return { decision: authorization.decision, reason: '', ran: true };
  } finally {
    await gate.close?.();
  }
}

async function decide(command: string, cwd: 'ws' | 'free'): Promise<{ decision: string; reasons: string }> {
  const { tools } = await toolsFor('toolgate.yaml');
  const shell = tools.get('shell') as unknown as { decide(args: { command: string; cwd: string }): Promise<{ decision: string; reasons: string[] }> };
  const verdict = await shell.decide({ command, cwd });
  return { decision: verdict.decision, reasons: verdict.reasons.join('\n') };
}

describe('an archive is judged as a write like any other', () => {
  it.each([
    ['tar -cf victim.txt a', /asks before writes/],
    ['zip README.md a', /asks before writes/],
    ['tar --delete -f README.md a', /asks before writes/],
    ['tar -rf README.md a', /asks before writes/],
    ['tar -cf new.tar a', /asks before writes/],
  ])('in zone ws (write: ask) %s asks', async (command, reason) => {
    const verdict = await decide(command, 'ws');
    expect(verdict.decision).toBe('ask');
    expect(verdict.reasons).toMatch(reason);
  });

  it.each([
    ['tar -cf hl.txt a', /hard link/],
    ['tar -cf fifo a', /FIFO/],
    ['tar -cf sub/toolgate.yaml a', /named like a policy/],
    ['zip sub/toolgate.yaml a', /named like a policy/],
    ['tar -cf state/approvals.json a', /toolgate|protected|hides/],
    ['tar -cf .envrc a', /direnv/],
  ])('in zone free (writes allowed) %s does not run unasked', async (command, reason) => {
    const verdict = await decide(command, 'free');
    expect(verdict.decision).not.toBe('allow');
    expect(verdict.reasons).toMatch(reason);
  });

  it.each(['tar -cf out.tar a', 'zip out.zip a', 'tar -czf out.tgz plain', 'tar -tf out.tar'])('%s is allowed in zone free', async (command) => {
    expect((await decide(command, 'free')).decision).toBe('allow');
  });
});

describe('archivers that delete their sources delete them', () => {
  it.each(['tar --remove-files -cf ../free/x.tar victim.txt', 'tar -cf ../free/x.tar --remove victim.txt', 'zip -m ../free/x.zip victim.txt', 'zip --move ../free/x.zip victim.txt', 'zip -rm ../free/x.zip src', 'rsync -a --remove-source-files victim.txt ../free/', 'rsync --remove-source -a src ../free/'])(
    'in zone ws (delete: block) %s blocks',
    async (command) => {
      const verdict = await decide(command, 'ws');
      expect(verdict.decision).toBe('block');
      expect(verdict.reasons).toMatch(/blocks deletes/);
    },
  );

  it('without the option the sources are only read', async () => {
    expect((await decide('tar -cf ../free/x.tar victim.txt', 'ws')).decision).toBe('allow');
    expect((await decide('zip ../free/x.zip victim.txt', 'ws')).decision).toBe('allow');
    expect((await decide('rsync -a victim.txt ../free/', 'ws')).decision).toBe('allow');
  });
});

describe('a copy or move lands where the kernel puts it, and every name inside a copied directory is judged', () => {
  it.each(['cp -rT evil sub', 'cp -r --no-target-directory evil sub', 'rsync -a evil/ sub/', 'rsync -a evil/ sub', 'cp -r evil newdir', 'mv evil newdir2', 'cp -r evil sub', 'rsync -a evil sub', 'mv -T evil sub'])(
    '%s asks: it writes a .envrc and .vscode/tasks.json',
    async (command) => {
      const verdict = await decide(command, 'free');
      expect(verdict.decision).toBe('ask');
      expect(verdict.reasons).toMatch(/\.envrc|\.vscode/);
    },
  );

  it.each(['cp -rT fake state', 'mv -T fake state', 'rsync -a fake/ state/', 'cp -r fake/. state'])('%s does not run unasked: it replaces toolgate\'s approvals file', async (command) => {
    expect((await decide(command, 'free')).decision).not.toBe('allow');
  });

  it('a directory too large to walk asks', async () => {
    mkdirSync(path.join(free, 'big'));
    for (let index = 0; index < 450; index++) writeFileSync(path.join(free, 'big', `f${index}`), '');
    const verdict = await decide('cp -r big copy', 'free');
    expect(verdict.decision).toBe('ask');
    expect(verdict.reasons).toMatch(/more than 400 entries/);
  });

  it.each(['cp -r plain copy', 'cp -rT plain copy', 'rsync -a plain/ copy/', 'mv plain moved', 'cp -r fake state-copy', 'cp a b.txt', 'ln -s /usr/share share', 'ln -sT evil evil-link'])('%s is allowed (a link writes nothing inside the directory it names)', async (command) => {
    expect((await decide(command, 'free')).decision).toBe('allow');
  });
});

for (const sandboxed of [false, true]) {
  describe(`executed through the gate (auto_deny) ${sandboxed ? 'in real bubblewrap' : 'without a sandbox'}`, () => {
    beforeAll(async () => {
      if (sandboxed) await requireWorkingBwrap();
    });

    it('tar -cf on a hard link to a file outside the zones does not overwrite that file', async () => {
      const outcome = await attempt({ args: { command: 'tar -cf hl.txt a', cwd: 'free' }, sandboxed });
      expect(outcome.ran).toBe(false);
      expect(readFileSync(path.join(root, 'outside.txt'), 'utf8')).toBe('outside\n');
    });

    it('an archive in a zone that asks before writes does not replace the file', async () => {
      for (const command of ['tar -cf victim.txt a', 'zip README.md a', 'tar -rf README.md a']) expect((await attempt({ args: { command, cwd: 'ws' }, sandboxed })).ran).toBe(false);
      expect(readFileSync(path.join(ws, 'victim.txt'), 'utf8')).toBe('victim\n');
      expect(readFileSync(path.join(ws, 'README.md'), 'utf8')).toBe('# readme\n');
    });

    it('tar --remove-files, zip -m and rsync --remove-source-files do not delete files in a zone that blocks deletes', async () => {
      for (const command of ['tar --remove-files -cf ../free/x.tar victim.txt', 'zip -m ../free/x.zip victim.txt', 'rsync -a --remove-source-files victim.txt ../free/']) expect((await attempt({ args: { command, cwd: 'ws' }, sandboxed })).ran).toBe(false);
      expect(readFileSync(path.join(ws, 'victim.txt'), 'utf8')).toBe('victim\n');
    });

    it('copies of a directory holding .envrc and .vscode/ do not run; the approvals file is not replaced', async () => {
      for (const command of ['cp -rT evil sub', 'rsync -a evil/ sub/', 'cp -r evil newdir', 'mv evil newdir2', 'cp -rT fake state', 'mv -T fake state', 'rsync -a fake/ state/']) {
        expect((await attempt({ args: { command, cwd: 'free' }, sandboxed })).ran, command).toBe(false);
      }
      expect(readdirSync(path.join(free, 'sub'))).toEqual([]);
      expect(existsSync(path.join(free, 'newdir'))).toBe(false);
      expect(existsSync(path.join(free, 'evil', '.envrc'))).toBe(true);
      expect(readFileSync(path.join(free, 'state', 'approvals.json'), 'utf8')).toBe(realApprovals);
    });

    it('the controls run', async () => {
      expect(await attempt({ args: { command: 'tar -cf out.tar a && tar --remove-files -cf gone.tar precious.txt && cp -r plain copy', cwd: 'free' }, sandboxed })).toMatchObject({ ran: true });
      expect(existsSync(path.join(free, 'out.tar'))).toBe(true);
      expect(existsSync(path.join(free, 'precious.txt'))).toBe(false);
      expect(readFileSync(path.join(free, 'copy', 'docs', 'x.md'), 'utf8')).toBe('x\n');
    });
  });
}

describe('move_file moves files, not directories', () => {
  it('a directory holding .envrc is refused, and nothing moves', async () => {
    const outcome = await attempt({ tool: 'move_file', args: { source: 'free/evil', destination: 'free/moved' } });
    expect(outcome).toMatchObject({ decision: 'block', ran: false });
    expect(outcome.reason).toMatch(/is a directory; move_file moves one file/);
    expect(existsSync(path.join(free, 'evil', '.envrc'))).toBe(true);
    expect(existsSync(path.join(free, 'moved'))).toBe(false);
  });
});
