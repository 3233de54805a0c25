import { describe, expect, it } from 'vitest';
import type { Zone } from '../tools/fs/zones.ts';
import { deriveSandboxProfile, LINUX_SYSTEM_READ_ONLY_PATHS, MACOS_SYSTEM_READ_ONLY_PATHS, networkFromPolicy } from './derive-sandbox-profile.ts';
import { accessOf, accessOfFile, type SandboxProfile } from './sandbox-profile.ts';

function zone(options: { name: string; root: string; mode: 'ro' | 'rw'; suffixes?: string[] }): Zone {
  return { name: options.name, root: options.root, mode: options.mode, suffixes: options.suffixes, approval: { read: 'allow', write: 'ask', delete: 'ask' } };
}

const zones = [
  zone({ name: 'ws', root: '/home/me/project/ws', mode: 'rw' }),
  zone({ name: 'docs', root: '/home/me/project/docs', mode: 'ro' }),
  zone({ name: 'ws-docs', root: '/home/me/project/ws/docs', mode: 'ro' }),
  zone({ name: 'notes', root: '/srv/notes', mode: 'rw', suffixes: ['.md', '.txt'] }),
];

describe('deriveSandboxProfile', () => {
  const profile = deriveSandboxProfile({ zones, network: false, homeDirectory: '/home/me', platform: 'linux' });

  it('makes rw zones writable and ro zones read-only, and nothing else writable', () => {
    expect(profile.writable.map((rule) => rule.path)).toEqual(['/home/me/project/ws', '/srv/notes']);
    expect(accessOf(profile, '/home/me/project/ws/src/a.ts').access).toBe('read-write');
    expect(accessOf(profile, '/home/me/project/docs/readme.md').access).toBe('read-only');
    for (const elsewhere of ['/home/me/project', '/home/me', '/etc', '/tmp/x', '/root', '/var/lib', '/']) {
      expect(accessOf(profile, elsewhere).access, elsewhere).not.toBe('read-write');
    }
  });

  it('lets the deepest zone decide, so a ro zone inside a rw zone is read-only', () => {
    expect(accessOf(profile, '/home/me/project/ws/docs/guide.md')).toMatchObject({ access: 'read-only', rule: { source: 'zone ws-docs' } });
  });

  it('keeps a zone\'s suffixes on its writable rule', () => {
    expect(profile.writable[1]).toEqual({ path: '/srv/notes', source: 'zone notes', suffixes: ['.md', '.txt'] });
    expect(accessOfFile(profile, '/srv/notes/a.md')).toBe('read-write');
    expect(accessOfFile(profile, '/srv/notes/run.sh')).toBe('read-only');
  });

  it('reads only the system paths besides the zones: not the home directory, /root or the whole of /etc', () => {
    expect(profile.readOnly.filter((rule) => rule.source === 'system').map((rule) => rule.path)).toEqual([...LINUX_SYSTEM_READ_ONLY_PATHS]);
    expect(accessOf(profile, '/usr/bin/env').access).toBe('read-only');
    expect(accessOf(profile, '/etc/ld.so.cache').access).toBe('read-only');
    for (const secret of ['/home/me/.ssh/id_rsa', '/home/me/.aws/credentials', '/root/.bashrc', '/etc/shadow', '/etc/npmrc', '/etc/ssl/private/key.pem', '/home/me/project/secret.txt']) {
      expect(accessOf(profile, secret).access, secret).toBe('none');
    }
  });

  it('hides credentials where a zone would expose them, and only there', () => {
    const homeZone = deriveSandboxProfile({ zones: [zone({ name: 'home', root: '/home/me', mode: 'ro' })], network: false, homeDirectory: '/home/me' });
    expect(accessOf(homeZone, '/home/me/notes.txt').access).toBe('read-only');
    for (const secret of ['/home/me/.ssh/id_rsa', '/home/me/.aws/credentials', '/home/me/.config/gcloud/x', '/home/me/.netrc']) {
      expect(accessOf(homeZone, secret).access, secret).toBe('none');
    }
    // Invisible paths need no hidden rule.
    expect(profile.hidden.some((rule) => rule.path.startsWith('/home/me/.'))).toBe(false);
  });

  it('hides the paths it is told to, where they are visible', () => {
    const withState = deriveSandboxProfile({ zones, network: false, homeDirectory: '', hidden: ['/home/me/project/ws/.toolgate', '/elsewhere/toolgate.yaml'] });
    expect(accessOf(withState, '/home/me/project/ws/.toolgate/approvals.json').access).toBe('none');
    expect(withState.hidden.map((rule) => rule.path)).toContain('/home/me/project/ws/.toolgate');
    expect(withState.hidden.map((rule) => rule.path)).not.toContain('/elsewhere/toolgate.yaml');
  });

  it('adds extra read-only paths, which also make a zone on the same path read-only', () => {
    const extra = deriveSandboxProfile({ zones, network: false, homeDirectory: '', extraReadOnly: ['/opt/toolchain', '/home/me/project/ws'] });
    expect(accessOf(extra, '/opt/toolchain/bin/cc').access).toBe('read-only');
    expect(accessOf(extra, '/home/me/project/ws/a').access).toBe('read-only');
  });

  it('takes the network from shell.network: off unless enabled', () => {
    expect(profile.network).toEqual({ mode: 'none' });
    expect(deriveSandboxProfile({ zones, network: true }).network).toEqual({ mode: 'all' });
    expect(deriveSandboxProfile({ zones, network: { allowDomains: ['Example.com', 'example.com', '*.npmjs.org'] } }).network).toEqual({
      mode: 'domains',
      allowDomains: ['*.npmjs.org', 'example.com'],
    });
    expect(networkFromPolicy({ allowDomains: [] })).toEqual({ mode: 'none' });
    expect(networkFromPolicy(undefined)).toEqual({ mode: 'none' });
  });

  it('has a private /tmp and the macOS system paths on macOS', () => {
    expect(profile.privateTemporaryDirectory).toBe(true);
    const mac = deriveSandboxProfile({ zones: [], network: false, platform: 'darwin', homeDirectory: '' });
    expect(mac.readOnly.map((rule) => rule.path)).toEqual([...MACOS_SYSTEM_READ_ONLY_PATHS]);
  });

  it('applies an operator profile by intersection: it can only take permissions away', () => {
    const operator: SandboxProfile = {
      writable: [{ path: '/home/me/project/ws/out', source: 'operator' }, { path: '/var', source: 'operator' }],
      readOnly: [{ path: '/', source: 'operator' }],
      hidden: [],
      network: { mode: 'all' },
      privateTemporaryDirectory: true,
    };
    const result = deriveSandboxProfile({ zones, network: false, homeDirectory: '', operatorProfile: operator });
    expect(accessOf(result, '/home/me/project/ws/out/x').access).toBe('read-write');
    expect(accessOf(result, '/home/me/project/ws/x').access).toBe('read-only');
    expect(accessOf(result, '/var/x').access).toBe('none');
    expect(result.network).toEqual({ mode: 'none' });
  });

  it('refuses relative zone roots and paths with line breaks', () => {
    expect(() => deriveSandboxProfile({ zones: [zone({ name: 'x', root: 'relative/ws', mode: 'rw' })], network: false })).toThrow(/not absolute/);
    expect(() => deriveSandboxProfile({ zones: [zone({ name: 'x', root: '/ws\n(allow default)', mode: 'rw' })], network: false })).toThrow(/line break/);
  });
});
