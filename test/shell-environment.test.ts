/**
 * Issue 11, class 5: secrets in the environment. The process running
 * toolgate holds an API key (as an agent does); whatever the shell tool runs,
 * with the OS sandbox on or off, the key must not come back in the output.
 * The commands run for real, through the gate in approve_all mode (an ask
 * counts as approved, so only what the tool itself does stands between the
 * key and the output).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../src/config/load-policy-file.ts';
import { createBuiltinTools } from '../src/runtime/create-builtin-tools.ts';
import { createRuntimeGate } from '../src/runtime/create-runtime-gate.ts';
import { SANDBOX_PATH } from '../src/sandbox/bwrap-sandbox.ts';
import type { BuiltinTool } from '../src/tools/builtin-tool.ts';
import { shellEnvironment, trustedPath } from '../src/tools/shell/shell-environment.ts';
import { createKernelPathsFixture, type KernelPathsFixture } from './kernel-paths-fixture.ts';
import { requireWorkingBwrap } from './require-bwrap.ts';

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

const saved = new Map<string, string | undefined>();
const fixtures: KernelPathsFixture[] = [];

beforeAll(() => {
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
  for (const fixture of fixtures) fixture.cleanup();
});

/** The shell tool as toolgate builds it, through a gate in approve_all mode: every probe runs, whatever the rules say. */
async function shellRunner(options: { sandboxed: boolean }) {
  const fixture = await createKernelPathsFixture({ sandboxed: options.sandboxed, mode: 'approve_all' });
  fixtures.push(fixture);
  return async (command: string): Promise<{ ran: boolean; output: string }> => {
    const outcome = await fixture.call('shell', { command });
    if (!outcome.ran) return { ran: false, output: outcome.reason };
    const result = outcome.result as { stdout: string; stderr: string };
    return { ran: true, output: `${result.stdout}\n${result.stderr}` };
  };
}

