import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizePolicy } from '../../core/policy/normalize-policy.ts';
import { deriveSandboxProfile } from '../../sandbox/derive-sandbox-profile.ts';
import { zonesFromPolicy } from '../fs/zones.ts';
import { expandGlob } from './expand-glob.ts';
import { judgePath, type PathJudgeContext } from './judge-path.ts';

let root: string;
let ws: string;
let context: PathJudgeContext;

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-judge-')));
  ws = path.join(root, 'ws');
  for (const directory of ['ws/sub', 'docs', 'suffixed', 'outside', 'home/.ssh']) mkdirSync(path.join(root, directory), { recursive: true });
  writeFileSync(path.join(root, 'outside', 'secret.txt'), 'secret');
  writeFileSync(path.join(ws, 'a.txt'), 'a');
  symlinkSync(path.join(root, 'outside'), path.join(ws, 'out'));
  symlinkSync(path.join(root, 'missing'), path.join(ws, 'dangling'));
  const policy = normalizePolicy({
    fs: {
      zones: [
        { name: 'ws', root: 'ws', mode: 'rw', approval: { write: 'allow', delete: 'ask' } },
        { name: 'docs', root: 'docs', mode: 'ro', approval: { read: 'ask' } },
        { name: 'suffixed', root: 'suffixed', mode: 'rw', suffixes: ['.md'] },
      ],
    },
  });
  const zones = zonesFromPolicy({ policy, policyDirectory: root });
  context = { zones, profile: deriveSandboxProfile({ zones, network: false, homeDirectory: path.join(root, 'home'), hidden: [path.join(ws, 'toolgate.yaml')], platform: 'linux' }) };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const judge = (file: string, operation: 'read' | 'write' | 'delete', extra: { into?: boolean; cwd?: string } = {}) =>
  judgePath({ path: file, cwd: extra.cwd ?? ws, operation, subject: 'cmd', context, ...(extra.into === true ? { into: true } : {}) });

describe('judgePath: reads', () => {
  it('allows zones and the system paths the sandbox exposes, with the zone read approval', async () => {
    expect((await judge('a.txt', 'read')).decision).toBe('allow');
    expect((await judge('sub/../a.txt', 'read')).decision).toBe('allow');
    expect((await judge('/usr/bin', 'read')).decision).toBe('allow');
    expect((await judge('/etc/passwd', 'read')).decision).toBe('allow');
    expect((await judge('/dev/null', 'read')).decision).toBe('allow');
    expect((await judge('/dev/stdin', 'read')).decision).toBe('allow');
    expect((await judge('../docs/x', 'read')).decision).toBe('ask');
  });

  it('blocks paths outside every zone, however they are reached', async () => {
    for (const file of ['../outside/secret.txt', 'out/secret.txt', 'out/../outside/secret.txt', '/etc/shadow', '/etc', '/', '/proc/self/environ', '/tmp/x', '/nonexistent/x']) {
      const judgement = await judge(file, 'read');
      expect(judgement, file).toMatchObject({ decision: 'block' });
      expect(judgement.reason, file).toMatch(/^cmd reads .*outside every zone/);
    }
  });

  it('blocks a dangling symlink and ".." after a missing name', async () => {
    expect((await judge('dangling', 'read')).decision).toBe('block');
    expect((await judge('dangling/x', 'write')).decision).toBe('block');
    expect((await judge('nope/../../outside/secret.txt', 'read')).decision).toBe('block');
  });

  it('blocks what the sandbox hides inside a zone', async () => {
    expect((await judge('toolgate.yaml', 'read')).reason).toContain('which the sandbox hides even inside zone ws');
    expect((await judge('.ssh/id_rsa', 'read')).decision).toBe('block');
  });
});

