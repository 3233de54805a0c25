/**
 * After `tsc`, copies the files the compiled package reads at run time (the
 * demo script, the embedded policies, the web inbox's static files) next to
 * the compiled modules: `node scripts/copy-assets.ts [OUTDIR]`, OUTDIR being
 * tsc's (default `dist`).
 */
import { cpSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const source = path.join(root, 'src');
const target = path.join(path.resolve(root, process.argv[2] ?? 'dist'), 'src');

/** The web inbox's plain-JavaScript modules ship as they are; no other .js file under src is an asset. */
function isWebStatic(file: string): boolean {
  return path.relative(path.join(source, 'server', 'web', 'static'), file).split(path.sep)[0] !== '..';
}

function copyAssets(directory: string): number {
  let copied = 0;
  for (const name of readdirSync(directory)) {
    const file = path.join(directory, name);
    if (statSync(file).isDirectory()) copied += copyAssets(file);
    else if (/\.(ya?ml|json|html|css)$/.test(name) || (/\.js$/.test(name) && isWebStatic(file))) {
      cpSync(file, path.join(target, path.relative(source, file)));
      copied++;
    }
  }
  return copied;
}

process.stdout.write(`copied ${copyAssets(source)} asset files to ${path.relative(root, target)}\n`);
