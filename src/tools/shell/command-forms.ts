/**
 * What toolgate knows about the grammar of common CLIs, so that a rule is
 * matched on what a command does rather than on its literal words: each
 * program's global options (which take a value, which cannot change what
 * runs), its subcommands with their aliases and long forms (`npm i` is
 * `npm install`, `docker rmi` is `docker image rm`), and where an unknown
 * word may be a user-defined alias, plugin, abbreviation or script (git, npm,
 * cargo, kubectl...). Pure data and lookups; reading commands with it is
 * rule-matching.ts's job.
 */
import { commandModel } from './commands/command-models.ts';
import { level, listWords, options, program, type CommandSpec, type OptionTable } from './commands/grammar.ts';

// git: built-in subcommands cannot be redefined by aliases; any other word may be an alias (also `-c alias.x=...`), a git-x program on PATH, or autocorrected.
const GIT_PUSH = level({ options: options({ flags: '-f --force --force-with-lease --force-if-includes -u --set-upstream -d --delete -n --dry-run -q --quiet -v --verbose --tags --all --mirror --atomic --prune --no-verify --follow-tags --porcelain --progress -4 -6', valued: '-o --push-option --repo', harmless: '-q --quiet -v --verbose -n --dry-run --porcelain --progress', synonyms: '-f=--force -u=--set-upstream -d=--delete -n=--dry-run -q=--quiet -v=--verbose -o=--push-option' }),
  optionMeanings: new Map([['--force-with-lease', '--force'], ['--force-if-includes', '--force'], ['--mirror', '--force']]),
  plusMeans: '--force',
});
const GIT_BUILTINS =
  'add am annotate:blame apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit commit-graph commit-tree config count-objects credential credential-cache credential-store daemon describe diagnose diff diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects:fsck gc get-tar-commit-id grep gui hash-object help hook http-backend http-fetch http-push imap-send index-pack init init-db:init instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index merge-one-file merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id pickaxe:blame prune prune-packed pull push range-diff read-tree rebase receive-pack reflog remote repack replace replay request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack shortlog show show-branch show-index show-ref sparse-checkout stage:add stash status stripspace submodule subtree switch symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info upload-archive upload-pack var verify-commit verify-pack verify-tag version web--browse whatchanged worktree write-tree';
const GIT = program(
  level({
    options: options({
      flags: '-p --paginate -P --no-pager --no-replace-objects --bare --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks --no-advice --no-lazy-fetch -v --version -h --help --html-path --man-path --info-path --exec-path',
      valued: '-C -c --git-dir --work-tree --namespace --super-prefix --config-env --attr-source --list-cmds',
      harmless: '-p --paginate -P --no-pager --no-replace-objects --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks --no-advice --no-lazy-fetch',
      synonyms: '-p=--paginate -P=--no-pager',
    }),
    commands: GIT_BUILTINS,
    children: { push: GIT_PUSH },
    // Plumbing that pushes too.
    alternatives: new Map([['send-pack', ['push']], ['http-push', ['push']]]),
    open: true,
  }),
);

const PNPM = program(
  level({
    options: options({
      flags: '-r --recursive -w --workspace-root -s --silent --stream --parallel -D --save-dev -P --save-prod -O --save-optional -E --save-exact -g --global --frozen-lockfile --offline --prefer-offline --ignore-scripts -h --help -v --version',
      valued: '-C --dir -F --filter --filter-prod --reporter --loglevel --workspace-concurrency --test-pattern --changed-files-ignore-pattern',
      harmless: '-s --silent --reporter --loglevel',
      synonyms: '-r=--recursive -w=--workspace-root -s=--silent -C=--dir -F=--filter -D=--save-dev -g=--global',
    }),
    commands: 'add install i:install ci update up:update upgrade:update remove rm:remove uninstall:remove un:remove link ln:link unlink import rebuild rb:rebuild prune fetch patch patch-commit patch-remove audit list ls:list ll la outdated why licenses run run-script:run test t:test tst:test exec dlx create start publish pack store root bin setup init deploy env config c:config server doctor cat-file cat-index find-hash self-update',
    open: true,
  }),
  { optionsAnywhere: true },
);

