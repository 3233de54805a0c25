/**
 * After `tsc` and `copy-assets`, bundles `toolgate hook` (src/cli/hook-main.ts)
 * with everything it imports, its dependencies included, into one ES module
 * that bin/toolgate.js runs for a hook: `node scripts/bundle-hook.ts [OUTDIR]`,
 * OUTDIR being tsc's (default `dist`); the bundle is OUTDIR/hook/toolgate-hook.mjs.
 * A host starts the hook for every tool call, and resolving and loading some
 * 390 modules one by one was most of its time (issue 53).
 *
 * Modules that read files beside themselves at run time cannot be moved into
 * a bundle: the build fails if one is in it (`new URL(..., import.meta.url)`
 * other than the package lookups that walk up to the package root).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const outdir = path.join(path.resolve(root, process.argv[2] ?? 'dist'), 'hook');
mkdirSync(outdir, { recursive: true });
const outfile = path.join(outdir, 'toolgate-hook.mjs');

const result = await build({
  entryPoints: [path.join(root, 'src/cli/hook-main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // Native addons and their loaders stay in node_modules, where Node finds them.
  external: ['better-sqlite3', 'pg', 'pg-native'],
  // jsonc-parser's main build is UMD, whose factory require()s its parts at run time, which a bundle cannot follow: its ES module build instead.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // CommonJS dependencies call require() for Node's own modules: an ES module has none of its own.
  banner: { js: "import { createRequire as __toolgateRequire } from 'node:module'; const require = __toolgateRequire(import.meta.url);" },
  legalComments: 'eof',
  minify: true,
  keepNames: true,
  metafile: true,
  logLevel: 'warning',
});

// A module that reads a file beside itself would read it beside the bundle instead, where it is not.
const besideItself = Object.keys(result.metafile.inputs).filter((input) => input.startsWith('src/') && /new URL\(['`]\.\//.test(readFileSync(path.join(root, input), 'utf8')));
if (besideItself.length > 0) {
  process.stderr.write(`bundle-hook: these modules read files beside themselves and cannot be bundled: ${besideItself.join(', ')}\n`);
  process.exit(1);
}
// The hook's client, on its own: what every call after the first loads (src/cli/hook-decider-client.ts).
const client = await build({
  entryPoints: [path.join(root, 'src/cli/hook-client-main.ts')],
  // CommonJS, required by bin/toolgate.js (itself CommonJS): no ES module loader on the way.
  outfile: path.join(outdir, 'hook-client.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  minify: true,
  metafile: true,
  logLevel: 'warning',
});
const clientInputs = Object.keys(client.metafile.inputs).filter((input) => input.startsWith('src/'));
if (clientInputs.some((input) => !['src/cli/hook-client-main.ts', 'src/cli/hook-decider-client.ts', 'src/cli/hook-decider-proof.ts', 'src/cli/exit-as-hook.ts', 'src/config/user-toolgate-paths.ts'].includes(input))) {
  process.stderr.write(`bundle-hook: the hook's client must stay small, and now imports ${clientInputs.join(', ')}\n`);
  process.exit(1);
}
const modules = Object.keys(result.metafile.inputs).length;
process.stdout.write(`bundle-hook: ${path.relative(root, outfile)} (${modules} modules, ${Math.round(result.metafile.outputs[path.relative(process.cwd(), outfile)]?.bytes ?? 0 / 1024)} bytes)\n`);
