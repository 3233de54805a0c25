import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsTools } from './create-fs-tools.ts';
import { displayPath, resolveZonePath } from './resolve-zone-path.ts';
import type { Zone } from './zones.ts';

/** What displayPath meant before it sliced: path.relative, with paths outside shown whole. */
function displayPathByRelative(options: { cwd: string; absolute: string }): string {
  const relative = path.relative(options.cwd, options.absolute);
  if (relative === '') return '.';
  if (relative.startsWith('..') || path.isAbsolute(relative)) return options.absolute;
  return relative;
}

/** A path built from names that path.relative treats specially: empty, `.`, `..`, dot-names. */
const segment = fc.constantFrom('', '.', '..', 'a', 'b', '.git', '..x', 'x..', '.a.', 'ws', 'ws-evil');
/** Mostly absolute; sometimes relative (even empty), which path.relative resolves against the process's directory. */
const directory = fc.tuple(fc.constantFrom('/', '/', '/', ''), fc.array(segment, { maxLength: 5 }), fc.boolean()).map(([root, names, trailing]) => `${root}${names.join('/')}${trailing ? '/' : ''}`);

describe('displayPath', () => {
  it('is what path.relative shows, for normalized and unnormalized paths alike', () => {
    fc.assert(
      fc.property(directory, fc.array(segment, { maxLength: 5 }), fc.boolean(), (cwd, below, underCwd) => {
        // Half the candidates start with the directory, so that the sliced case is the one tried.
        const absolute = underCwd ? `${cwd}${cwd === '' || cwd.endsWith('/') ? '' : '/'}${below.join('/')}` : `/${below.join('/')}`;
        expect(displayPath({ cwd, absolute })).toBe(displayPathByRelative({ cwd, absolute }));
      }),
      { numRuns: 20_000 },
    );
  });

  it('shows a path below the directory relative to it, and anything else whole', () => {
    expect(displayPath({ cwd: '/p', absolute: '/p/ws/a.txt' })).toBe('ws/a.txt');
    expect(displayPath({ cwd: '/p/', absolute: '/p/ws/a.txt' })).toBe('ws/a.txt');
    expect(displayPath({ cwd: '/', absolute: '/etc/passwd' })).toBe('etc/passwd');
    expect(displayPath({ cwd: '/p', absolute: '/p/.git/config' })).toBe('.git/config');
    expect(displayPath({ cwd: '/p', absolute: '/p/..x' })).toBe('/p/..x');
    expect(displayPath({ cwd: '/p', absolute: '/p' })).toBe('.');
    expect(displayPath({ cwd: '/p', absolute: '/p-evil/a' })).toBe('/p-evil/a');
    expect(displayPath({ cwd: '/p/./q', absolute: '/p/./q/a' })).toBe('a');
    expect(displayPath({ cwd: '/p/q', absolute: '/p/q/../../etc' })).toBe('/p/q/../../etc');
    expect(displayPath({ cwd: '/p/q', absolute: '/p/q//a' })).toBe('a');
    expect(displayPath({ cwd: '', absolute: '/etc/passwd' })).toBe('/etc/passwd');
  });
});

describe('resolveZonePath', () => {
  let project: string;
  let zones: Zone[];

  beforeAll(() => {
    project = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-resolve-')));
    mkdirSync(path.join(project, 'ws', 'src', '.hidden'), { recursive: true });
    writeFileSync(path.join(project, 'ws', 'src', 'a.ts'), 'a');
    writeFileSync(path.join(project, 'ws', 'src', '.hidden', '..b'), 'b');
    symlinkSync('src', path.join(project, 'ws', 'alias'));
    zones = [
      { name: 'workspace', root: path.join(project, 'ws'), mode: 'rw', suffixes: undefined, approval: { read: 'allow', write: 'allow', delete: 'ask' } },
      { name: 'source', root: path.join(project, 'ws', 'src'), mode: 'ro', suffixes: undefined, approval: { read: 'allow', write: 'block', delete: 'block' } },
    ];
  });

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('names a path relative to its zone root exactly as path.relative does', () => {
    const inputs = ['ws/src/a.ts', 'ws/alias/a.ts', 'ws/src/.hidden/..b', 'ws/./src//.hidden/../a.ts', 'ws/src', 'ws', 'ws/new/c.txt', 'ws/src/.hidden', `${project}/ws/alias/.hidden/..b`];
    for (const input of inputs) {
      const resolved = resolveZonePath({ zones, path: input, cwd: project, operation: 'read' });
      if (!resolved.ok) throw new Error(`${input}: ${resolved.reason}`);
      const byRelative = path.relative(resolved.zone.root, resolved.absolute);
      expect(resolved.relative, input).toBe(byRelative === '' ? '.' : byRelative);
    }
  });

  it('refuses a path longer than the system accepts, counted in bytes, without quoting it whole', () => {
    const resolve = (input: string) => resolveZonePath({ zones, path: input, cwd: project, operation: 'read' });
    // 4,095 bytes is the longest the kernel opens; this one means ws itself.
    expect(resolve(`ws/${'./'.repeat(2046)}`)).toMatchObject({ ok: true, zone: { name: 'workspace' }, relative: '.' });
    expect(resolve(`ws/${'./'.repeat(2046)}x`)).toEqual({ ok: false, reason: expect.stringContaining('is 4096 bytes long; paths longer than 4095 bytes are refused') });
    // 2,050 characters, 4,097 bytes.
    expect(resolve(`ws/${'é'.repeat(2047)}`)).toEqual({ ok: false, reason: expect.stringContaining('is 4097 bytes long') });
    // Would walk 150,000 components one lstat at a time, on the event loop.
    const huge = resolve(`ws/${'src/../'.repeat(150_000)}a.ts`);
    expect(huge).toEqual({ ok: false, reason: expect.stringContaining('is 1050007 bytes long') });
    expect(!huge.ok && huge.reason.length).toBeLessThan(200);
  });

  it('answers without a promise, so that the gate decides a file tool call without one', () => {
    const readFile = createFsTools({ zones, cwd: project }).find((tool) => tool.name === 'read_file')!;
    const context = { sessionId: 's', signal: new AbortController().signal };
    const allowed = readFile.checkApproval!({ tool: 'read_file', args: { path: 'ws/src/a.ts' }, callId: 'c1' }, context);
    const outside = readFile.checkApproval!({ tool: 'read_file', args: { path: '/etc/passwd' }, callId: 'c2' }, context);
    expect(allowed).toBeNull();
    expect(outside).toMatchObject({ kind: 'block', reason: expect.stringContaining('outside every zone') });
  });
});