const YARN_ROOT_COMMANDS = 'add install remove upgrade up:upgrade run exec dlx info init link unlink list outdated pack publish why workspace workspaces config cache bin dedupe explain npm plugin set patch patch-commit rebuild search stage unplug version node constraints audit autoclean check global import licenses login logout owner tag team upgrade-interactive';
const YARN_OPTIONS = options({ flags: '-s --silent --verbose --offline --frozen-lockfile --immutable --non-interactive --no-progress -h --help -v --version', valued: '--cwd --cache-folder --modules-folder --network-timeout --registry --use-yarnrc', harmless: '-s --silent --verbose --no-progress --non-interactive' });
const YARN_WORKSPACE = level({ reenter: 1 });
const YARN = program(level({ options: YARN_OPTIONS, commands: YARN_ROOT_COMMANDS, children: { workspace: YARN_WORKSPACE }, open: true }), { optionsAnywhere: true, defaultPath: ['install'] });

const BUN = program(
  level({
    options: options({ flags: '--silent -b --bun --smol --no-install -h --help -v --version --revision', valued: '--cwd -c --config --env-file -r --preload --filter -F', harmless: '--silent' }),
    commands: 'add a:add remove rm:remove install i:install update upgrade run x test build link unlink pm init create c:create publish outdated patch why audit info repl exec',
    open: true,
  }),
  { optionsAnywhere: true },
);

const PIP = program(
  level({
    options: options({
      flags: '-q --quiet -v --verbose --isolated --no-cache-dir --disable-pip-version-check --require-virtualenv --no-input --no-color --debug -V --version -h --help --no-python-version-warning',
      valued: '--python --proxy --log --cache-dir --timeout --retries --cert --client-cert --exists-action --trusted-host --use-feature --use-deprecated --root-user-action --keyring-provider --log-file',
      harmless: '-q --quiet -v --verbose --no-cache-dir --disable-pip-version-check --no-input --no-color --timeout --retries --require-virtualenv',
      synonyms: '-q=--quiet -v=--verbose -V=--version -h=--help',
    }),
    commands: 'install download uninstall freeze inspect list show check config search cache index wheel hash completion debug help lock',
  }),
  { optionsAnywhere: true },
);

const CARGO = program(
  level({
    options: options({
      flags: '-v -vv --verbose -q --quiet --frozen --locked --offline --list -V --version -h --help',
      valued: '-Z --config -C --color --explain',
      harmless: '-v -vv --verbose -q --quiet --frozen --locked --offline --color',
      synonyms: '-v=--verbose -q=--quiet -V=--version -h=--help',
    }),
    commands: 'add bench build b:build check c:check clean clippy doc d:doc fetch fix fmt generate-lockfile help info init install locate-project login logout metadata miri new owner package pkgid publish remove rm:remove report run r:run rustc rustdoc search test t:test tree uninstall update vendor verify-project version yank',
    // `[alias] t = "publish"` in .cargo/config.toml overrides the built-in alias (rust-lang/cargo#6259).
    overridable: 'b c d r t rm',
    open: true,
  }),
  { optionsAnywhere: true, plusOptions: true },
);

// docker and podman: the management commands (`container rm`) are the canonical forms; the old short ones are aliases.
const CONTAINER_COMMANDS = 'attach commit cp create diff exec export inspect kill logs ls ps:container/ls list:container/ls pause port prune rename restart rm remove:container/rm run start stats stop top unpause update wait';
const IMAGE_COMMANDS = 'build history import inspect load ls list:image/ls prune pull push rm remove:image/rm save tag';
const LEGACY_COMMANDS =
  'attach:container/attach commit:container/commit cp:container/cp create:container/create diff:container/diff exec:container/exec export:container/export kill:container/kill logs:container/logs ps:container/ls pause:container/pause port:container/port rename:container/rename restart:container/restart rm:container/rm run:container/run start:container/start stats:container/stats stop:container/stop top:container/top unpause:container/unpause update:container/update wait:container/wait build:image/build history:image/history import:image/import images:image/ls load:image/load pull:image/pull push:image/push rmi:image/rm save:image/save tag:image/tag';
