import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The agent CLIs the host tests run are installed on a clean machine by `npm ci` in test/hosts
// (scripts/ensure-test-packages.ts). `npm ci` refuses a lockfile that lacks an entry for any
// dependency, optional ones included, even a platform binary it would never download here; and a
// local run never notices, because its test/hosts/node_modules is already there. So the lockfile's
// completeness is checked here, without the registry.

interface LockedPackage {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
const hosts = new URL('./hosts/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', hosts), 'utf8')) as { dependencies: Record<string, string>; allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', hosts), 'utf8')) as { packages: Record<string, LockedPackage> };

/** Where Node (and npm) finds `name` from the package at `from`: its own node_modules, then each one above. */
function resolveLocked(from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (lock.packages[candidate] !== undefined) return candidate;
    if (base === '') return undefined;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent === -1 ? '' : base.slice(0, parent);
  }
}

describe('test/hosts/package-lock.json', () => {
  it('pins each agent CLI at the version package.json names', () => {
    for (const [name, version] of Object.entries(manifest.dependencies)) {
      expect(lock.packages[`node_modules/${name}`]?.version, name).toBe(version);
    }
  });

  it('has an entry for every dependency of every locked package, optional platform binaries included (npm ci refuses the lockfile otherwise)', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
        if (resolveLocked(path, name) === undefined) missing.push(`${path || '(root)'} -> ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('says which install scripts run (npm 11 warns for each one it was not told about)', () => {
    const allowed = manifest.allowScripts ?? {};
    for (const cli of ['@anthropic-ai/claude-code', 'opencode-ai']) expect(allowed[cli], cli).toBe(true);
  });
});
