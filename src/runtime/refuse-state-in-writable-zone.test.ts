import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PolicyError } from '../core/errors/policy-error.ts';
import { normalizePolicy } from '../core/policy/normalize-policy.ts';
import { zonesFromPolicy } from '../tools/fs/zones.ts';
import { refuseStateInWritableZone } from './refuse-state-in-writable-zone.ts';

function attempt(document: Record<string, unknown>, links: Record<string, string> = {}): PolicyError | undefined {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-state-zone-')));
  mkdirSync(path.join(root, 'ws'));
  mkdirSync(path.join(root, 'docs'));
  for (const [link, target] of Object.entries(links)) symlinkSync(target, path.join(root, link));
  const policy = normalizePolicy({ fs: { zones: [{ name: 'ws', root: 'ws', mode: 'rw' }, { name: 'docs', root: 'docs', mode: 'ro' }] }, ...document });
  const loaded = { policy, path: path.join(root, 'toolgate.yaml'), directory: root };
  try {
    refuseStateInWritableZone({ loaded, zones: zonesFromPolicy({ policy, policyDirectory: root }) });
    return undefined;
  } catch (error) {
    return error as PolicyError;
  }
}

describe('refuseStateInWritableZone', () => {
  it('names every state path inside a rw zone, by key, with what to do', () => {
    const error = attempt({ audit: { path: 'ws/audit.jsonl' }, approvals: { path: 'ws/deep/er/approvals.json' } });
    expect(error).toBeInstanceOf(PolicyError);
    expect(error?.issues.map((issue) => issue.path)).toEqual(['audit.path', 'approvals.path']);
    expect(error?.message).toContain('set audit.allow_in_writable_zone: true');
    expect(error?.message).toContain('or leave approvals.path unset');
  });

  it('accepts state outside rw zones, in a ro zone, when allowed explicitly, and a disabled audit log', () => {
    expect(attempt({})).toBeUndefined();
    expect(attempt({ audit: { path: 'logs/audit.jsonl' }, approvals: { path: '.state/approvals.json' } })).toBeUndefined();
    expect(attempt({ approvals: { path: 'docs/approvals.json' } })).toBeUndefined();
    expect(attempt({ approvals: { path: 'ws/approvals.json', allow_in_writable_zone: true } })).toBeUndefined();
    expect(attempt({ audit: { path: 'ws/audit.jsonl', enabled: false } })).toBeUndefined();
  });

  it('sees through a symlink that leads into the zone before its target exists (the agent would make it)', () => {
    const error = attempt({ approvals: { path: './state/approvals.json' } }, { state: 'ws/newdir' });
    expect(error?.issues[0]?.path).toBe('approvals.path');
    expect(error?.message).toContain(path.join('ws', 'newdir', 'approvals.json'));
  });

  it('sees through .. into the zone', () => {
    expect(attempt({ approvals: { path: 'docs/../ws/approvals.json' } })?.issues[0]?.path).toBe('approvals.path');
  });
});