/**
 * What also runs a container, so that a rule on `docker run` applies to it
 * where it may match: `create` then `start` is `run` in two steps, and
 * compose's `run`, `up`, `create` and `start` run the services' containers.
 */
const RUNS_CONTAINER: readonly string[] = ['container', 'run'];
const CONTAINER_RUN_ALTERNATIVES = new Map([['create', RUNS_CONTAINER], ['start', RUNS_CONTAINER]]);
const COMPOSE_COMMANDS = 'attach build config cp create down events exec images kill logs ls pause port ps pull push restart rm run scale start stats stop top unpause up version wait watch';
function containerCli(globals: OptionTable, management: string, open: boolean): CommandSpec {
  const container = level({ commands: CONTAINER_COMMANDS, prefix: ['container'], alternatives: CONTAINER_RUN_ALTERNATIVES });
  const image = level({ commands: IMAGE_COMMANDS, prefix: ['image'] });
  const buildx = level({ commands: 'build b:image/build bake create du inspect ls prune rm stop use version imagetools history', prefix: ['buildx'] });
  const compose = level({ commands: COMPOSE_COMMANDS, prefix: ['compose'], alternatives: new Map(['run', 'up', 'create', 'start'].map((name) => [name, RUNS_CONTAINER])), open: true });
  return program(level({ options: globals, commands: `${LEGACY_COMMANDS} ${management}`, children: { container, image, buildx, compose }, open, alternatives: CONTAINER_RUN_ALTERNATIVES }));
}
const DOCKER = containerCli(
  options({
    flags: '-D --debug --tls --tlsverify -v --version -h --help',
    valued: '-H --host -c --context --config -l --log-level --tlscacert --tlscert --tlskey',
    harmless: '-D --debug -l --log-level',
    synonyms: '-H=--host -c=--context -D=--debug -l=--log-level',
  }),
  'container image buildx builder compose context events info inspect login logout manifest network node plugin search secret service stack swarm system trust version volume config init scout debug',
  true,
);
const PODMAN = containerCli(
  options({
    flags: '-r --remote --debug -D --syslog --log-level-debug -v --version -h --help',
    valued: '-c --connection --url --identity --root --runroot --storage-driver --storage-opt --log-level --cgroup-manager --conmon --events-backend --hooks-dir --network-cmd-path --network-config-dir --runtime --runtime-flag --tmpdir --module --ssh --config --imagestore --out --volumepath --registries-conf --cdi-spec-dir',
    harmless: '--log-level --debug -D --syslog',
    synonyms: '-c=--connection -r=--remote',
  }),
  'container image buildx builder compose context events info inspect login logout manifest network pod machine generate kube play system secret volume unshare mount umount untag farm healthcheck auto-update init rmi images search version',
  false,
);

const KUBE_RESOURCES = new Map(
  Object.entries({ po: 'pods', pod: 'pods', deploy: 'deployments', deployment: 'deployments', svc: 'services', service: 'services', ns: 'namespaces', namespace: 'namespaces', cm: 'configmaps', configmap: 'configmaps', secret: 'secrets', no: 'nodes', node: 'nodes', pv: 'persistentvolumes', persistentvolume: 'persistentvolumes', pvc: 'persistentvolumeclaims', persistentvolumeclaim: 'persistentvolumeclaims', sts: 'statefulsets', statefulset: 'statefulsets', ds: 'daemonsets', daemonset: 'daemonsets', rs: 'replicasets', replicaset: 'replicasets', ing: 'ingresses', ingress: 'ingresses', job: 'jobs', cj: 'cronjobs', cronjob: 'cronjobs', sa: 'serviceaccounts', serviceaccount: 'serviceaccounts', crd: 'customresourcedefinitions', crds: 'customresourcedefinitions', customresourcedefinition: 'customresourcedefinitions' }),
);
const KUBECTL_DELETING_OPTIONS: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>> = new Map([
  ['replace', new Map([['--force', ['delete']]])],
  ['apply', new Map([['--prune', ['delete']]])],
]);
const KUBECTL_VERBS = 'get delete describe edit patch label annotate scale autoscale expose rollout set apply replace create explain wait logs';
const KUBECTL = program(
  level({
    options: options({
      flags: '--insecure-skip-tls-verify --match-server-version --warnings-as-errors -A --all-namespaces -h --help',
      valued: '-n --namespace --context --cluster --user --kubeconfig -s --server --token --as --as-group --as-uid --certificate-authority --client-certificate --client-key --cache-dir --request-timeout --tls-server-name -v --v --vmodule --log-file --username --password --profile --profile-output -o --output -l --selector',
      harmless: '-n --namespace --request-timeout -v --v -A --all-namespaces -o --output -l --selector',
      synonyms: '-n=--namespace -s=--server -o=--output -l=--selector -A=--all-namespaces',
    }),
    commands: `${KUBECTL_VERBS} run certificate cluster-info top cordon uncordon drain taint attach exec port-forward proxy cp auth debug events diff kustomize completion alpha api-resources api-versions config plugin version options`,
    // `kubectl replace --force` deletes and recreates; `kubectl apply --prune` deletes what the manifests no longer list.
    children: Object.fromEntries(listWords(KUBECTL_VERBS).map((verb) => [verb, level({ argumentAliases: KUBE_RESOURCES, optionPaths: KUBECTL_DELETING_OPTIONS.get(verb) })])),
    open: true,
  }),
  { optionsAnywhere: true },
);

