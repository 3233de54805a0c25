#!/usr/bin/env node
// The published package runs the compiled CLI; a checkout runs the TypeScript
// sources directly (Node >= 22.18 strips types on its own).
//
// CommonJS (bin/package.json says so): an agent host starts this file for
// every tool call, and an ES module as the entry starts Node's ES module
// loader first, milliseconds of each call; so does an ES import of node:fs.
'use strict';
const { existsSync } = require('node:fs');
const path = require('node:path');

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

/** An ES module of this package, by its path from here. */
const load = (relative) => import(require('node:url').pathToFileURL(path.join(__dirname, relative)).href);
// V8's code cache, as src/cli/main.ts keeps it when run directly: a second start compiles nothing again
// (the hook's client too, measured: about 1 ms of a call the decider answers).
const enableCompileCache = () => require('node:module').enableCompileCache?.();

async function main() {
  // A hook runs for every tool call: the installed package has it bundled into one file (scripts/bundle-hook.ts),
  // and a warm process of it, the decider, answers every call after the first (src/cli/hook-decider-client.ts).
  const bundledHook = path.join(__dirname, '../dist/hook/toolgate-hook.mjs');
  if (hook && existsSync(bundledHook)) {
    enableCompileCache();
    const { hookThroughDecider } = require('../dist/hook/hook-client.cjs');
    const { startDecider } = await hookThroughDecider({ argv, bundle: bundledHook, bin: __filename });
    await (await load('../dist/hook/toolgate-hook.mjs')).runHookProcess(argv, { afterAnswer: startDecider });
  }
  enableCompileCache();
  // Not a command: the decider itself, started by a hook (above) with its socket and the bundle it runs.
  if (argv[0] === '__hook-decider' && existsSync(bundledHook)) {
    await (await load('../dist/hook/toolgate-hook.mjs')).serveHookDecider({ socket: argv[1], bundle: argv[2] });
    return; // It exits by itself (idle, replaced, upgraded); nothing below is for it.
  }
  const compiled = path.join(__dirname, '../dist/src/cli/main.js');
  const { runAsProcess } = await load(existsSync(compiled) ? '../dist/src/cli/main.js' : '../src/cli/main.ts');
  await runAsProcess(argv);
}

main().catch((error) => {
  process.stderr.write(`toolgate: ${error?.stack ?? String(error)}${hook ? '\nthe call is blocked' : ''}\n`);
  process.exit(hook ? 2 : 1);
});
