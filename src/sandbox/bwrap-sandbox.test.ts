import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import type { SandboxZone } from './sandbox-zone.ts';
import { requireWorkingBwrap } from '../../test/require-bwrap.ts';
import { createSandboxFixture, type SandboxFixture } from '../../test/sandbox-fixture.ts';
import { wrapWithBwrap, type HostPathKind } from './bwrap-sandbox.ts';
import { deriveSandboxProfile } from './derive-sandbox-profile.ts';
import { findVcsMetadata } from './find-vcs-metadata.ts';
import { runCommand } from './run-command.ts';
import { sandboxProfileFromPolicy } from '../tools/shell/sandbox-profile-from-policy.ts';
import type { SandboxProfile } from './sandbox-profile.ts';

function zone(options: { name: string; root: string; mode: 'ro' | 'rw'; suffixes?: string[] }): SandboxZone {
  return { name: options.name, root: options.root, mode: options.mode, suffixes: options.suffixes, approval: { read: 'allow', write: 'ask', delete: 'ask' } };
}

/** A host where every listed path is a directory, /bin is a link to usr/bin, and nothing else exists. */
function fakeHost(directories: string[], files: string[] = []): (absolute: string) => HostPathKind {
  return (absolute) => {
    if (absolute === '/bin') return { kind: 'symlink', target: 'usr/bin', resolved: '/usr/bin' };
    if (directories.includes(absolute)) return { kind: 'directory' };
    if (files.includes(absolute)) return { kind: 'file' };
    return { kind: 'missing' };
  };
}