describe('the environment a shell command sees (sandbox off: the policy layer alone)', () => {
  let run: Awaited<ReturnType<typeof shellRunner>>;
  beforeAll(async () => {
    run = await shellRunner({ sandboxed: false });
  });

  it.each(PROBES)('%s prints no secret', async (command) => {
    const { ran, output } = await run(command);
    expect(ran).toBe(true);
    expect(output).not.toContain(SECRET);
  });

  it('keeps what programs need: PATH, HOME and the locale', async () => {
    const { output } = await run('echo "path=$PATH"; echo "home=$HOME"; command -v ls');
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
  let run: Awaited<ReturnType<typeof shellRunner>>;
  beforeAll(async () => {
    await requireWorkingBwrap();
    run = await shellRunner({ sandboxed: true });
  });

  it.each(PROBES)('%s prints no secret', async (command) => {
    const { ran, output } = await run(command);
    expect(ran).toBe(true);
    expect(output).not.toContain(SECRET);
  });

  it('ps axeww, once approved, sees only the sandbox\'s own processes', async () => {
    const { ran, output } = await run('ps axeww');
    expect(ran).toBe(true);
    expect(output).toContain('ps axeww');
    expect(output).not.toContain(SECRET);
  });
});

describe('other processes\' environments (sandbox off)', () => {
  it.each(['ps eww', 'ps auxe', 'ps -E'])('%s asks even where a rule allows ps, saying why', async (command) => {
    const fixture = await createKernelPathsFixture({ sandboxed: false });
    fixtures.push(fixture);
    const verdict = await fixture.decide('shell', { command });
    expect(verdict).toMatchObject({ decision: 'ask', reason: expect.stringMatching(/shows the environment of every process/) });
    expect(await fixture.decide('shell', { command: 'ps aux' })).toMatchObject({ decision: 'allow' });
  });
});

describe('shellEnvironment', () => {
  it('keeps only the allow-listed names and the locale categories', () => {
    const environment = shellEnvironment({ PATH: '/usr/bin', HOME: '/home/me', LC_ALL: 'C', LC_CTYPE: 'C.UTF-8', TERM: 'xterm', OPENAI_API_KEY: 'x', LD_PRELOAD: '/tmp/x.so', BASH_ENV: '/tmp/hook', NODE_OPTIONS: '--require /tmp/x', LC_EVIL_PATH: 'x' });
    expect(environment).toEqual({ PATH: '/usr/bin', HOME: '/home/me', LC_ALL: 'C', LC_CTYPE: 'C.UTF-8', TERM: 'xterm' });
  });

  it('drops a value written like an exported bash function', () => {
    expect(shellEnvironment({ TERM: '() { echo hooked; }', LANG: 'C' })).toEqual({ LANG: 'C', PATH: SANDBOX_PATH });
  });

  it('drops PATH entries that are empty, relative or inside a zone, symlinked or not; none left gives the system PATH', () => {
    const zone = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-path-zone-')));
    const link = `${zone}-link`;
    symlinkSync(path.join(zone, 'bin'), link);
    mkdirSync(path.join(zone, 'bin'));
    try {
      const value = ['', '.', 'bin', './node_modules/.bin', `${zone}/nm`, zone, `${zone}/../${path.basename(zone)}/bin`, link, '/usr/local/bin', '/usr/bin', '/bin'].join(':');
      expect(trustedPath({ value, zoneRoots: [zone] })).toBe('/usr/local/bin:/usr/bin:/bin');
      expect(trustedPath({ value: `:.:${zone}/x`, zoneRoots: [zone] })).toBe(SANDBOX_PATH);
      expect(trustedPath({ value: undefined, zoneRoots: [] })).toBe(SANDBOX_PATH);
      expect(shellEnvironment({ PATH: `${zone}/nm:/usr/bin` }, { zoneRoots: [zone] })).toEqual({ PATH: '/usr/bin' });
    } finally {
      rmSync(zone, { recursive: true, force: true });
      rmSync(link, { force: true });
    }
  });
});

describe('a program planted in a zone does not shadow an allowed command (sandbox off)', () => {
  let savedPath: string | undefined;
  let root: string;
  beforeAll(() => {
    savedPath = process.env.PATH;
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-path-shadow-')));
  });
  afterAll(() => {
    process.env.PATH = savedPath;
    rmSync(root, { recursive: true, force: true });
  });

  it('cat runs the system cat, not ws/nm/cat, whatever the parent PATH says', async () => {
    const ws = path.join(root, 'ws');
    mkdirSync(path.join(ws, 'nm'), { recursive: true });
    writeFileSync(path.join(ws, 'README.md'), 'readme\n');
    const marker = path.join(root, 'PWNED');
    for (const directory of [path.join(ws, 'nm'), ws]) {
      writeFileSync(path.join(directory, 'cat'), `#!/bin/sh\ntouch ${marker}\necho planted\n`);
      chmodSync(path.join(directory, 'cat'), 0o755);
    }
    writeFileSync(path.join(root, 'toolgate.yaml'), ['fs:', '  zones:', '    - { name: ws, root: ./ws, mode: rw, approval: { read: allow, write: allow, delete: allow } }', 'shell:', '  default: ask', '  rules:', '    - { match: cat, decision: allow }', 'sandbox: { os: off }', ''].join('\n'));
    // The parent's PATH names the zone's directory first, then the working directory (empty and relative entries).
    process.env.PATH = `${path.join(ws, 'nm')}::.:nm:${savedPath}`;
    const loaded = await loadPolicyFile(path.join(root, 'toolgate.yaml'));
    const { tools } = await createBuiltinTools({ loaded, cwd: root });
    const gate = createRuntimeGate({ loaded, tools, mode: 'auto_deny' });
    const shell = (tools as BuiltinTool[]).find((tool) => tool.name === 'shell')!;
    const authorization = await gate.authorize({ tool: 'shell', args: { command: 'cat README.md' }, callId: 'path-1' }, { sessionId: 'path' });
    expect(authorization.decision).toBe('allow');
    const result = (await shell.execute({ command: 'cat README.md' } as never, { authorization: { decision: 'allow' } } as never)) as { stdout: string };
    expect(result.stdout).toBe('readme\n');
    expect(existsSync(marker)).toBe(false);
  });
});