const HELM = program(
  level({
    options: options({
      flags: '--debug --kube-insecure-skip-tls-verify -h --help',
      valued: '--kube-context --kubeconfig -n --namespace --registry-config --repository-config --repository-cache --burst-limit --kube-apiserver --kube-as-user --kube-as-group --kube-ca-file --kube-token --kube-tls-server-name --qps --content-cache',
      harmless: '--debug -n --namespace',
      synonyms: '-n=--namespace',
    }),
    commands: 'completion create dependency dep:dependency dependencies:dependency env get help history hist:history install lint list ls:list package plugin pull fetch:pull push registry repo rollback search show inspect:show status template test uninstall un:uninstall delete:uninstall del:uninstall upgrade verify version',
    open: true,
  }),
  { optionsAnywhere: true },
);

const TERRAFORM = program(
  level({
    options: options({ flags: '-help -h --help -version -v --version', valued: '-chdir', harmless: '' }),
    commands: 'init validate plan apply destroy console fmt force-unlock get graph import login logout metadata output providers refresh show state taint test untaint version workspace modules stacks',
    children: { apply: level({ optionPaths: new Map([['-destroy', ['destroy']], ['--destroy', ['destroy']]]) }) },
  }),
);

const GH_PR = level({ commands: 'checkout co:pr/checkout checks close comment create new:pr/create diff edit list ls:pr/list merge ready reopen review status view lock unlock update-branch revert', prefix: ['pr'] });
const GH_REPO = level({ commands: 'archive autolink clone create new:repo/create delete deploy-key edit fork gitignore license list ls:repo/list rename set-default sync unarchive view', prefix: ['repo'] });
const GH_RELEASE = level({ commands: 'create new:release/create delete delete-asset download edit list ls:release/list upload view verify verify-asset', prefix: ['release'] });
const GH_ISSUE = level({ commands: 'close comment create new:issue/create delete develop edit list ls:issue/list lock pin reopen status transfer unlock unpin view', prefix: ['issue'] });
const GH = program(
  level({
    options: options({ flags: '-h --help --version', valued: '-R --repo --hostname', harmless: '', synonyms: '-R=--repo' }),
    commands: 'agent-task alias api attestation auth browse cache codespace completion config copilot extension ext:extension gist gpg-key issue label org pr preview project release repo ruleset run search secret ssh-key status variable workflow',
    children: { pr: GH_PR, repo: GH_REPO, release: GH_RELEASE, issue: GH_ISSUE },
    open: true,
  }),
  { optionsAnywhere: true },
);