describe('judgePath: writes and deletes', () => {
  it('takes the zone approval inside a rw zone', async () => {
    expect(await judge('new.txt', 'write')).toMatchObject({ decision: 'allow', reason: 'cmd writes ws:new.txt; zone ws allows writes' });
    expect((await judge('a.txt', 'delete')).decision).toBe('ask');
  });

  it('blocks read-only zones, system paths and paths outside every zone', async () => {
    expect((await judge('../docs/x', 'write')).reason).toContain('in zone docs, which is read-only');
    expect((await judge('/usr/bin/x', 'write')).reason).toContain('outside the writable zones');
    expect((await judge('out/x', 'write')).decision).toBe('block');
  });

  it('deletes a symlink itself, not what it points to, but never through one', async () => {
    expect((await judge('out', 'delete')).decision).toBe('ask');
    expect((await judge('out/secret.txt', 'delete')).decision).toBe('block');
  });

  it('blocks deleting a zone root, not writing into it', async () => {
    expect((await judge('.', 'delete')).decision).toBe('block');
    // Not blocked; asks here because ws holds toolgate.yaml, which files of unknown names could replace.
    expect((await judge('.', 'write', { into: true })).decision).toBe('ask');
  });

  it('applies a zone\'s suffixes to files, and refuses unknown names written into it', async () => {
    const suffixed = path.join(root, 'suffixed');
    expect((await judge('x.md', 'write', { cwd: suffixed })).decision).toBe('ask');
    expect((await judge('x.sh', 'write', { cwd: suffixed })).decision).toBe('block');
    expect((await judge('.', 'write', { cwd: suffixed, into: true })).decision).toBe('block');
  });
});

describe('judgePath: as the kernel resolves, and hard links', () => {
  beforeAll(() => {
    symlinkSync('.', path.join(ws, 'sub', 'self'));
    linkSync(path.join(root, 'outside', 'secret.txt'), path.join(ws, 'sub', 'hard.txt'));
  });

  it('applies ".." after the symlink before it, for a path that does not exist yet', async () => {
    // Lexically ws/x; the kernel reads sub/self as ws/sub, so two ".." lead out of the zone.
    const judgement = await judge('sub/self/../../x', 'write');
    expect(judgement).toMatchObject({ decision: 'block', reason: expect.stringContaining(`(${JSON.stringify(path.join(root, 'x'))})`) });
    expect((await judge('sub/self/../x', 'write')).decision).toBe('allow');
  });

  it('asks before reading or writing a file with more than one hard link, not before deleting it', async () => {
    expect(await judge('sub/hard.txt', 'read')).toMatchObject({ decision: 'ask', reason: expect.stringMatching(/2 hard links/) });
    expect(await judge('sub/hard.txt', 'write')).toMatchObject({ decision: 'ask', reason: expect.stringMatching(/2 hard links/) });
    expect((await judge('sub/hard.txt', 'delete')).reason).not.toMatch(/hard links/);
    expect((await judge('a.txt', 'read')).decision).toBe('allow');
  });
});

describe('expandGlob', () => {
  it('lists what a last-component glob matches, symlinks included', async () => {
    const expansion = await expandGlob({ word: { text: '*', value: '*', kind: 'pattern', tilde: false }, cwd: ws, home: root });
    expect(expansion).toMatchObject({ kind: 'expanded', directory: '.' });
    expect(expansion.kind === 'expanded' && expansion.matches.sort()).toEqual(['a.txt', 'dangling', 'out', 'sub']);
    const parent = await expandGlob({ word: { text: '../*', value: '../*', kind: 'pattern', tilde: false }, cwd: ws, home: root });
    expect(parent.kind === 'expanded' && parent.matches).toContain('../outside');
  });

  it('is unsure of braces, patterns in directories, and patterns that could match "." or ".."', async () => {
    for (const value of ['{a,b}', '*/x', '.*', '[.]x']) {
      expect((await expandGlob({ word: { text: value, value, kind: 'pattern', tilde: false }, cwd: ws, home: root })).kind, value).toBe('unsure');
    }
  });
});
