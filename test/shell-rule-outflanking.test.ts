/**
 * Issue 11, class 7: a restrictive rule must never be outflanked by a
 * broader allow. With `git: allow` and `git push: block`, every way of
 * spelling a push (global options, aliases, abbreviations, long forms,
 * runners that run it) must block or ask; commands that surely are
 * something else stay allowed. Each case is judged by the real shell tool
 * (decideShellCommand through createShellTool) on a real project in a temp
 * directory, and a few through `toolgate check`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.ts';
import { createShellFixture, verdictSuite, type ShellFixture, type VerdictCase } from './shell-fixture.ts';

/** Broad allows with a narrower block (or ask) inside each; the network is on so that only the rules decide. */
const RULES: readonly (readonly [match: string, decision: 'allow' | 'ask' | 'block'])[] = [
  ['git', 'allow'],
  ['git push', 'block'],
  ['git commit', 'ask'],
  ['npm', 'allow'],
  ['npm install', 'block'],
  ['pnpm', 'allow'],
  ['pnpm add', 'block'],
  ['yarn', 'allow'],
  ['yarn add', 'block'],
  ['bun', 'allow'],
  ['bun add', 'block'],
  ['pip', 'allow'],
  ['pip install', 'block'],
  ['cargo', 'allow'],
  ['cargo publish', 'block'],
  ['docker', 'allow'],
  ['docker rm', 'block'],
  ['docker image rm', 'block'],
  ['podman', 'allow'],
  ['podman rm', 'block'],
  ['kubectl', 'allow'],
  ['kubectl delete', 'block'],
  ['helm', 'allow'],
  ['helm uninstall', 'block'],
  ['terraform', 'allow'],
  ['terraform destroy', 'block'],
  ['gh', 'allow'],
  ['gh repo delete', 'block'],
  ['gh pr merge', 'ask'],
  ['make', 'allow'],
  ['make deploy', 'block'],
  ['aws', 'allow'],
  ['aws s3 rm', 'block'],
  ['gcloud', 'allow'],
  ['gcloud projects delete', 'block'],
  ['npx', 'allow'],
  ['uv', 'allow'],
  ['pipx', 'allow'],
  ['poetry', 'allow'],
  ['bundle', 'allow'],
  ['cross-env', 'allow'],
  ['dotenv', 'allow'],
  ['aws-vault', 'allow'],
  ['op', 'allow'],
  ['concurrently', 'allow'],
  ['python', 'allow'],
  ['env', 'allow'],
  ['sudo', 'allow'],
  ['timeout', 'allow'],
  ['nice', 'allow'],
  ['xargs', 'allow'],
  ['ls', 'allow'],
  ['cat', 'allow'],
  ['grep', 'allow'],
  ['echo', 'allow'],
];

let fixture: ShellFixture;
beforeAll(() => {
  fixture = createShellFixture({ shell: { rules: RULES.map(([match, decision]) => ({ match, decision })), network: true } });
});
afterAll(() => fixture.remove());

function suite(name: string, cases: readonly VerdictCase[]): void {
  verdictSuite(name, cases, () => fixture);
}

suite('git: global options, aliases and built-in synonyms', [
  ['git -p push', 'block'],
  ['git --paginate push', 'block'],
  ['git -P push origin main', 'block'],
  ['git --no-pager push', 'block'],
  ['git -C /tmp push', 'block'],
  ['git --git-dir=.git push', 'block'],
  ['git --work-tree . push', 'block'],
  ['git -c user.name=x push', 'block'],
  ['git --no-replace-objects --literal-pathspecs push', 'block'],
  ['git push -f', 'block'],
  // Unknown options may take the next word as a value: the push is not certain, so it asks.
  ['git --frobnicate push', 'ask'],
  ['git -Z push', 'ask'],
  // Not built in: the repository's config (or -c) may define it as an alias of push.
  ['git p', 'ask'],
  ['git p origin main', 'ask'],
  ['git -c alias.x=push x', 'ask'],
  ['git psuh', 'ask'],
  ['git $sub', 'ask'],
  ['git "$(echo push)"', 'ask'],
  // The ask rule is not outflanked either.
  ['git -p commit -m x', 'ask'],
  ['git ci -m x', 'ask'],
]);

