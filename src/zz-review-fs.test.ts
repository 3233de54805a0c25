import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, existsSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, it } from 'vitest';
import { createShellFixture, type ShellFixture } from '../test/shell-fixture.ts';
import { openApprovalsFile, type ApprovalsFile } from './approvals/approvals-file.ts';
import { createFsTools } from './tools/fs/create-fs-tools.ts';
import { createGate } from './core/gate.ts';
import type { ToolCall } from './core/types.ts';

let fixture: ShellFixture;
let approvals: ApprovalsFile;
beforeEach(() => {
  fixture = createShellFixture({ shell: { rules: [{ match: 'ls', decision: 'allow' }] } });
  approvals = openApprovalsFile({ path: path.join(fixture.root, '.toolgate', 'approvals.json') });
});
afterEach(() => fixture.remove());
let n = 0;
const ctx = (s: string) => ({ sessionId: s, signal: new AbortController().signal });
it('fs probe', async () => {
  const ws = path.join(fixture.root, 'ws');
  execFileSync('git', ['init', '-q', ws]);
  mkdirSync(path.join(ws, 'notes'));
  symlinkSync('../src', path.join(ws, 'notes', 'lnk'));
  symlinkSync('../.git/hooks/pre-commit', path.join(ws, 'notes', 'dang-hook'));
  symlinkSync('../src/new.ts', path.join(ws, 'notes', 'dang-src'));
  symlinkSync('../../outside/new.txt', path.join(ws, 'notes', 'dang-out'));
  symlinkSync('../a.txt', path.join(ws, 'notes', 'file-link'));
  linkSync(path.join(ws, 'a.txt'), path.join(ws, 'notes', 'hard'));
  const tools = createFsTools({ zones: fixture.zones, cwd: fixture.root });
  const write = (file: string): ToolCall => ({ tool: 'write_file', args: { path: file, content: `x ${++n}\n` }, callId: `w${n}` });
  const first = createGate({ policy: fixture.policy, tools, always: approvals, approver: { ask: async () => ({ approved: true, scope: 'always', alwaysScope: 'folder' }) } });
  console.log('SEED', JSON.stringify(await first.authorize(write('ws/notes/a.txt'), ctx('s1'))).slice(0, 300));
  const later = createGate({ policy: fixture.policy, tools, always: approvals, approver: { ask: async () => ({ approved: false, scope: 'once' }) } });
  const wt = tools.find((t) => t.name === 'write_file')!;
  for (const file of ['ws/notes/b.txt', 'ws/notes//b2.txt', 'ws/./notes/b3.txt', 'ws/notes/b4.txt/', path.join(ws, 'notes', 'abs.txt'), 'ws/NOTES/x.txt', 'ws/notes/lnk/evil.ts', 'ws/notes/dang-hook', 'ws/notes/dang-src', 'ws/notes/dang-out', 'ws/notes/file-link', 'ws/notes/hard', 'ws/notes/.GIT/config', 'ws/notes/.Git', 'ws/notes/package.json', 'ws/notes/conftest.py', 'ws/notes/.github/workflows/x.yml', 'ws/notes/Makefile', 'ws/notes/.toolgate/approvals.json', 'ws/notes/toolgate.yaml', 'ws/notes/.direnv/x', 'ws/notes/.envrc ', 'ws/notes/.envrc\u200b', 'ws/notes/.git\u0000x']) {
    const call = write(file);
    let r: any;
    try { r = await later.authorize(call, ctx('s2')); } catch (e) { console.log('  THROW', file, String(e).slice(0, 100)); continue; }
    let ran = '';
    if (r.decision === 'approved' || r.decision === 'allow') {
      try { await (wt as any).execute(call.args, { authorization: r, signal: new AbortController().signal }); ran = 'wrote'; } catch (e) { ran = `exec-error: ${String(e).slice(0, 120)}`; }
    }
    console.log(`  ${r.decision}/${r.source}  ${JSON.stringify(file)}  ${ran} ${r.decision === 'approved' ? '' : String(r.reason).slice(0, 120)}`);
  }
  console.log('hook exists?', existsSync(path.join(ws, '.git/hooks/pre-commit')), 'src/new.ts?', existsSync(path.join(ws, 'src/new.ts')), 'outside/new?', existsSync(path.join(fixture.root, 'outside/new.txt')), 'a.txt=', readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'src/evil?', existsSync(path.join(ws, 'src/evil.ts')));
});