describe('wrapWithBwrap: the command line', () => {
  const profile = deriveSandboxProfile({
    zones: [zone({ name: 'ws', root: '/work/ws', mode: 'rw' }), zone({ name: 'docs', root: '/work/ws/docs', mode: 'ro' }), zone({ name: 'notes', root: '/work/notes', mode: 'rw', suffixes: ['.txt'] })],
    network: false,
    homeDirectory: '/home/me',
    hidden: ['/work/ws/toolgate.yaml'],
  });
  const inspectPath = fakeHost(['/usr', '/work/ws', '/work/ws/docs', '/work/notes', '/work/ws/.ssh'], ['/work/ws/toolgate.yaml']);
  const wrapped = wrapWithBwrap({ profile, command: 'make', args: ['test', '--', 'x'], cwd: '/work/ws', inspectPath, environment: { PATH: '/evil', HOME: '/home/me', LANG: 'C.UTF-8', OPENAI_API_KEY: 'sk-secret' } });
  const args = wrapped.args;
  const indexOf = (...sequence: string[]): number => args.findIndex((_, index) => sequence.every((part, offset) => args[index + offset] === part));

  it('unshares every namespace, drops capabilities and nested user namespaces, and ends with the command', () => {
    expect(wrapped.command).toBe('bwrap');
    expect(args.slice(0, 1)).toEqual(['--unshare-all']);
    expect(args).not.toContain('--share-net');
    for (const flag of ['--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--clearenv']) expect(args).toContain(flag);
    expect(indexOf('--cap-drop', 'ALL')).toBeGreaterThan(-1);
    expect(args.slice(-7)).toEqual(['--chdir', '/work/ws', '--', 'make', 'test', '--', 'x']);
  });

  it('clears the environment to the allow-list with a system PATH and a HOME that exists inside', () => {
    expect(indexOf('--setenv', 'PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin')).toBeGreaterThan(-1);
    expect(indexOf('--setenv', 'LANG', 'C.UTF-8')).toBeGreaterThan(-1);
    expect(indexOf('--setenv', 'HOME', '/tmp')).toBeGreaterThan(-1);
    expect(args.join(' ')).not.toContain('sk-secret');
    expect(args.join(' ')).not.toContain('/evil');
  });

  it('mounts shallow before deep, so a ro zone inside a rw zone stays read-only', () => {
    const workspace = indexOf('--bind', '/work/ws', '/work/ws');
    const docs = indexOf('--ro-bind-try', '/work/ws/docs', '/work/ws/docs');
    expect(workspace).toBeGreaterThan(-1);
    expect(docs).toBeGreaterThan(workspace);
  });

  it('makes a suffix-limited rw zone read-only, because bwrap cannot limit by suffix', () => {
    expect(indexOf('--ro-bind-try', '/work/notes', '/work/notes')).toBeGreaterThan(-1);
    expect(indexOf('--bind', '/work/notes', '/work/notes')).toBe(-1);
  });

  it('keeps a system symlink as a link, and skips nothing that exists', () => {
    expect(indexOf('--symlink', 'usr/bin', '/bin')).toBeGreaterThan(-1);
    expect(indexOf('--ro-bind-try', '/usr', '/usr')).toBeGreaterThan(-1);
  });

  it('binds nothing for a protected path inside a zone that is a symlink, or is reached through one', () => {
    const withLinks = deriveSandboxProfile({ zones: [zone({ name: 'ws', root: '/work/ws', mode: 'rw' })], network: false, homeDirectory: '', vcsMetadata: { paths: ['/work/ws/up/.git', '/work/ws/via/sub/.git'] } });
    const inspect = (absolute: string): HostPathKind => {
      if (absolute === '/work/ws/up/.git') return { kind: 'symlink', target: '../../..', resolved: '/' };
      if (absolute === '/work/ws/via/sub/.git') return { kind: 'directory', resolved: '/elsewhere/sub/.git' };
      return fakeHost(['/usr', '/work/ws'])(absolute);
    };
    const linkArgs = wrapWithBwrap({ profile: withLinks, command: 'true', args: [], cwd: '/work/ws', inspectPath: inspect }).args;
    expect(linkArgs).not.toContain('/work/ws/up/.git');
    expect(linkArgs).not.toContain('/work/ws/via/sub/.git');
    // The zone's own .git, a plain directory or missing, is still made read-only.
    expect(linkArgs.join(' ')).toContain('--ro-bind-try /work/ws/.git /work/ws/.git');
  });

  it('masks hidden paths that exist inside the sandbox, and makes the masks read-only after deeper mounts', () => {
    const mask = indexOf('--tmpfs', '/work/ws/.ssh');
    expect(mask).toBeGreaterThan(indexOf('--bind', '/work/ws', '/work/ws'));
    expect(indexOf('--remount-ro', '/work/ws/.ssh')).toBeGreaterThan(mask);
    expect(indexOf('--ro-bind', '/dev/null', '/work/ws/toolgate.yaml')).toBeGreaterThan(-1);
    // Missing credential paths need no mask.
    expect(args).not.toContain('/work/ws/.aws');
  });

  it('puts a fresh /tmp, /proc and /dev in place and makes the skeleton root read-only', () => {
    expect(indexOf('--tmpfs', '/tmp')).toBeGreaterThan(-1);
    expect(indexOf('--proc', '/proc')).toBeGreaterThan(indexOf('--bind', '/work/ws', '/work/ws'));
    expect(indexOf('--dev', '/dev')).toBeGreaterThan(-1);
    expect(indexOf('--remount-ro', '/')).toBe(args.indexOf('--chdir') - 2);
  });

  it('replaces a zone on / with fresh /proc and /dev mounted after it', () => {
    const everything = deriveSandboxProfile({ zones: [zone({ name: 'all', root: '/', mode: 'ro' })], network: false, homeDirectory: '' });
    const whole = wrapWithBwrap({ profile: everything, command: 'true', args: [], cwd: '/', inspectPath: fakeHost(['/']) }).args;
    expect(whole.indexOf('--proc')).toBeGreaterThan(whole.indexOf('/'));
  });

  it('shares the network only when the policy allows all of it', () => {
    const open = deriveSandboxProfile({ zones: [zone({ name: 'ws', root: '/work/ws', mode: 'rw' })], network: true, homeDirectory: '' });
    expect(wrapWithBwrap({ profile: open, command: 'true', args: [], cwd: '/work/ws', inspectPath }).args).toContain('--share-net');
    const domains = deriveSandboxProfile({ zones: [zone({ name: 'ws', root: '/work/ws', mode: 'rw' })], network: { allowDomains: ['example.com'] }, homeDirectory: '' });
    expect(wrapWithBwrap({ profile: domains, command: 'true', args: [], cwd: '/work/ws', inspectPath }).args).not.toContain('--share-net');
  });

  it('refuses a working directory that would not exist inside the sandbox', () => {
    expect(() => wrapWithBwrap({ profile, command: 'ls', args: [], cwd: '/home/me', inspectPath })).toThrow(ToolgateError);
    try {
      wrapWithBwrap({ profile, command: 'ls', args: [], cwd: '/home/me', inspectPath });
    } catch (error) {
      expect((error as ToolgateError).code).toBe('SANDBOX_PROFILE_INVALID');
    }
    expect(() => wrapWithBwrap({ profile, command: 'ls', args: [], cwd: 'relative', inspectPath })).toThrow(/not absolute/);
  });
});