suite('package managers: options anywhere, aliases, abbreviations and typos', [
  ['npm i lodash', 'block'],
  ['npm add lodash', 'block'],
  ['npm isntall lodash', 'block'],
  ['npm inst lodash', 'block'],
  ['npm in lodash', 'block'],
  ['npm --prefix sub install', 'block'],
  ['npm -g install x', 'block'],
  ['npm --loglevel silent i x', 'block'],
  ['npm --zz=1 install', 'block'],
  ['npm --zz install', 'ask'],
  ['npm instl x', 'ask'],
  ['pnpm add x', 'block'],
  ['pnpm -C sub add x', 'block'],
  ['pnpm --filter web add x', 'block'],
  ['pnpm -r add x', 'block'],
  ['yarn add x', 'block'],
  ['yarn --cwd sub add x', 'block'],
  ['yarn workspace web add x', 'block'],
  ['bun a x', 'block'],
  ['bun --cwd sub add x', 'block'],
  ['pip -q install x', 'block'],
  ['pip --isolated install x', 'block'],
  ['pip --no-cache-dir --disable-pip-version-check install x', 'block'],
  ['pip3 install x', 'block'],
  ['pip3.12 install x', 'block'],
  ['pip --python /usr/bin/python3 install x', 'block'],
  ['cargo +nightly publish', 'block'],
  ['cargo -Z unstable-options publish', 'block'],
  ['cargo --config x=1 publish', 'block'],
  ['cargo -q publish --dry-run', 'block'],
  ['cargo pub', 'ask'],
]);

suite('container and cluster CLIs: global flags and long command forms', [
  ['docker container rm x', 'block'],
  ['docker container remove x', 'block'],
  ['docker -H tcp://host:2375 rm x', 'block'],
  ['docker --host=unix:///x.sock rm x', 'block'],
  ['docker --context prod rm x', 'block'],
  ['docker -c prod container rm x', 'block'],
  ['docker --debug -l debug rm x', 'block'],
  ['docker rmi img', 'block'],
  ['docker image remove img', 'block'],
  ['docker --config /tmp/x image rm img', 'block'],
  ['docker frobnicate', 'ask'],
  ['podman --log-level debug rm x', 'block'],
  ['podman -c remote container rm x', 'block'],
  ['kubectl -n prod delete pod x', 'block'],
  ['kubectl -nprod delete pod x', 'block'],
  ['kubectl --namespace=prod delete pod x', 'block'],
  ['kubectl --context prod delete deploy x', 'block'],
  ['kubectl -s https://x --token t delete pod x', 'block'],
  ['kubectl --kubeconfig k -v 9 delete pod x', 'block'],
  ['kubectl delete -n prod pod x', 'block'],
  ['kubectl nuke pod x', 'ask'],
  ['helm un release', 'block'],
  ['helm delete release', 'block'],
  ['helm del release', 'block'],
  ['helm --kube-context prod -n x uninstall release', 'block'],
  ['terraform -chdir=infra destroy', 'block'],
  ['terraform apply -destroy', 'ask'],
  ['terraform apply -auto-approve -destroy', 'ask'],
  ['gh repo delete o/r', 'block'],
  ['gh -R o/r repo delete', 'block'],
  ['gh repo --zz delete o/r', 'ask'],
  ['gh pr merge 1', 'ask'],
  ['gh pr --zz merge 1', 'ask'],
  ['gh my-alias', 'ask'],
  ['aws --profile prod s3 rm s3://b/k', 'block'],
  ['aws s3 --region eu-west-1 rm s3://b/k', 'block'],
  ['aws s3 --zz rm s3://b/k', 'ask'],
  ['gcloud --project p projects delete x', 'block'],
  ['gcloud beta projects delete x', 'block'],
  ['gcloud projects --quiet delete x', 'block'],
]);

