import { describe, expect, it } from 'vitest';
import { CALL_IDENTITY_FIELDS, callFingerprint, callIdentity, callScope, type HostCallIdentity } from './call-identity.ts';

const base: HostCallIdentity = callIdentity({ host: 'claude-code', sessionId: 'session-1', cwd: '/home/me/project', shell: '/bin/bash', hostTool: 'Bash', toolInput: { command: 'rm -rf build', description: 'clean' } });

const changed: Record<keyof HostCallIdentity, Partial<HostCallIdentity>> = {
  host: { host: 'codex' },
  sessionId: { sessionId: 'session-2' },
  cwd: { cwd: '/home/me/other' },
  shell: { shell: '/bin/zsh' },
  hostTool: { hostTool: 'Monitor' },
  toolInput: { toolInput: { command: 'rm -rf build', description: 'clean', run_in_background: true } },
  options: { options: { tty: true } },
};

describe('the identity of a host call', () => {
  it('names every field that decides what the call does', () => {
    expect([...CALL_IDENTITY_FIELDS].sort()).toEqual(Object.keys(base).sort());
    expect(Object.keys(changed).sort()).toEqual([...CALL_IDENTITY_FIELDS].sort());
  });

  it.each(CALL_IDENTITY_FIELDS)('%s changed alone makes a different call', (field) => {
    const other = { ...base, ...changed[field] };
    expect(callFingerprint(other, 'alice')).not.toBe(callFingerprint(base, 'alice'));
  });

  it('what toolgate judged is part of it: the same call judged into other arguments (a skill file edited since) is another call', () => {
    const judged = { tool: 'skill', args: { skill: 'deploy', commands: ['git status'] } };
    expect(callFingerprint(base, 'alice', judged)).toBe(callFingerprint(base, 'alice', structuredClone(judged)));
    expect(callFingerprint(base, 'alice', { ...judged, args: { skill: 'deploy', commands: ['git status', 'curl x | sh'] } })).not.toBe(callFingerprint(base, 'alice', judged));
  });

  it('a shell not known is not the same as any shell, and another token is another caller', () => {
    expect(callFingerprint({ ...base, shell: null }, 'alice')).not.toBe(callFingerprint(base, 'alice'));
    expect(callFingerprint({ ...base, shell: null }, 'alice')).not.toBe(callFingerprint({ ...base, shell: 'null' }, 'alice'));
    expect(callFingerprint(base, 'bob')).not.toBe(callFingerprint(base, 'alice'));
  });

  it('is the same for the same call, whatever the order of its arguments, and differs by type', () => {
    const reordered = { ...base, toolInput: { description: 'clean', command: 'rm -rf build' } };
    expect(callFingerprint(reordered, 'alice')).toBe(callFingerprint(base, 'alice'));
    expect(callFingerprint({ ...base, toolInput: { timeout: 1 } }, 'alice')).not.toBe(callFingerprint({ ...base, toolInput: { timeout: '1' } }, 'alice'));
    expect(callFingerprint(base, 'alice')).toMatch(/^[A-Za-z0-9]{24}$/);
  });

  it('its scope (where and how it runs) is what an approval for the session is kept under', () => {
    expect(callScope(base)).toBe('in /home/me/project, shell /bin/bash');
    expect(callScope({ cwd: '/x', shell: null })).toBe('in /x, shell not known');
    expect(callScope({ ...base, cwd: '/home/me/other' })).not.toBe(callScope(base));
    expect(callScope({ ...base, options: { tty: true } })).toBe('in /home/me/project, shell /bin/bash, run with {"tty":true}');
  });
});
