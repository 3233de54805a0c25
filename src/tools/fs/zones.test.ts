import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PolicyError } from '../../core/errors/policy-error.ts';
import { normalizePolicy } from '../../core/policy/normalize-policy.ts';
import { isInsideDirectory } from './resolve-zone-path.ts';
import { resolveInZones, zonesFromPolicy, type Zone } from './zones.ts';

let base: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-zones-')));
  for (const directory of ['ws', 'ws-evil', 'docs', 'real-root']) mkdirSync(path.join(base, directory));
  writeFileSync(path.join(base, 'file.txt'), 'x');
  symlinkSync('real-root', path.join(base, 'linked-root'));
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

function zones(entries: unknown[]): Zone[] {
  return zonesFromPolicy({ policy: normalizePolicy({ fs: { zones: entries } }), policyDirectory: base });
}

describe('zonesFromPolicy', () => {
  it('resolves roots against the policy directory, with defaults and aliases', () => {
    const loaded = zones([
      { name: 'workspace', root: './ws', mode: 'rw' },
      { name: 'docs', root: 'docs' },
      { name: 'scratch', root: 'ws-evil', mode: 'rw', suffixes: ['.txt'], approval: { read: 'ask', write: 'preApproved', delete: 'blocked' } },
    ]);
    expect(loaded).toEqual([
      { name: 'workspace', label: 'fs.zones[0]', root: path.join(base, 'ws'), mode: 'rw', suffixes: undefined, approval: { read: 'allow', write: 'ask', delete: 'ask' } },
      { name: 'docs', label: 'fs.zones[1]', root: path.join(base, 'docs'), mode: 'ro', suffixes: undefined, approval: { read: 'allow', write: 'block', delete: 'block' } },
      { name: 'scratch', label: 'fs.zones[2]', root: path.join(base, 'ws-evil'), mode: 'rw', suffixes: ['.txt'], approval: { read: 'ask', write: 'allow', delete: 'block' } },
    ]);
  });

  it('blocks writes and deletes in a read-only zone whatever its approval says', () => {
    const [zone] = zones([{ name: 'docs', root: 'docs', mode: 'ro', approval: { write: 'allow', delete: 'allow' } }]);
    expect(zone!.approval).toEqual({ read: 'allow', write: 'block', delete: 'block' });
  });

  it('realpaths a symlinked root at load', () => {
    expect(zones([{ name: 'linked', root: 'linked-root' }])[0]!.root).toBe(path.join(base, 'real-root'));
  });

  it('names fs.zones[i].root when a root is missing or not a directory', () => {
    const missing = () => zones([{ name: 'a', root: 'ws' }, { name: 'b', root: 'nowhere' }]);
    expect(missing).toThrow(PolicyError);
    expect(missing).toThrow(/fs\.zones\[1\]\.root: zone root .*nowhere does not exist/);
    expect(() => zones([{ name: 'a', root: 'file.txt' }])).toThrow(/fs\.zones\[0\]\.root: zone root .*file\.txt is not a directory/);
  });

  it('refuses duplicate names and two zones on one directory', () => {
    expect(() => zones([{ name: 'a', root: 'ws' }, { name: 'a', root: 'docs' }])).toThrow(/fs\.zones\[1\]\.name: zone name "a" is already used by fs\.zones\[0\]/);
    expect(() => zones([{ name: 'a', root: 'real-root' }, { name: 'b', root: 'linked-root' }])).toThrow(/fs\.zones\[1\]\.root: .*same directory as fs\.zones\[0\]\.root/);
  });

  it('refuses hidden patterns that can never match, naming fs.zones[i].hidden[j]; takes the ones that can', () => {
    const hidden = (patterns: string[]) => () => zones([{ name: 'ws', root: 'ws', mode: 'rw', hidden: patterns }]);
    expect(hidden(['.env', '../secrets'])).toThrow(/fs\.zones\[0\]\.hidden\[1\]: it leaves the zone \(\.\.\)/);
    expect(hidden([path.join(base, 'ws', '.env')])).toThrow(/hidden\[0\]: it is an absolute path, .*write it relative to the zone root \(\.env\)/);
    expect(hidden(['/home/someone/app/.env'])).toThrow(/hidden\[0\]: it is an absolute path/);
    expect(hidden(['~/.aws'])).toThrow(/hidden\[0\]: it starts with ~/);
    expect(hidden(['# secrets'])).toThrow(/hidden\[0\]: a line starting with # is a comment/);
    expect(hidden(['!'])).toThrow(/hidden\[0\]: it names nothing/);
    // Anchored at the zone root, negated, nested, globbed: all match something.
    mkdirSync(path.join(base, 'ws', 'config'));
    const [zone] = zones([{ name: 'ws', root: 'ws', mode: 'rw', hidden: ['/config/', '.env*', '!.env.example', '**/*.pem', '\\#notes'] }]);
    expect(zone!.hidden?.patterns).toHaveLength(5);
  });

  it('returns no zones when the policy has none', () => {
    expect(zones([])).toEqual([]);
    expect(zonesFromPolicy({ policy: normalizePolicy({}), policyDirectory: base })).toEqual([]);
  });
});

describe('resolveInZones', () => {
  it('answers with the zone, the real path, the zone-relative path and whether it exists', () => {
    const loaded = zones([{ name: 'workspace', root: 'ws', mode: 'rw' }]);
    writeFileSync(path.join(base, 'ws', 'a.txt'), 'a');
    expect(resolveInZones({ zones: loaded, path: 'ws/a.txt', cwd: base, operation: 'read' })).toEqual({
      ok: true,
      zone: loaded[0],
      absolute: path.join(base, 'ws', 'a.txt'),
      relative: 'a.txt',
      exists: true,
    });
    expect(resolveInZones({ zones: loaded, path: 'ws/new/b.txt', cwd: base, operation: 'write' })).toMatchObject({ ok: true, relative: path.join('new', 'b.txt'), exists: false });
    expect(resolveInZones({ zones: loaded, path: 'ws', cwd: base, operation: 'read' })).toMatchObject({ ok: true, relative: '.' });
  });

  it('picks the most specific zone when zones nest', () => {
    mkdirSync(path.join(base, 'ws', 'inner'));
    const loaded = zones([
      { name: 'inner', root: 'ws/inner', mode: 'ro' },
      { name: 'outer', root: 'ws', mode: 'rw' },
    ]);
    expect(resolveInZones({ zones: loaded, path: 'ws/inner/x', cwd: base, operation: 'read' })).toMatchObject({ ok: true, zone: { name: 'inner' }, relative: 'x' });
    expect(resolveInZones({ zones: loaded, path: 'ws/inner/x', cwd: base, operation: 'write' })).toMatchObject({ ok: false, reason: expect.stringMatching(/zone inner, which is read-only/) });
    expect(resolveInZones({ zones: loaded, path: 'ws/x', cwd: base, operation: 'write' })).toMatchObject({ ok: true, zone: { name: 'outer' } });
  });

  it('accepts a relative working directory', () => {
    const loaded = zones([{ name: 'workspace', root: 'ws', mode: 'rw' }]);
    const relativeCwd = path.relative(process.cwd(), base);
    expect(resolveInZones({ zones: loaded, path: 'ws/../ws/a.txt', cwd: relativeCwd, operation: 'write' })).toMatchObject({ ok: true, relative: 'a.txt' });
  });

  it('never throws for a bad path', () => {
    const loaded = zones([{ name: 'workspace', root: 'ws', mode: 'rw' }]);
    for (const bad of ['', '\u0000', '~', 'ws/\u0000x', 'x'.repeat(5000), '/dev/null', 'ws/'.repeat(2000), 42 as unknown as string]) {
      const answer = resolveInZones({ zones: loaded, path: bad, cwd: base, operation: 'write' });
      expect(answer.ok).toBe(false);
    }
  });

  it('is separator-aware', () => {
    expect(isInsideDirectory({ root: '/p/ws', candidate: '/p/ws' })).toBe(true);
    expect(isInsideDirectory({ root: '/p/ws', candidate: '/p/ws/a' })).toBe(true);
    expect(isInsideDirectory({ root: '/p/ws', candidate: '/p/ws-evil/a' })).toBe(false);
    expect(isInsideDirectory({ root: '/p/ws', candidate: '/p/wsa' })).toBe(false);
    expect(isInsideDirectory({ root: '/', candidate: '/etc' })).toBe(true);
  });
});