suite('make: options and targets in any order', [
  ['make deploy', 'block'],
  ['make -C sub deploy', 'block'],
  ['make -j4 deploy', 'block'],
  ['make -j 4 -k deploy', 'block'],
  ['make --file=Other.mk deploy', 'block'],
  ['make build deploy', 'ask'],
  ['make -Z deploy', 'ask'],
]);

suite('runners that run the blocked command', [
  ['npx git push', 'block'],
  ['npx -y git push', 'block'],
  ['npx -p some-pkg git push', 'block'],
  ['npm exec git push', 'block'],
  ['npm exec -- git push', 'block'],
  ['npm x git push', 'block'],
  ['npm --prefix sub exec git -p push', 'block'],
  ['pnpm exec git push', 'block'],
  ['pnpm dlx git push', 'block'],
  ['pnpm git push', 'block'],
  ['yarn exec git push', 'block'],
  ['yarn run git push', 'block'],
  ['bun x git push', 'block'],
  ['uv run git push', 'block'],
  ['uv tool run git push', 'block'],
  ['pipx run git push', 'block'],
  ['npx npx git push', 'block'],
  ['npx cross-env A=1 git push', 'block'],
  ['npx some-tool --flag git push', 'ask'],
  ['npx dotenv -- git -p push', 'block'],
  ['npx -c "git push"', 'ask'],
  ['npx $TOOL', 'ask'],
  ['bun exec "git push"', 'ask'],
  ['poetry run git push', 'block'],
  ['bundle exec git -p push', 'block'],
  ['cross-env A=1 B=2 git push', 'block'],
  ['dotenv -e .env -- git push', 'block'],
  ['aws-vault exec prod -- git push', 'block'],
  ['op run --env-file .env -- git push', 'block'],
  ['concurrently "git push" "npm test"', 'ask'],
  ['python -m pip install x', 'block'],
  ['python3 -m pip --isolated install x', 'block'],
  ['python -Im pip install x', 'ask'],
  ['git send-pack origin main', 'ask'],
  ['git http-push https://x/repo main', 'ask'],
  ['env git push', 'block'],
  ['env -i PATH=/usr/bin git -p push', 'block'],
  ['sudo git push', 'block'],
  ['sudo -u root git --no-pager push', 'block'],
  ['timeout 5 git push', 'block'],
  ['nice -n 5 git push', 'block'],
  ['xargs git push < list.txt', 'block'],
  ['echo push | xargs git', 'ask'],
  ['echo x | xargs npx git push', 'block'],
]);

suite('controls: what surely is something else stays allowed', [
  ['git status', 'allow'],
  ['git --no-pager log --oneline -5', 'allow'],
  ['git diff --stat', 'allow'],
  ['git -P show HEAD', 'allow'],
  ['git log', 'allow'],
  ['ls -la', 'allow'],
  ['cat README.md', 'allow'],
  ['grep -r TODO .', 'allow'],
  ['git status | grep x', 'allow'],
  ['git log --oneline | grep fix', 'allow'],
  ['echo git push', 'allow'],
  ['grep "git push" notes.txt', 'allow'],
  ['pip list', 'allow'],
  ['pip -q show x', 'allow'],
  ['docker ps', 'allow'],
  ['docker -H tcp://x ps', 'allow'],
  ['docker image ls', 'allow'],
  ['kubectl get pods', 'allow'],
  ['kubectl -n prod get pods', 'allow'],
  ['helm list', 'allow'],
  ['terraform plan', 'allow'],
  ['terraform -chdir=infra plan -destroy', 'allow'],
  ['make build', 'allow'],
  ['make deploy-docs', 'allow'],
  ['npx prettier --check .', 'allow'],
  ['npx eslint --fix-dry-run src', 'allow'],
  ['timeout 5 ls', 'allow'],
  ['python -m http.server', 'allow'],
  ['python -c "print(1)"', 'allow'],
]);

