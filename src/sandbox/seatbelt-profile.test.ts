import { describe, expect, it } from 'vitest';
import type { SandboxZone } from './sandbox-zone.ts';
import { deriveSandboxProfile } from './derive-sandbox-profile.ts';
import { seatbeltProfile, wrapWithSeatbelt } from './seatbelt-profile.ts';

function zone(options: { name: string; root: string; mode: 'ro' | 'rw'; suffixes?: string[] }): SandboxZone {
  return { name: options.name, root: options.root, mode: options.mode, suffixes: options.suffixes, approval: { read: 'allow', write: 'ask', delete: 'ask' } };
}

// The profile text is all that can be tested here: sandbox-exec only runs on macOS.
describe('seatbeltProfile', () => {
  const zones = [
    zone({ name: 'ws', root: '/Users/me/project/ws', mode: 'rw' }),
    zone({ name: 'docs', root: '/Users/me/project/ws/docs', mode: 'ro' }),
    zone({ name: 'notes', root: '/Users/me/notes', mode: 'rw', suffixes: ['.md'] }),
  ];
  const profile = deriveSandboxProfile({ zones, network: false, platform: 'darwin', homeDirectory: '/Users/me', hidden: ['/Users/me/project/ws/.toolgate'] });
  const text = seatbeltProfile(profile);
  const lines = text.split('\n');

  it('denies everything by default', () => {
    expect(lines[0]).toBe('(version 1)');
    expect(lines).toContain('(deny default)');
    expect(text).not.toMatch(/\(allow file-write\*\)/);
    expect(text).not.toMatch(/\(allow file-read\*\)/);
    expect(text).not.toMatch(/\(allow default\)/);
  });

  it('makes rw zones writable and ro zones readable but not writable', () => {
    expect(lines).toContain('(allow file-read* file-write* (subpath "/Users/me/project/ws"))');
    expect(lines).toContain('(allow file-read* (subpath "/Users/me/project/ws/docs"))');
    expect(lines).toContain('(deny file-write* (subpath "/Users/me/project/ws/docs"))');
    // Later rules win in SBPL: the ro zone must come after the rw zone that contains it.
    expect(lines.indexOf('(deny file-write* (subpath "/Users/me/project/ws/docs"))')).toBeGreaterThan(lines.indexOf('(allow file-read* file-write* (subpath "/Users/me/project/ws"))'));
    expect(lines).toContain('(allow file-read* (subpath "/usr"))');
  });

  it('keeps .git read-only after the zone that contains it, and denies an unapproved command a zone whose writes ask', () => {
    expect(lines.indexOf('(deny file-write* (subpath "/Users/me/project/ws/.git"))')).toBeGreaterThan(lines.indexOf('(allow file-read* file-write* (subpath "/Users/me/project/ws"))'));
    const unapproved = seatbeltProfile(deriveSandboxProfile({ zones, authority: 'policy', network: false, platform: 'darwin', homeDirectory: '/Users/me' }));
    expect(unapproved).not.toContain('(allow file-read* file-write* (subpath "/Users/me/project/ws"))');
    expect(unapproved).toContain('(allow file-read* (subpath "/Users/me/project/ws"))');
    expect(unapproved).toContain('(deny file-write* (subpath "/Users/me/project/ws"))');
  });

  it('limits a suffix zone\'s writes by regex', () => {
    expect(lines).toContain('(deny file-write* (subpath "/Users/me/notes"))');
    expect(lines).toContain('(allow file-write* (regex #"^/Users/me/notes/(.*/)?[^/]*(\\.md)$"))');
  });

  it('denies hidden paths after the zones that contain them', () => {
    const hidden = lines.indexOf('(deny file-read* file-write* (subpath "/Users/me/project/ws/.toolgate"))');
    expect(hidden).toBeGreaterThan(lines.indexOf('(allow file-read* file-write* (subpath "/Users/me/project/ws"))'));
    expect(lines).not.toContain('(allow file-read* (subpath "/Users/me"))');
  });

  it('denies the network unless the policy allows all of it', () => {
    expect(lines).toContain('(deny network*)');
    expect(text).not.toContain('(allow network');
    const open = seatbeltProfile({ ...profile, network: { mode: 'all' } });
    expect(open).toContain('(allow network*)');
    const domains = seatbeltProfile({ ...profile, network: { mode: 'domains', allowDomains: ['example.com'] } });
    expect(domains).toContain('(deny network*)');
    expect(domains).not.toContain('(allow network');
  });

  it('escapes quotes and backslashes in paths so a path cannot add rules', () => {
    const tricky = deriveSandboxProfile({ zones: [zone({ name: 'q', root: '/Users/me/a") (allow default) ("b\\c', mode: 'rw' })], network: false, platform: 'darwin', homeDirectory: '' });
    const output = seatbeltProfile(tricky);
    expect(output).toContain('(subpath "/Users/me/a\\") (allow default) (\\"b\\\\c")');
    expect(output.split('\n')).not.toContain('(allow default)');
  });

  it('adds the private temporary directory when given, and wraps a command for sandbox-exec', () => {
    expect(seatbeltProfile(profile, { temporaryDirectory: '/private/var/folders/x/T/toolgate-1' })).toContain('(allow file-read* file-write* (subpath "/private/var/folders/x/T/toolgate-1"))');
    const wrapped = wrapWithSeatbelt({ profile, command: 'make', args: ['test'], environment: { SECRET_TOKEN: 'x', LANG: 'C' } });
    expect(wrapped.command).toBe('/usr/bin/sandbox-exec');
    expect(wrapped.args[0]).toBe('-p');
    expect(wrapped.args.slice(2)).toEqual(['/usr/bin/env', '-i', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'LANG=C', 'make', 'test']);
  });
});
