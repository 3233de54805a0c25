#!/usr/bin/env node
// The published package runs the compiled CLI; a checkout runs the TypeScript
// sources directly (Node >= 22.18 strips types on its own).
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
const { main } = await import(existsSync(compiled) ? compiled.href : new URL('../src/cli/main.ts', import.meta.url).href);
process.exitCode = await main(process.argv.slice(2));