describe('wrapWithBwrap: really confined (bwrap, no policy layer)', () => {
  let fixture: SandboxFixture;
  let profile: SandboxProfile;
  let server: Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    await requireWorkingBwrap();
    fixture = await createSandboxFixture();
    profile = sandboxProfileFromPolicy({ policy: fixture.policy, policyFile: fixture.policyFile, zones: fixture.zones });
    server = createServer((_request, response) => response.end('toolgate-network-reached'));
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    fixture?.cleanup();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const sandboxed = (options: { script: string; profile?: SandboxProfile; cwd?: string; environment?: NodeJS.ProcessEnv; timeoutMs?: number }) =>
    runCommand({
      ...wrapWithBwrap({ profile: options.profile ?? profile, command: '/bin/sh', args: ['-c', options.script], cwd: options.cwd ?? fixture.workspace, environment: options.environment ?? process.env }),
      timeoutMs: options.timeoutMs ?? 20_000,
    });
  const connect = () => `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;

  it('reaches the network when the policy enables it, and not when it lists domains only', async () => {
    const open = sandboxProfileFromPolicy({ policy: fixture.policy, policyFile: fixture.policyFile, zones: fixture.zones });
    const withNetwork: SandboxProfile = { ...open, network: { mode: 'all' } };
    const before = connections;
    const reached = await runCommand({ ...wrapWithBwrap({ profile: withNetwork, command: '/bin/bash', args: ['-c', connect()], cwd: fixture.workspace }), timeoutMs: 20_000 });
    expect(reached.stdout, reached.stderr).toContain('toolgate-network-reached');
    expect(connections).toBe(before + 1);

    const domainsOnly: SandboxProfile = { ...open, network: { mode: 'domains', allowDomains: ['localhost', '127.0.0.1'] } };
    const blocked = await runCommand({ ...wrapWithBwrap({ profile: domainsOnly, command: '/bin/bash', args: ['-c', connect()], cwd: fixture.workspace }), timeoutMs: 20_000 });
    expect(blocked.exitCode).not.toBe(0);
    expect(blocked.stdout).not.toContain('toolgate-network-reached');
    expect(connections).toBe(before + 1);
  });

  it('runs without capabilities, cannot remount its read-only mounts, and cannot make new user namespaces', async () => {
    const capabilities = await sandboxed({ script: 'grep -E "^Cap(Eff|Prm|Bnd)" /proc/self/status' });
    expect(capabilities.stdout).toMatch(/CapEff:\s+0+\n/);
    expect(capabilities.stdout).toMatch(/CapBnd:\s+0+\n/);
    const remount = await sandboxed({ script: `mount -o remount,rw ${fixture.docs} && echo remounted; echo x > ${fixture.docs}/${fixture.probeName} && echo wrote` });
    expect(remount.stdout).not.toContain('remounted');
    expect(remount.stdout).not.toContain('wrote');
    expect(existsSync(path.join(fixture.docs, fixture.probeName))).toBe(false);
    const nested = await sandboxed({ script: 'unshare -U -r true && echo nested' });
    expect(nested.stdout).not.toContain('nested');
  });

  it('clears the environment except the allow-list', async () => {
    const result = await sandboxed({ script: 'env', environment: { ...process.env, TOOLGATE_TEST_API_KEY: 'sk-must-not-leak', LANG: 'C.UTF-8' } });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('sk-must-not-leak');
    expect(result.stdout).toContain('LANG=C.UTF-8');
    expect(result.stdout).toContain('PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
  });

  it('sees only its own processes and a read-only root; /tmp is private', async () => {
    const result = await sandboxed({ script: `ls /proc | grep -c '^[0-9]'; touch /new-file && echo root-writable; echo t > /tmp/${fixture.probeName} && cat /tmp/${fixture.probeName}` });
    const [count] = result.stdout.split('\n');
    expect(Number(count)).toBeLessThan(10);
    expect(result.stdout).not.toContain('root-writable');
    expect(result.stdout).toContain('t\n');
    expect(existsSync(`/tmp/${fixture.probeName}`)).toBe(false);
  });

  it('does not see the host home, /root, /var or the rest of /etc', async () => {
    const result = await sandboxed({ script: 'ls -A /root /home /var /run 2>&1; cat /etc/shadow /etc/hostname 2>&1; ls /etc' });
    expect(result.stdout).toMatch(/\/root.*No such file/);
    expect(result.stdout).toMatch(/\/var.*No such file/);
    expect(result.stdout).not.toContain('root:');
    expect(result.stdout).not.toMatch(/^(npmrc|pip\.conf|shadow)$/m);
  });

  it('hides credentials and toolgate files inside a zone that contains them', async () => {
    const projectFixture = await createSandboxFixture();
    try {
      mkdirSync(path.join(projectFixture.root, '.toolgate'), { recursive: true });
      writeFileSync(path.join(projectFixture.root, '.toolgate', 'approvals.json'), '{}');
      const homeZone = zone({ name: 'project', root: projectFixture.root, mode: 'rw' });
      const wide = sandboxProfileFromPolicy({ policy: projectFixture.policy, policyFile: projectFixture.policyFile, zones: [homeZone], homeDirectory: path.join(projectFixture.root, 'home') });
      const result = await runCommand({
        ...wrapWithBwrap({
          profile: wide,
          command: '/bin/sh',
          args: ['-c', `cat home/.ssh/id_ed25519; cat toolgate.yaml; echo '{"x":1}' > .toolgate/approvals.json; cat outside/secret.txt`],
          cwd: projectFixture.root,
        }),
        timeoutMs: 20_000,
      });
      expect(result.stdout).not.toContain(projectFixture.sshKeyText);
      expect(result.stdout).not.toContain('approve_all');
      expect(readFileSync(path.join(projectFixture.root, '.toolgate', 'approvals.json'), 'utf8')).toBe('{}');
      // The zone covers outside/ here, so its file is readable: hidden means the named paths only.
      expect(result.stdout).toContain(projectFixture.secretText);
    } finally {
      projectFixture.cleanup();
    }
  });

  it('shows nothing of the host through a .git symlink in a zone, whether it leads to / or out of the zones', async () => {
    // bwrap placed a read-only mount of a symlinked path where the link leads *inside* the sandbox: `.git -> ../../..` put the host's / over its root.
    const linked = path.join(fixture.workspace, 'linked');
    const out = path.join(fixture.workspace, 'out');
    mkdirSync(linked, { recursive: true });
    mkdirSync(out, { recursive: true });
    symlinkSync(path.relative(linked, '/'), path.join(linked, '.git'));
    symlinkSync(path.relative(out, fixture.outside), path.join(out, '.git'));
    const metadata = await findVcsMetadata({ roots: [fixture.workspace], cwd: linked });
    expect(metadata).toEqual(expect.arrayContaining([path.join(linked, '.git'), path.join(out, '.git')]));
    const guarded = deriveSandboxProfile({ zones: fixture.zones, network: false, homeDirectory: '', vcsMetadata: { paths: metadata } });
    const result = await sandboxed({
      profile: guarded,
      cwd: linked,
      script: `head -1 /etc/shadow; cat ${path.join(fixture.outside, 'secret.txt')}; cat ../out/.git/secret.txt; ls -A /root; echo listed; ls -A .git/ | head -3; echo end`,
    });
    expect(result.stdout).not.toContain(fixture.secretText);
    expect(result.stdout).not.toContain('root:');
    expect(result.stderr).toMatch(/\/etc\/shadow.*No such file/);
    // The links are still links, resolving inside the sandbox to its own (read-only, nearly empty) root.
    expect(result.stdout).toContain('listed');
    expect(result.stdout).not.toMatch(/^(home|root|srv|boot)$/m);
  });

  it('cannot rename a protected path away and recreate it on the host', async () => {
    const state = path.join(fixture.workspace, 'project', 'nested', '.toolgate');
    const docs = path.join(fixture.workspace, 'project', 'nested', 'docs');
    mkdirSync(state, { recursive: true });
    mkdirSync(docs, { recursive: true });
    writeFileSync(path.join(state, 'approvals.json'), '{}');
    const guarded = deriveSandboxProfile({ zones: [...fixture.zones, zone({ name: 'inner-docs', root: docs, mode: 'ro' })], network: false, homeDirectory: '', hidden: [state] });
    const result = await sandboxed({
      profile: guarded,
      script: [
        'mv project project-moved && echo moved-project',
        'mv project/nested project/elsewhere && echo moved-nested',
        'mkdir -p project/nested/.toolgate && echo pwned > project/nested/.toolgate/approvals.json && echo rewrote',
        'echo pwned > project/nested/docs/new.txt && echo wrote-docs',
        'touch project/other.txt && echo still-writable',
      ].join('; '),
    });
    expect(result.stdout).not.toMatch(/moved-project|moved-nested|rewrote|wrote-docs/);
    expect(result.stdout).toContain('still-writable');
    expect(readFileSync(path.join(state, 'approvals.json'), 'utf8')).toBe('{}');
    expect(existsSync(path.join(docs, 'new.txt'))).toBe(false);
    expect(existsSync(path.join(fixture.workspace, 'project-moved'))).toBe(false);
  });

  it('makes a suffix-limited rw zone read-only and keeps a ro zone nested in a rw zone read-only', async () => {
    const notes = path.join(fixture.workspace, 'notes');
    const inner = path.join(fixture.workspace, 'inner-docs');
    mkdirSync(notes, { recursive: true });
    mkdirSync(inner, { recursive: true });
    const nested = deriveSandboxProfile({
      zones: [...fixture.zones, zone({ name: 'notes', root: notes, mode: 'rw', suffixes: ['.txt'] }), zone({ name: 'inner', root: inner, mode: 'ro' })],
      network: false,
      homeDirectory: '',
    });
    const result = await sandboxed({ profile: nested, script: 'echo a > notes/a.txt && echo notes-written; echo b > inner-docs/b && echo inner-written; echo c > c.txt && echo ws-written' });
    expect(result.stdout).not.toContain('notes-written');
    expect(result.stdout).not.toContain('inner-written');
    expect(result.stdout).toContain('ws-written');
    expect(existsSync(path.join(notes, 'a.txt'))).toBe(false);
    expect(existsSync(path.join(inner, 'b'))).toBe(false);
  });

  it('takes background processes down with the command', async () => {
    const late = path.join(fixture.workspace, `${fixture.probeName}-late`);
    // A sleep no other process has: it is found in /proc (sandboxed processes are host processes too) and must be gone.
    const duration = `60.${String(process.pid).padStart(7, '0')}${Math.floor(Math.random() * 1000)}`;
    const started = Date.now();
    const result = await sandboxed({ script: `(sleep ${duration}; touch ${late}) & echo started` });
    expect(result.stdout).toContain('started');
    // Had the background job survived, it would have held the output pipe open for a minute.
    expect(Date.now() - started).toBeLessThan(30_000);
    // Waits for the job's end itself (it is killed with the sandbox), not for a fixed time.
    const deadline = Date.now() + 10_000;
    while (sleepersWith(duration).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sleepersWith(duration)).toEqual([]);
    expect(existsSync(late)).toBe(false);
  });
});

/** The pids of live `sleep DURATION` processes (zombies are dead). */
function sleepersWith(duration: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') !== `sleep\0${duration}\0`) continue;
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}
