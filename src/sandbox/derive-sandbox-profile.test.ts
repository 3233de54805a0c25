import { describe, expect, it } from 'vitest';
import { deriveSandboxProfile, LINUX_SYSTEM_READ_ONLY_PATHS, MACOS_SYSTEM_READ_ONLY_PATHS, networkFromPolicy, zoneAccess } from './derive-sandbox-profile.ts';
import { accessOf, accessOfFile, type SandboxProfile } from './sandbox-profile.ts';
import type { SandboxZone } from './sandbox-zone.ts';

function zone(options: { name: string; root: string; mode: 'ro' | 'rw'; suffixes?: string[] }): SandboxZone {
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

describe('deriveSandboxProfile for one call', () => {
  type Approval = SandboxZone['approval'];
  const rw = (name: string, approval: Approval, suffixes?: string[]): SandboxZone => ({ name, root: `/p/${name}`, mode: 'rw', suffixes, approval });
  const matrix: SandboxZone[] = [
    rw('open', { read: 'allow', write: 'allow', delete: 'allow' }),
    rw('keep', { read: 'allow', write: 'allow', delete: 'block' }),
    rw('keep-ask', { read: 'allow', write: 'allow', delete: 'ask' }),
    rw('ask', { read: 'allow', write: 'ask', delete: 'ask' }),
    rw('guarded', { read: 'allow', write: 'ask', delete: 'block' }),
    rw('frozen', { read: 'allow', write: 'block', delete: 'allow' }),
    rw('private', { read: 'ask', write: 'ask', delete: 'ask' }),
    rw('sealed', { read: 'block', write: 'allow', delete: 'allow' }),
    { name: 'docs', root: '/p/docs', mode: 'ro', approval: { read: 'allow', write: 'block', delete: 'block' } },
    { name: 'ro-private', root: '/p/ro-private', mode: 'ro', approval: { read: 'ask', write: 'block', delete: 'block' } },
  ];
  const unapproved = deriveSandboxProfile({ zones: matrix, authority: 'policy', network: false, homeDirectory: '', platform: 'linux' });
  const approved = deriveSandboxProfile({ zones: matrix, authority: 'person', network: false, homeDirectory: '', platform: 'linux' });

  it.each([
    ['open', 'read-write', 'read-write'],
    // The kernel cannot allow a write but refuse a delete: less, never more.
    ['keep', 'read-only', 'read-write'],
    ['keep-ask', 'read-only', 'read-write'],
    ['ask', 'read-only', 'read-write'],
    ['guarded', 'read-only', 'read-write'],
    ['frozen', 'read-only', 'read-only'],
    ['private', 'none', 'read-write'],
    ['sealed', 'none', 'none'],
    ['docs', 'read-only', 'read-only'],
    ['ro-private', 'none', 'read-only'],
  ])('zone %s: %s for a command nobody approved, %s for an approved one', (name, withoutApproval, withApproval) => {
    expect(zoneAccess(matrix.find((zone) => zone.name === name)!, 'policy')).toBe(withoutApproval);
    expect(zoneAccess(matrix.find((zone) => zone.name === name)!, 'person')).toBe(withApproval);
    expect(accessOf(unapproved, `/p/${name}/file`).access).toBe(withoutApproval);
    expect(accessOf(approved, `/p/${name}/file`).access).toBe(withApproval);
  });

  it('gives an unapproved command nothing its approved counterpart lacks, path by path', () => {
    const order = { none: 0, 'read-only': 1, 'read-write': 2 } as const;
    for (const zone of matrix) {
      for (const where of ['', '/file', '/.git/config', '/.ssh/id_rsa']) {
        const target = `${zone.root}${where}`;
        expect(order[accessOf(unapproved, target).access], target).toBeLessThanOrEqual(order[accessOf(approved, target).access]);
      }
    }
  });

  it('is the approved profile when no authority is given: the ceiling the policy layer judges against', () => {
    expect(deriveSandboxProfile({ zones: matrix, network: false, homeDirectory: '', platform: 'linux' })).toEqual(approved);
  });

  it('hides a zone whose reads ask inside a zone that shows it', () => {
    const nested = deriveSandboxProfile({
      zones: [rw('outer', { read: 'allow', write: 'allow', delete: 'allow' }), { ...rw('inner', { read: 'ask', write: 'ask', delete: 'ask' }), root: '/p/outer/inner' }],
      authority: 'policy',
      network: false,
      homeDirectory: '',
    });
    expect(accessOf(nested, '/p/outer/a').access).toBe('read-write');
    expect(accessOf(nested, '/p/outer/inner/a')).toMatchObject({ access: 'none', rule: { source: expect.stringContaining('zone inner') } });
  });

  it('keeps .git read-only in every writable zone, found or not, unless vcs_metadata grants it', () => {
    const options = { zones: matrix, network: false, homeDirectory: '', vcsMetadata: { paths: ['/p/open/vendor/lib/.git', '/p/docs/.git', '/elsewhere/.git'] } } as const;
    for (const authority of ['policy', 'person'] as const) {
      const profile = deriveSandboxProfile({ ...options, authority });
      expect(accessOf(profile, '/p/open/.git/config')).toMatchObject({ access: 'read-only', rule: { source: 'version-control metadata' } });
      expect(accessOf(profile, '/p/open/vendor/lib/.git/hooks/pre-commit').access).toBe('read-only');
      expect(accessOf(profile, '/p/open/vendor/lib/src.c').access).toBe('read-write');
    }
    expect(accessOf(deriveSandboxProfile({ ...options, authority: 'person' }), '/p/guarded/.git/index').access).toBe('read-only');
    // Only where it would otherwise be writable: no rule for read-only zones or paths outside every zone.
    const rules = deriveSandboxProfile({ ...options, authority: 'person' }).readOnly.map((rule) => rule.path);
    expect(rules).not.toContain('/p/docs/.git');
    expect(rules).not.toContain('/elsewhere/.git');
  });

  it('lets writable_when_approved grant .git to approved commands only, and writable to both', () => {
    const whenApproved = { zones: matrix, network: false, homeDirectory: '', vcsMetadata: { access: 'writable_when_approved' as const } };
    expect(accessOf(deriveSandboxProfile({ ...whenApproved, authority: 'person' }), '/p/guarded/.git/index').access).toBe('read-write');
    expect(accessOf(deriveSandboxProfile({ ...whenApproved, authority: 'policy' }), '/p/open/.git/index').access).toBe('read-only');
    const writable = { zones: matrix, network: false, homeDirectory: '', vcsMetadata: { access: 'writable' as const } };
    expect(accessOf(deriveSandboxProfile({ ...writable, authority: 'policy' }), '/p/open/.git/index').access).toBe('read-write');
    // The zone still decides: writable metadata in a zone an unapproved command may not write is not writable.
    expect(accessOf(deriveSandboxProfile({ ...writable, authority: 'policy' }), '/p/guarded/.git/index').access).toBe('read-only');
  });

  it('keeps credentials and protected paths hidden for both', () => {
    for (const authority of ['policy', 'person'] as const) {
      const profile = deriveSandboxProfile({ zones: matrix, authority, network: false, homeDirectory: '', hidden: ['/p/open/.toolgate'] });
      expect(accessOf(profile, '/p/open/.toolgate/approvals.json').access).toBe('none');
      expect(accessOf(profile, '/p/open/.ssh/id_rsa').access).toBe('none');
    }
  });

  it('applies the operator profile to each call: never wider than either', () => {
    const operator: SandboxProfile = {
      writable: [{ path: '/p', source: 'operator' }],
      readOnly: [{ path: '/usr', source: 'operator' }],
      hidden: [{ path: '/p/open/secret', source: 'operator' }],
      network: { mode: 'all' },
      privateTemporaryDirectory: true,
    };
    const profile = deriveSandboxProfile({ zones: matrix, authority: 'policy', network: false, homeDirectory: '', operatorProfile: operator });
    expect(accessOf(profile, '/p/guarded/a').access).toBe('read-only');
    expect(accessOf(profile, '/p/open/secret/a').access).toBe('none');
    expect(accessOf(profile, '/p/open/.git/config').access).toBe('read-only');
    expect(accessOf(profile, '/p/other').access).toBe('none');
    expect(accessOf(profile, '/etc/passwd').access).toBe('none');
  });
});

describe('deriveSandboxProfile and git\'s user configuration', () => {
  const home: SandboxZone = { name: 'home', root: '/home/me', mode: 'rw', approval: { read: 'allow', write: 'allow', delete: 'allow' } };

  it('keeps ~/.gitconfig and ~/.config/git read-only when a writable zone contains the home directory', () => {
    for (const authority of ['policy', 'person'] as const) {
      const profile = deriveSandboxProfile({ zones: [home], authority, network: false, homeDirectory: '/home/me' });
      expect(accessOf(profile, '/home/me/.gitconfig').access).toBe('read-only');
      expect(accessOf(profile, '/home/me/.config/git/config').access).toBe('read-only');
      expect(accessOf(profile, '/home/me/.config/other').access).toBe('read-write');
    }
    const granted = deriveSandboxProfile({ zones: [home], authority: 'policy', network: false, homeDirectory: '/home/me', vcsMetadata: { access: 'writable' } });
    expect(accessOf(granted, '/home/me/.gitconfig').access).toBe('read-write');
  });
});
