import { describe, expect, it } from 'vitest';
import { accessOf, accessOfFile, type SandboxProfile } from '../../sandbox/sandbox-profile.ts';
import { profileAccess, profileAccessOfFile } from './profile-access.ts';

/** Nested zones, a suffix-limited zone, hidden credentials, a rule on the same path twice, system paths. */
const profile: SandboxProfile = {
  writable: [
    { path: '/p/ws', source: 'zone ws' },
    { path: '/p/ws/notes', source: 'zone notes', suffixes: ['.md'] },
    { path: '/p/same', source: 'zone same' },
  ],
  readOnly: [
    { path: '/usr', source: 'system' },
    { path: '/etc/passwd', source: 'system' },
    { path: '/p/ws/docs', source: 'zone docs' },
    { path: '/p/same', source: 'extra read-only' },
  ],
  hidden: [
    { path: '/p/ws/.ssh', source: 'credentials' },
    { path: '/p/ws/docs/.toolgate', source: 'protected' },
  ],
  network: { mode: 'none' },
  privateTemporaryDirectory: true,
};

const PATHS = [
  '/', '/p', '/p/ws', '/p/ws/', '/p/ws/a.txt', '/p/ws/../ws/a', '/p/ws2', '/p/ws/.ssh', '/p/ws/.ssh/id_rsa', '/p/ws/.sshx', '/p/ws/docs', '/p/ws/docs/x',
  '/p/ws/docs/.toolgate/approvals.json', '/p/ws/notes/a.md', '/p/ws/notes/a.txt', '/p/same/x', '/usr', '/usr/bin/env', '/usrx', '/etc', '/etc/passwd', '/etc/shadow', '/tmp/x',
];

describe('profileAccess', () => {
  it.each(PATHS)('agrees with accessOf and accessOfFile at %s', (target) => {
    expect(profileAccess(profile, target)).toEqual(accessOf(profile, target));
    expect(profileAccessOfFile(profile, target)).toBe(accessOfFile(profile, target));
  });
});
