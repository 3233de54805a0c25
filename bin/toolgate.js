#!/usr/bin/env node
// The published package runs the compiled CLI; a checkout runs the TypeScript
// sources directly (Node >= 22.18 strips types on its own).
import { existsSync } from 'node:fs';

const argv = process.argv.slice(2);
// `toolgate hook` is an agent host's permission hook: the hosts run the call when
// their hook exits with anything but 0 or 2, so every failure here exits 2.
const hook = argv[0] === 'hook';
// Before anything else is loaded: an older Node fails on the first module with a
// SyntaxError stack. The oldest Node toolgate runs on, as package.json's engines says.
const NEEDED = 22;
const major = Number(process.versions.node.split('.')[0]);
if (major < NEEDED) {
  process.stderr.write(
    `toolgate needs Node.js ${NEEDED} or newer, and this is Node.js ${process.version} (${process.execPath})${hook ? ': the call is blocked' : ''}. ` +
      `Install Node.js ${NEEDED} or 24 (https://nodejs.org/en/download, or \`nvm install 24\`) and run toolgate with it, ` +
      `or add Node 24 to this project (\`npm i -D node@24\`), which \`npx toolgate\` then runs on.\n`,
  );
  process.exit(hook ? 2 : 1);
}
try {
  // V8's code cache, as src/cli/main.ts keeps it when run directly: a second start compiles nothing again.
  (await import('node:module')).enableCompileCache?.();
  // A hook runs for every tool call: the installed package has it bundled into one file (scripts/bundle-hook.ts).
  const bundledHook = new URL('../dist/hook/toolgate-hook.mjs', import.meta.url);
  if (hook && existsSync(bundledHook)) await (await import(bundledHook.href)).runHookProcess(argv);
  const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
  const { runAsProcess } = await import(existsSync(compiled) ? compiled.href : new URL('../src/cli/main.ts', import.meta.url).href);
  await runAsProcess(argv);
} catch (error) {
  process.stderr.write(`toolgate: ${error?.stack ?? String(error)}${hook ? '\nthe call is blocked' : ''}\n`);
  process.exit(hook ? 2 : 1);
}
