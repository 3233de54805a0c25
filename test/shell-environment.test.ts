/**
 * Issue 11, class 5: secrets in the environment. The process running
 * toolgate holds an API key (as an agent does); whatever the shell tool runs,
 * with the OS sandbox on or off, the key must not come back in the output.
 * The commands run for real, through the gate in approve_all mode (an ask
 * counts as approved, so only what the tool itself does stands between the
 * key and the output).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGate } from '../src/core/gate.ts';
import { createBwrapWrapper } from '../src/sandbox/bwrap-sandbox.ts';
import { sandboxProfileFromPolicy } from '../src/tools/shell/sandbox-profile-from-policy.ts';
import { createShellTool } from '../src/tools/shell/create-shell-tool.ts';
import { shellEnvironment } from '../src/tools/shell/shell-environment.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';
import { createSandboxFixture, type SandboxFixture } from './sandbox-fixture.ts';

const SECRET = 'sk-test-toolgate-env-0123456789abcdef';
const VARIABLES = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'TOOLGATE_TEST_SECRET'] as const;

/** Commands that print the environment, or one variable of it, each its own way. */
const PROBES = [
  'env',
  'printenv',
  'printenv OPENAI_API_KEY',
  'echo $OPENAI_API_KEY',
  'echo "${ANTHROPIC_API_KEY}${AWS_SECRET_ACCESS_KEY}${GITHUB_TOKEN}"',
  'export -p',
  'set',
  'declare -x',
  'tr "\\0" "\\n" < /proc/$$/environ',
  'bash -c "env"',
  'sh -c \'echo $TOOLGATE_TEST_SECRET\'',
  'env -0 | tr "\\0" "\\n"',
  'compgen -v | while read -r name; do echo "$name=${!name}"; done',
] as const;

let fixture: SandboxFixture;
const saved = new Map<string, string | undefined>();

beforeAll(async () => {
  fixture = await createSandboxFixture();
  for (const name of VARIABLES) {
    saved.set(name, process.env[name]);
    process.env[name] = `${SECRET}-${name}`;
  }
});

afterAll(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  fixture.cleanup();
});

async function runThroughGate(options: { command: string; sandboxed: boolean }): Promise<{ ran: boolean; output: string }> {
  const profile = sandboxProfileFromPolicy({ policy: fixture.policy, policyFile: fixture.policyFile, zones: fixture.zones });
  const shell = createShellTool({ policy: fixture.policy, zones: fixture.zones, cwd: fixture.root, ...(options.sandboxed ? { wrapCommand: createBwrapWrapper({ profile }) } : {}) });
  const gate = createGate({ policy: fixture.policy, tools: [shell], mode: 'approve_all' });
  const authorization = await gate.authorize({ tool: 'shell', args: { command: options.command }, callId: 'environment' }, { sessionId: 'environment' });
  if (authorization.decision !== 'allow' && authorization.decision !== 'approved') return { ran: false, output: authorization.reason };
  const result = await shell.execute(authorization.args as { command: string });
  return { ran: true, output: `${result.stdout}\n${result.stderr}` };
}

describe('the environment a shell command sees (sandbox off: the policy layer alone)', () => {
  it.each(PROBES)('%s prints no secret', async (command) => {
    const { ran, output } = await runThroughGate({ command, sandboxed: false });
    expect(ran).toBe(true);
    expect(output).not.toContain(SECRET);
  });

  it('keeps what programs need: PATH, HOME and the locale', async () => {
    const { output } = await runThroughGate({ command: 'echo "path=$PATH"; echo "home=$HOME"; command -v ls', sandboxed: false });
    expect(output).toContain(`path=${process.env.PATH}`);
    expect(output).toContain(`home=${process.env.HOME}`);
    expect(output).toMatch(/\/ls\n/);
  });

  it('the secret really is in the parent environment (the probes above can fail)', () => {
    expect(process.env.OPENAI_API_KEY).toContain(SECRET);
    expect(shellEnvironment()).not.toHaveProperty('OPENAI_API_KEY');
  });
});

describe('the environment a shell command sees (bubblewrap sandbox on)', () => {
  beforeAll(requireWorkingBwrap);

  it.each(PROBES)('%s prints no secret', async (command) => {
    const { ran, output } = await runThroughGate({ command, sandboxed: true });
    expect(ran).toBe(true);
    expect(output).not.toContain(SECRET);
  });
});

describe('shellEnvironment', () => {
  it('keeps only the allow-listed names and the locale categories', () => {
    const environment = shellEnvironment({ PATH: '/usr/bin', HOME: '/home/me', LC_ALL: 'C', LC_CTYPE: 'C.UTF-8', TERM: 'xterm', OPENAI_API_KEY: 'x', LD_PRELOAD: '/tmp/x.so', BASH_ENV: '/tmp/hook', NODE_OPTIONS: '--require /tmp/x', LC_EVIL_PATH: 'x' });
    expect(environment).toEqual({ PATH: '/usr/bin', HOME: '/home/me', LC_ALL: 'C', LC_CTYPE: 'C.UTF-8', TERM: 'xterm' });
  });

  it('drops a value written like an exported bash function', () => {
    expect(shellEnvironment({ TERM: '() { echo hooked; }', LANG: 'C' })).toEqual({ LANG: 'C' });
  });
});
