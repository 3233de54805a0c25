/**
 * What `npm pack` ships: the licence package.json names, no source maps
 * that point at sources the package leaves out, no tests, and a tarball
 * that git ignores.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

function packedFiles(): string[] {
  // --ignore-scripts: the list, without building (a build only adds dist/, checked through the build config below).
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return (JSON.parse(output) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path);
}

describe('the package', () => {
  it('ships the MIT licence that package.json names', () => {
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { license: string };
    expect(manifest.license).toBe('MIT');
    const licence = readFileSync(path.join(root, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} toolgate contributors\n/);
    expect(licence).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
    expect(packedFiles()).toContain('LICENSE');
  });

  it('builds no source maps, since it ships no TypeScript sources for them to point at', () => {
    const files = packedFiles();
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    expect(files.filter((file) => file.startsWith('src/'))).toEqual([]);
    const showConfig = execFileSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json', '--showConfig'], { cwd: root, encoding: 'utf8' });
    const options = (JSON.parse(showConfig) as { compilerOptions: Record<string, unknown> }).compilerOptions;
    expect(options.sourceMap).not.toBe(true);
    expect(options.declarationMap).not.toBe(true);
    expect(options.inlineSourceMap).not.toBe(true);
  });

  it('ships no tests', () => {
    expect(packedFiles().filter((file) => /(^|\/)test\/|\.test\.[jt]s$/.test(file))).toEqual([]);
  });

  it('git ignores the tarball npm pack writes', () => {
    const ignored = execFileSync('git', ['check-ignore', '--no-index', 'toolgate-0.1.0.tgz'], { cwd: root, encoding: 'utf8' });
    expect(ignored.trim()).toBe('toolgate-0.1.0.tgz');
  });
});
