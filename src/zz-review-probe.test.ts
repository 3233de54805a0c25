import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, it } from 'vitest';
import { createShellFixture, type ShellFixture } from '../test/shell-fixture.ts';
import { openApprovalsFile, type ApprovalsFile } from './approvals/approvals-file.ts';
import { createGate } from './core/gate.ts';
import type { ApprovalDecision, ToolCall } from './core/types.ts';

let fixture: ShellFixture;
let approvals: ApprovalsFile;
beforeEach(() => {
  fixture = createShellFixture({ shell: { rules: [{ match: 'ls', decision: 'allow' }, { match: 'echo', decision: 'allow' }, { match: 'rm', decision: 'block' }, { match: 'git push', decision: 'ask' }] } });
  approvals = openApprovalsFile({ path: path.join(fixture.root, '.toolgate', 'approvals.json') });
  const ws = path.join(fixture.root, 'ws');
  execFileSync('git', ['init', '-q', ws]);
  execFileSync('git', ['-C', ws, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-q', '--allow-empty', '-m', 'x']);
});
afterEach(() => fixture.remove());
let n = 0;
const shell = (command: string, cwd?: string): ToolCall => ({ tool: 'shell', args: cwd === undefined ? { command } : { command, cwd }, callId: `c${++n}` });
const ctx = (s: string) => ({ sessionId: s, signal: new AbortController().signal });
function gateAnswering(decision: ApprovalDecision, shown: any[] = []) {
  return createGate({ policy: fixture.policy, tools: [fixture.tool], always: approvals, approver: { ask: async (r) => (shown.push(r), decision) } });
}
async function probe(seed: string, probes: string[], cwd?: string) {
  const shown: any[] = [];
  const r0 = await gateAnswering({ approved: true, scope: 'always', alwaysScope: 'command' }, shown).authorize(shell(seed, cwd), ctx('s1'));
  console.log(`SEED ${seed}: ${r0.decision} ${(r0 as any).reason}\n  offered: ${JSON.stringify(shown[0]?.alwaysScopes?.map((s: any) => s.rule))}`);
  const later = gateAnswering({ approved: false, scope: 'once', reason: 'asked' });
  for (const c of probes) {
    const r = await later.authorize(shell(c, cwd), ctx('s2'));
    console.log(`  ${r.decision}/${(r as any).source}  ${c}   ${r.decision === 'approved' ? '' : String((r as any).reason).slice(0, 140)}`);
  }
}
const P = process.env.PROBE ?? 'gitlog';
it('probe', async () => {
  const table: Record<string, [string, string[]]> = {
    gitlog: ['git log -n 3', [
      'git log --oneline', 'git -c core.pager=id log', 'git -c alias.log=!id log', 'git --exec-path=/tmp log', 'FOO=x git log', 'GIT_PAGER=id git log', 'PAGER=id git log',
      'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=id git log', 'command git log', 'git log --output=x.txt', 'git log --output=.git/hooks/pre-commit',
      'git log > .git/hooks/post-checkout', 'git log > x.txt', 'git log >> .bashrc', 'git log | sh', 'git log < /etc/passwd', 'git log <<< hi', 'git log <(id)', 'git log $(id)',
      'f() { id; }; f; git log', 'alias git=id; git log', 'git() { id; }; git log', 'cd ..; git log', 'cd ../outside && git log', 'git log && ls', 'git log; echo hi > x',
      'git log --ext-diff -p', 'git log --show-signature', 'git log -p --textconv', 'git log --exec=id', 'git log -- ../outside', 'git log ../outside/secret.txt', 'git log link-out/secret.txt',
      'git log --no-index', 'git -C ../outside log', 'git --git-dir=../outside log', 'git --work-tree=../outside log', 'git log --format=%x00', 'git log && git log', 'exec git log', 'time git log', 'nohup git log',
      'git log & id', 'git log ; git push', 'git log $HOME', 'git log ~', 'git log --output=/tmp/zzx', 'git log -o x', 'env git log', 'git log --config-env=core.pager=HOME',
    ]],
    gitlog2: ['git log -n 3', ['git log --out=x.txt', 'git log --outp=y.txt', 'git log --output y2.txt', 'git log --outpu=.git/hooks/pre-commit', 'git log --out=../outside/z.txt', 'git log --out=.toolgate/approvals.json', 'git log -p --ext-diff', 'git log --show-signature -1', 'git log -p --textconv -1', 'git log -1 --format=%H', 'git log --no-pager']],
  };
  if (process.env.HOSTILE) {
    const ws = path.join(fixture.root, 'ws');
    for (const [k, v] of [['diff.external', 'touch /tmp/zz-pwn-ext'], ['gpg.program', '/tmp/zz-evil'], ['core.pager', 'touch /tmp/zz-pwn-pager; cat'], ['log.showSignature', 'true']]) execFileSync('git', ['-C', ws, 'config', k!, v!]);
  }
  const [seed, probes] = table[P]!;
  await probe(seed, probes);
});
