import { describe, expect, it } from 'vitest';
import { analyzeCommand } from './analyze-command.ts';
import { networkUse } from './network-commands.ts';

const use = (line: string) => {
  const command = analyzeCommand(line).commands[0]!;
  return networkUse({ name: command.name!, words: command.words });
};

describe('networkUse for git (the subcommand table\'s network column, found by gitSubcommand)', () => {
  it.each(['git fetch', 'git -C lib pull', 'git --git-dir=x push origin main', 'git -c a.b=c ls-remote origin', 'git send-email x.patch', 'git request-pull a b'])('%s uses the network', (line) => {
    expect(use(line)).toMatch(/uses the network/);
  });

  it.each(['git clone https://example.com/x.git', 'git clone host:x', 'git remote show origin', 'git submodule update', 'git archive --remote=x HEAD', 'git lfs fetch'])('%s uses the network (by its arguments)', (line) => {
    expect(use(line)).toMatch(/uses the network/);
  });

  it.each(['git status', 'git -C fetch status', 'git clone ../local copy', 'git remote -v', 'git --help fetch', 'git --version', 'git'])('%s does not', (line) => {
    expect(use(line)).toBeUndefined();
  });

  it('a subcommand only known at run time might', () => {
    expect(use('git "$cmd" origin')).toMatch(/only known at run time/);
  });
});

describe('networkUse for pytest: --pastebin uploads the session', () => {
  it.each(['pytest --pastebin=all', 'py.test --pastebin failed tests/', 'python3 -m pytest --pastebin=failed', 'pytest --paste=all'])('%s uses the network', (line) => {
    expect(use(line)).toMatch(/network/);
  });

  it.each(['pytest', 'pytest -x tests/', 'python -m pytest -k paste', 'pytest --pdb', 'pytest "$file"'])('%s does not', (line) => {
    expect(use(line)).toBeUndefined();
  });
});

describe('networkUse for package managers: an option before the subcommand may take a word as its value', () => {
  it.each(['npm --editor ls install', 'npm --foo ls ci', 'pip --log list install x', 'python3 -m pip --log list install x', 'pnpm --dir ls add x'])('%s uses the network', (line) => {
    expect(use(line)).toMatch(/uses the network/);
  });

  it.each(['npm -g ls', 'npm --json ls', 'npm --loglevel=warn ls', 'npm -g ls --depth 0', 'pip -q list', 'npm --prefix ./x test'])('%s does not', (line) => {
    expect(use(line)).toBeUndefined();
  });
});

describe('networkUse for npm: what talks to the registry, by name, alias or abbreviation', () => {
  it.each([
    'npm whoami', 'npm whoami --registry=http://127.0.0.1:9/', 'npm who', 'npm whoa', 'npm profile get', 'npm token list', 'npm login', 'npm unstar x', 'npm undeprecate x', 'npm trust list x',
    'npm docs', 'npm home x', 'npm bugs', 'npm issues', 'npm repo', 'npm diff', 'npm dedupe', 'npm ddp', 'npm link', 'npm exec x', 'npm x y', 'npm i', 'npm isntall', 'npm installTest', 'npm pub',
    'npm fund lodash', 'npm pack lodash', 'npm init vite', 'npm create vite', 'npm cache add lodash', 'npm te',
  ])('%s uses the network', (line) => {
    expect(use(line)).toMatch(/uses the network/);
  });

  it.each(['npm ls', 'npm test', 'npm t', 'npm run build', 'npm config get registry', 'npm sbom', 'npm explain x', 'npm fund', 'npm pack', 'npm init -y', 'npm cache ls', 'npm cache verify', 'npm prefix', 'npm help install', 'npm --version'])(
    '%s does not',
    (line) => {
      expect(use(line)).toBeUndefined();
    },
  );
});