describe('multi-word allow rules cover a command only where it surely is theirs', () => {
  let narrow: ShellFixture;
  beforeAll(() => {
    narrow = createShellFixture({
      shell: {
        network: true,
        rules: [
          { match: 'git status', decision: 'allow' },
          { match: 'git log', decision: 'allow' },
          { match: 'kubectl get', decision: 'allow' },
          { match: 'docker ps', decision: 'allow' },
          { match: 'make test', decision: 'allow' },
          { match: 'npm run lint', decision: 'allow' },
        ],
      },
    });
  });
  afterAll(() => narrow.remove());
  verdictSuite(
    'narrow allows',
    [
      ['git status', 'allow'],
      ['git --no-pager status', 'allow'],
      ['git -P log --oneline', 'allow'],
      ['git -c x=y status', 'ask'],
      ['git -c core.pager=sh status', 'ask'],
      ['git --git-dir=.git status', 'ask'],
      ['git --work-tree src status', 'ask'],
      ['git -C src status', 'ask'],
      ['git --frobnicate status', 'ask'],
      ['git st', 'ask'],
      ['kubectl get pods', 'allow'],
      ['kubectl -n prod get pods', 'allow'],
      ['kubectl get -n prod pods', 'allow'],
      ['kubectl --kubeconfig k.yaml get pods', 'ask'],
      ['kubectl --context prod get pods', 'ask'],
      ['docker ps', 'allow'],
      ['docker container ls', 'allow'],
      ['docker --debug ps', 'allow'],
      ['docker -H tcp://x ps', 'ask'],
      ['make test', 'allow'],
      ['make -j4 test', 'allow'],
      ['make -f evil.mk test', 'ask'],
      ['make -C elsewhere test', 'ask'],
      ['npm run lint', 'allow'],
      ['npm run-script lint', 'allow'],
      ['npm --userconfig rc run lint', 'ask'],
    ],
    () => narrow,
  );
});

/** Option tokens of every kind: known flags of each program, unknown ones, attached values, and known options with their value. */
const INSERTIONS: Record<string, readonly string[]> = {
  git: ['-p', '-P', '--no-pager', '--bare', '-C dir', '-c a=b', '--git-dir=x', '--namespace ns'],
  npm: ['-g', '-s', '--prefix dir', '-w ws', '--loglevel=silent'],
  pnpm: ['-r', '-C dir', '--filter x', '-w'],
  yarn: ['--cwd dir', '--silent', '--offline'],
  bun: ['--cwd dir', '--silent', '-b'],
  pip: ['-q', '-v', '--isolated', '--python py', '--no-cache-dir'],
  cargo: ['+nightly', '-Z flag', '--config k=v', '-q', '--locked'],
  docker: ['-H tcp://x', '--context c', '-D', '-l debug', '--tls'],
  podman: ['-c conn', '--log-level debug', '--remote'],
  kubectl: ['-n ns', '-nns', '--context c', '-s https://x', '--kubeconfig k', '-v 9'],
  helm: ['-n ns', '--kube-context c', '--debug'],
  terraform: ['-chdir=dir'],
  gh: ['-R o/r', '--repo=o/r'],
  make: ['-C dir', '-f file', '-j4', '-j 4', '-k', '-s'],
  aws: ['--profile p', '--region r', '--debug', '--output json'],
  gcloud: ['--project p', '-q', '--format json'],
};
const UNKNOWN = ['--zz', '-z', '--zz=1', '-zz', '--zz-top'];

