import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveSandboxProfile, LINUX_SYSTEM_READ_ONLY_PATHS } from './derive-sandbox-profile.ts';
import { operatorProfileFromPolicy } from './operator-profile.ts';
import { accessOf } from './sandbox-profile.ts';
import type { SandboxZone } from './sandbox-zone.ts';

let root: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-operator-')));
  mkdirSync(path.join(root, 'ws', 'out'), { recursive: true });
  symlinkSync(path.join(root, 'ws'), path.join(root, 'ws-link'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('operatorProfileFromPolicy', () => {
  it('is undefined without a sandbox.profile section', () => {
    expect(operatorProfileFromPolicy({ section: undefined, policyDirectory: root })).toBeUndefined();
  });

  it('resolves paths against the policy directory, to real paths, and includes the system paths read-only', () => {
    const profile = operatorProfileFromPolicy({ section: { read_write: ['ws-link/out'], read_only: ['./ws'], hidden: ['ws-link/secret'] }, policyDirectory: root, platform: 'linux' })!;
    expect(profile.writable).toEqual([{ path: path.join(root, 'ws', 'out'), source: 'operator read-write' }]);
    expect(profile.readOnly.map((rule) => rule.path)).toEqual([...LINUX_SYSTEM_READ_ONLY_PATHS, path.join(root, 'ws')]);
    // A hidden path is masked under the name written and the real one.
    expect(profile.hidden.map((rule) => rule.path).sort()).toEqual([path.join(root, 'ws', 'secret'), path.join(root, 'ws-link', 'secret')].sort());
    expect(profile.network).toEqual({ mode: 'all' });
  });

  it('takes the network as shell.network does', () => {
    expect(operatorProfileFromPolicy({ section: { network: false }, policyDirectory: root })!.network).toEqual({ mode: 'none' });
    expect(operatorProfileFromPolicy({ section: { network: { allow_domains: ['example.com'] } }, policyDirectory: root })!.network).toEqual({ mode: 'domains', allowDomains: ['example.com'] });
  });

  it('only narrows the derived profile', () => {
    const zone: SandboxZone = { name: 'ws', root: path.join(root, 'ws'), mode: 'rw', approval: { read: 'allow', write: 'ask', delete: 'ask' } };
    const operatorProfile = operatorProfileFromPolicy({ section: { read_write: ['/', './ws/out'], read_only: ['./ws'], network: true }, policyDirectory: root, platform: 'linux' })!;
    const profile = deriveSandboxProfile({ zones: [zone], network: false, homeDirectory: '', platform: 'linux', operatorProfile });
    expect(accessOf(profile, path.join(root, 'ws', 'a')).access).toBe('read-only');
    expect(accessOf(profile, path.join(root, 'ws', 'out', 'a')).access).toBe('read-write');
    expect(accessOf(profile, '/etc/shadow').access).toBe('none');
    expect(accessOf(profile, '/usr/bin/env').access).toBe('read-only');
    expect(profile.network).toEqual({ mode: 'none' });
  });
});
