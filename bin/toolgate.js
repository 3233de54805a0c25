#!/usr/bin/env node
// The published package runs the compiled CLI; a checkout runs the TypeScript
// sources directly (Node >= 22.18 strips types on its own).
// node:fs as CommonJS gives it where Node can (22.3 and later): an ES import of it also loads its streams, milliseconds
// of every hook call.
const { existsSync } = process.getBuiltinModule?.('node:fs') ?? (await import('node:fs'));

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
  // (Not before a hook's call goes to its decider: that compiles next to nothing.)
  const enableCompileCache = async () => (process.getBuiltinModule?.('node:module') ?? (await import('node:module'))).enableCompileCache?.();
  // A hook runs for every tool call: the installed package has it bundled into one file (scripts/bundle-hook.ts),
  // and a warm process of it, the decider, answers every call after the first (src/cli/hook-decider-client.ts).
  const bundledHook = new URL('../dist/hook/toolgate-hook.mjs', import.meta.url);
  if (hook && existsSync(bundledHook)) {
    const { fileURLToPath } = process.getBuiltinModule?.('node:url') ?? (await import('node:url'));
    const bundle = fileURLToPath(bundledHook);
    const client = await import(new URL('../dist/hook/hook-client.mjs', import.meta.url).href);
    const { startDecider } = await client.hookThroughDecider({ argv, bundle, bin: fileURLToPath(import.meta.url) });
    await enableCompileCache();
    await (await import(bundledHook.href)).runHookProcess(argv, { afterAnswer: startDecider });
  }
  // Not a command: the decider itself, started by a hook (above) with its socket and the bundle it runs.
  await enableCompileCache();
  if (argv[0] === '__hook-decider' && existsSync(bundledHook)) {
    await (await import(bundledHook.href)).serveHookDecider({ socket: argv[1], bundle: argv[2] });
    await new Promise(() => {}); // It exits by itself (idle, replaced, upgraded); nothing below is for it.
  }
  const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
  const { runAsProcess } = await import(existsSync(compiled) ? compiled.href : new URL('../src/cli/main.ts', import.meta.url).href);
  await runAsProcess(argv);
} catch (error) {
  process.stderr.write(`toolgate: ${error?.stack ?? String(error)}${hook ? '\nthe call is blocked' : ''}\n`);
  process.exit(hook ? 2 : 1);
}