describe('property: no option token inserted between a blocked (or asked-about) command\'s words yields allow', () => {
  const blocked = RULES.filter(([match, decision]) => decision !== 'allow' && match.includes(' '));
  const cases: string[] = [];
  for (const [match] of blocked) {
    const words = match.split(' ');
    const tokens = [...(INSERTIONS[words[0]!] ?? []), ...UNKNOWN];
    for (let at = 1; at <= words.length; at++) {
      for (const token of tokens) cases.push([...words.slice(0, at), token, ...words.slice(at), 'x'].join(' '));
    }
  }

  it(`holds for ${cases.length} command lines`, async () => {
    const allowed: string[] = [];
    for (const command of cases) {
      const verdict = await fixture.tool.decide({ command });
      if (verdict.decision === 'allow') allowed.push(command);
    }
    expect(allowed).toEqual([]);
    expect(cases.length).toBeGreaterThan(300);
  });

  it('and a known harmless flag keeps a certain block a block', async () => {
    for (const command of ['git -p push', 'git --no-pager push', 'docker -D rm x', 'kubectl -v 9 delete pod x', 'pip -q install x', 'cargo -q publish', 'make -s deploy']) {
      expect((await fixture.tool.decide({ command })).decision, command).toBe('block');
    }
  });
});

describe('property: an option token inside a narrow allow rule\'s words keeps it allowed only when known to be harmless', () => {
  let narrow: ShellFixture;
  beforeAll(() => {
    narrow = createShellFixture({ shell: { network: true, rules: [{ match: 'git status', decision: 'allow' }, { match: 'kubectl get', decision: 'allow' }, { match: 'make test', decision: 'allow' }] } });
  });
  afterAll(() => narrow.remove());
  const harmless: Record<string, readonly string[]> = { git: ['-p', '-P', '--no-pager', '--no-optional-locks', '--literal-pathspecs'], kubectl: ['-n ns', '-nns', '--namespace=ns', '-v 9'], make: ['-j4', '-j 4', '-k', '-s', '--no-print-directory'] };
  const other: Record<string, readonly string[]> = { git: ['-C src', '-c a=b', '--git-dir=.git', '--work-tree .', '--exec-path=x', '--bare'], kubectl: ['--context c', '-s https://x', '--kubeconfig k', '--token t', '--as admin'], make: ['-C src', '-f other.mk', '--file=other.mk', '-I inc', '-e'] };

  it('allows the harmless ones', async () => {
    for (const [name, sub] of [['git', 'status'], ['kubectl', 'get'], ['make', 'test']] as const) {
      for (const token of harmless[name]!) {
        const command = `${name} ${token} ${sub}`;
        expect((await narrow.tool.decide({ command })).decision, command).toBe('allow');
      }
    }
  });

  it('never allows the others, nor unknown ones', async () => {
    const allowed: string[] = [];
    for (const [name, sub] of [['git', 'status'], ['kubectl', 'get'], ['make', 'test']] as const) {
      for (const token of [...other[name]!, ...UNKNOWN]) {
        const command = `${name} ${token} ${sub}`;
        if ((await narrow.tool.decide({ command })).decision === 'allow') allowed.push(command);
      }
    }
    expect(allowed).toEqual([]);
  });
});

describe('toolgate check judges the same way', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-outflank-'));
    writeFileSync(
      path.join(root, 'toolgate.yaml'),
      ['fs:', '  zones:', '    - { name: project, root: ., mode: rw }', 'shell:', '  network: true', '  rules:', '    - { match: git, decision: allow }', '    - { match: "git push", decision: block, reason: "no pushing" }', '    - { match: npx, decision: allow }', '    - { match: kubectl, decision: allow }', '    - { match: "kubectl delete", decision: block }', ''].join('\n'),
    );
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  async function check(command: string): Promise<{ decision: string; reason?: string }> {
    const result = await runCli(['check', '--tool', 'shell', '--args', JSON.stringify({ command }), '--json'], { cwd: root });
    return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { decision: string; reason?: string };
  }

  it('blocks a push behind a global option and a runner, asks for an alias, allows status', async () => {
    expect(await check('git -p push')).toMatchObject({ decision: 'block' });
    expect(await check('npx git push')).toMatchObject({ decision: 'block' });
    expect(await check('kubectl -n prod delete pod x')).toMatchObject({ decision: 'block' });
    const alias = await check('git p');
    expect(alias.decision).toBe('ask');
    expect(JSON.stringify(alias)).toContain('git push');
    expect(await check('git status')).toMatchObject({ decision: 'allow' });
  });
});
