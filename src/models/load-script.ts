import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScriptError } from './errors/script-error.ts';
import { parseScript } from './parse-script.ts';
import type { Script } from './script-schema.ts';

/** Scripts shipped with toolgate, loaded as `script:<name>` (a file of that name needs `./`). */
export const BUILTIN_SCRIPTS = ['demo'] as const;
export type BuiltinScriptName = (typeof BUILTIN_SCRIPTS)[number];

/**
 * Reads and parses a script file (YAML or JSON), or a built-in script by
 * name (`demo`, also written `script:demo`). Relative paths resolve against
 * `cwd`. Throws `ScriptError` with file, line and column for anything wrong,
 * including a missing file (code `SCRIPT_NOT_FOUND`).
 *
 * @example
 * const demo = await loadScript('demo');
 * const mine = await loadScript('scripts/refactor.yaml', { cwd: process.cwd() });
 */
export async function loadScript(file: string, options: { cwd?: string; signal?: AbortSignal } = {}): Promise<Script> {
  const reference = file.startsWith('script:') ? file.slice('script:'.length) : file;
  const absolute = isBuiltinScript(reference) ? builtinScriptPath(reference) : path.resolve(options.cwd ?? process.cwd(), reference);
  let text: string;
  try {
    text = await readFile(absolute, { encoding: 'utf8', ...(options.signal === undefined ? {} : { signal: options.signal }) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === 'ENOENT'
        ? isBuiltinScript(reference)
          ? `the built-in script "${reference}" is missing from this installation (it should be at ${absolute}); reinstall toolgate`
          : `no such file: check the path (relative paths resolve against ${options.cwd ?? process.cwd()}), or use a built-in script: ${BUILTIN_SCRIPTS.map((name) => `script:${name}`).join(', ')}`
        : code === 'EISDIR'
          ? 'this is a directory, not a script file'
          : `cannot read the script file (${code ?? (error as Error).message})`;
    throw new ScriptError({ file: absolute, issues: [{ path: '', message }], code: 'SCRIPT_NOT_FOUND' });
  }
  return parseScript({ text, source: absolute });
}

/**
 * Whether `name` names a built-in script rather than a file.
 *
 * @example
 * isBuiltinScript('demo'); // true
 */
export function isBuiltinScript(name: string): name is BuiltinScriptName {
  return (BUILTIN_SCRIPTS as readonly string[]).includes(name);
}

/**
 * Where a built-in script lives: `scripts/<name>.yaml` beside this module.
 *
 * @example
 * builtinScriptPath('demo'); // /…/src/models/scripts/demo.yaml
 */
export function builtinScriptPath(name: BuiltinScriptName): string {
  return fileURLToPath(new URL(`./scripts/${name}.yaml`, import.meta.url));
}