const MAKE = program(
  level({
    options: options({
      flags: '-B --always-make -d -e --environment-overrides -i --ignore-errors -k --keep-going -n --dry-run --just-print --recon -q --question -r --no-builtin-rules -R --no-builtin-variables -s --silent --quiet -S --no-keep-going --stop -t --touch -w --print-directory --no-print-directory --trace -h --help -v --version',
      valued: '-C --directory -f --file --makefile -I --include-dir -o --old-file --assume-old -W --what-if --new-file --assume-new -j --jobs -l --load-average -O --output-sync',
      harmless: '-B --always-make -k --keep-going -n --dry-run --just-print -s --silent --quiet -S -w --print-directory --no-print-directory -j --jobs -l --load-average -O --output-sync --trace',
      synonyms: '-C=--directory -f=--file -j=--jobs -k=--keep-going -n=--dry-run -s=--silent',
    }),
  }),
  { optionsAnywhere: true },
);

const AWS_S3 = level({ commands: 'cp ls mb mv presign rb rm sync website', prefix: ['s3'] });
const AWS = program(
  level({
    options: options({
      flags: '--debug --no-paginate --no-verify-ssl --no-sign-request --no-cli-pager --cli-auto-prompt --no-cli-auto-prompt -h --help --version',
      valued: '--profile --region --output --endpoint-url --query --color --ca-bundle --cli-read-timeout --cli-connect-timeout --cli-binary-format',
      harmless: '--debug --no-paginate --no-cli-pager --output --query --color --region --cli-read-timeout --cli-connect-timeout',
    }),
    commands: 's3 s3api ec2 iam sts lambda cloudformation dynamodb ecr ecs eks logs rds sqs sns ssm secretsmanager kms route53 cloudwatch configure cloudfront apigateway elbv2 autoscaling organizations sso codebuild codepipeline events glue athena kinesis firehose stepfunctions sagemaker bedrock help',
    children: { s3: AWS_S3 },
    open: true,
  }),
  { optionsAnywhere: true },
);

const GCLOUD_ROOT = 'compute container projects iam storage functions run sql app auth config components kms pubsub secrets services dns deployment-manager logging builds artifacts organizations billing info init help';
const GCLOUD_RELEASE = level({ reenter: 0 });
const GCLOUD = program(
  level({
    options: options({
      flags: '-q --quiet --log-http --user-output-enabled -h --help --version',
      valued: '--project --account --configuration --verbosity --format --impersonate-service-account --billing-project --flags-file --flatten --trace-token',
      harmless: '-q --quiet --verbosity --format --flatten --log-http --user-output-enabled',
    }),
    commands: `${GCLOUD_ROOT} alpha beta preview`,
    children: { alpha: GCLOUD_RELEASE, beta: GCLOUD_RELEASE, preview: GCLOUD_RELEASE },
  }),
  { optionsAnywhere: true },
);


const SPECS: ReadonlyMap<string, CommandSpec> = new Map([
  ['git', GIT],
  ['pnpm', PNPM],
  ['yarn', YARN],
  ['bun', BUN],
  ['pip', PIP],
  ['cargo', CARGO],
  ['docker', DOCKER],
  ['podman', PODMAN],
  ['kubectl', KUBECTL],
  ['helm', HELM],
  ['terraform', TERRAFORM],
  ['tofu', TERRAFORM],
  ['gh', GH],
  ['make', MAKE],
  ['gmake', MAKE],
  ['aws', AWS],
  ['gcloud', GCLOUD],
]);

/**
 * The grammar toolgate knows for a program (by its normalised name), or
 * undefined: then a rule's words are matched as plain arguments.
 *
 * @example
 * commandSpec('docker')?.root.subcommands.get('rmi')?.path // ['image', 'rm']
 */
export function commandSpec(name: string): CommandSpec | undefined {
  const family = programFamily(name);
  return commandModel(family)?.grammar ?? SPECS.get(family);
}

/**
 * The program a name may be, for names that only carry a version (`pip3.12`
 * is `pip`) or differ in case (`GIT` runs git on a case-insensitive
 * filesystem): block and ask rules on `pip` and `git` apply to them.
 *
 * @example
 * programFamily('pip3') // 'pip'
 */
export function programFamily(name: string): string {
  // On a case-insensitive filesystem (macOS) `GIT` runs git.
  const lower = name.toLowerCase();
  if (lower.startsWith('pip') && /^pip[0-9.]*$/.test(lower)) return 'pip';
  return lower;
}
