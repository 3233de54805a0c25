/**
 * toolgate as a user gets it: built from this checkout (into a scratch
 * directory, so the checkout's own dist/ is never half-written under a test
 * that runs it), packed by `npm pack` with the package's `files`, and
 * installed by `npm ci --offline` into a scratch project whose lockfile pins
 * the runtime dependencies to this checkout's (npm's cache holds them since
 * this checkout's `npm ci`; nothing is fetched).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './server-harness.ts';

export interface PackedInstall {
  /** The scratch project with toolgate in its node_modules. */
  project: string;
  /** The installed package's bin/toolgate.js (what `npx toolgate` runs). */
  bin: string;
  tarball: string;
}

const run = (command: string, args: string[], cwd: string): string => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * Builds the package's files into `stage` as `npm pack` takes them (dist,
 * bin, schema, package.json...), about 10 s. Inside this checkout, what
 * `stage/bin/toolgate.js` runs finds its dependencies in the checkout's
 * node_modules.
 */
export function buildToolgate(stage: string): void {
  mkdirSync(stage, { recursive: true });
  run(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', path.join(stage, 'dist')], ROOT);
  run(path.join(ROOT, 'node_modules/.bin/node'), [path.join(ROOT, 'scripts/copy-assets.ts'), path.join(stage, 'dist')], ROOT);
  run(path.join(ROOT, 'node_modules/.bin/node'), [path.join(ROOT, 'scripts/bundle-hook.ts'), path.join(stage, 'dist')], ROOT);
  for (const entry of ['package.json', 'README.md', 'LICENSE', 'bin', 'schema']) cpSync(path.join(ROOT, entry), path.join(stage, entry), { recursive: true });
}

/**
 * Builds, packs and installs toolgate under `parent` (about 15 s), with
 * `devPackages` of this checkout's (e.g. `@types/node`) beside it, at the
 * versions its lockfile pins.
 */
export function installPackedToolgate(parent: string, options: { devPackages?: readonly string[] } = {}): PackedInstall {
  const stage = path.join(parent, 'stage');
  buildToolgate(stage);
  const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', parent], stage)) as Array<{ filename: string }>;
  const tarball = path.join(parent, packed[0]!.filename);

  const project = path.join(parent, 'project');
  mkdirSync(project, { recursive: true });
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; dependencies?: Record<string, string>; engines?: unknown }> };
  const runtime = Object.fromEntries(Object.entries(lock.packages).filter(([key, entry]) => key.startsWith('node_modules/') && entry.dev !== true));
  const extra: Record<string, string> = {};
  const pending = [...(options.devPackages ?? [])];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const entry = lock.packages[`node_modules/${name}`];
    if (entry === undefined) throw new Error(`${name} is not in this checkout's package-lock.json`);
    if (options.devPackages?.includes(name)) extra[name] = (entry as { version: string }).version;
    if (runtime[`node_modules/${name}`] !== undefined) continue;
    const { dev: _dev, ...asRuntime } = entry;
    runtime[`node_modules/${name}`] = asRuntime;
    pending.push(...Object.keys(entry.dependencies ?? {}));
  }
  const self = lock.packages['']!;
  const dependency = { toolgate: `file:${path.relative(project, tarball)}`, ...extra };
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'scratch-project', version: '1.0.0', private: true, type: 'module', dependencies: dependency }));
  writeFileSync(
    path.join(project, 'package-lock.json'),
    JSON.stringify({
      name: 'scratch-project',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'scratch-project', version: '1.0.0', dependencies: dependency },
        'node_modules/toolgate': { version: (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version, resolved: dependency.toolgate, license: 'MIT', dependencies: self.dependencies, bin: { toolgate: 'bin/toolgate.js' }, engines: self.engines },
        ...runtime,
      },
    }),
  );
  run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], project);
  return { project, bin: path.join(project, 'node_modules/toolgate/bin/toolgate.js'), tarball };
}
