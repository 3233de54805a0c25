/**
 * What in opencode's configuration decides whether toolgate's plugin
 * guards a session (measured with opencode 1.18.33):
 *
 * - `--pure` or OPENCODE_PURE runs no plugin of the user's: toolgate's
 *   neither, and every call runs unguarded.
 * - A repository's own opencode configuration is code opencode runs: the
 *   modules of `.opencode/plugins/` (loaded when opencode starts, in its
 *   process, before any call), `.opencode/tools/` (tools of the
 *   repository's that can take a built-in tool's name), MCP servers,
 *   formatters and language servers (commands it starts), commands whose
 *   templates run shell lines, and `shell` (the program its bash tool runs
 *   every command with: measured, a repository's `"shell": "/bin/zsh"` ran
 *   the model's commands in zsh). OPENCODE_DISABLE_PROJECT_CONFIG=1 in
 *   opencode's environment turns all of that off (measured: a repository's
 *   plugin no longer ran, its shell no longer applied); the user's own
 *   configuration still applies.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { readRegularFile } from './host-transcript.ts';
import { onPath } from './host-dialect.ts';
import type { HookSwitchOff } from './host-settings-layers.ts';

type Environment = Readonly<Record<string, string | undefined>>;

/** The largest configuration file read. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/**
 * Keys of an opencode configuration that make it run a program, or run every
 * command otherwise: plugins, providers (a provider's `npm` may be a
 * `file://` module it imports; found on review, with `{env:PWD}` in its path
 * so a repository needs no absolute one), MCP servers, formatters, language
 * servers, commands, the experimental hooks' commands, and the shell.
 */
const CODE_KEYS = ['plugin', 'provider', 'mcp', 'formatter', 'lsp', 'command', 'experimental', 'shell'] as const;
/** Folders of a `.opencode` directory whose files opencode loads as code or runs as commands. */
const CODE_FOLDERS = ['plugin', 'plugins', 'tool', 'tools', 'command', 'commands'] as const;
const CONFIG_NAMES = ['opencode.json', 'opencode.jsonc'] as const;

/** Whether opencode reads no repository's configuration (OPENCODE_DISABLE_PROJECT_CONFIG, read as opencode reads its flags). */
export function projectConfigOff(env: Environment): boolean {
  return isOn(env.OPENCODE_DISABLE_PROJECT_CONFIG);
}

/**
 * The repository's own opencode configuration that runs code, from the
 * session's folder up (opencode reads every `opencode.json` and `.opencode`
 * folder on the way): each file or folder, and what it does. None where
 * OPENCODE_DISABLE_PROJECT_CONFIG is set. A file that cannot be read counts
 * as one that might.
 *
 * @example
 * opencodeRepositoryCode({ cwd: '/repo', env: process.env }) // [{ file: '/repo/.opencode/plugins', what: 'plugins (evil.js)' }]
 */
export function opencodeRepositoryCode(options: { cwd: string; env: Environment }): Array<{ file: string; what: string }> {
  const { env } = options;
  if (projectConfigOff(env)) return [];
  const own = ownConfigDirectories(env);
  const found: Array<{ file: string; what: string }> = [];
  for (const directory of upFrom(options.cwd)) {
    const dotOpencode = path.join(directory, '.opencode');
    if (own.includes(dotOpencode)) continue;
    for (const file of [...CONFIG_NAMES.map((name) => path.join(directory, name)), ...CONFIG_NAMES.map((name) => path.join(dotOpencode, name))]) {
      const config = readConfig(file);
      if (config === undefined) continue;
      const keys = config === 'unreadable' ? ['(the whole file: it cannot be read)'] : CODE_KEYS.filter((key) => config[key] !== undefined && config[key] !== null);
      if (keys.length > 0) found.push({ file, what: keys.join(', ') });
    }
    for (const folder of CODE_FOLDERS) {
      const entries = listed(path.join(dotOpencode, folder));
      if (entries.length > 0) found.push({ file: path.join(dotOpencode, folder), what: `${folder} (${entries.slice(0, 5).join(', ')}${entries.length > 5 ? ', …' : ''})` });
    }
  }
  return found;
}

/**
 * What turns toolgate's plugin off here, or lets another program act in a
 * call's place: OPENCODE_PURE, and the repository's own code (the plugin
 * still runs then, but what it allows may not be what runs).
 */
export function opencodeHookSwitches(options: { cwd: string; env: Environment }): HookSwitchOff[] {
  const switches: HookSwitchOff[] = [];
  if (isOn(options.env.OPENCODE_PURE)) switches.push({ file: '(the environment)', key: 'OPENCODE_PURE', reach: 'all', detail: "opencode runs no plugin of yours, toolgate's neither (so does opencode --pure)" });
  for (const found of opencodeRepositoryCode(options)) {
    switches.push({ file: found.file, key: found.what, reach: 'all', hookRuns: true, detail: 'the repository\'s own opencode configuration runs code inside opencode; toolgate blocks every call here until opencode runs with OPENCODE_DISABLE_PROJECT_CONFIG=1' });
  }
  return switches;
}

/**
 * The shell opencode's bash tool runs a command with (1.18.33): its
 * configuration's `shell`, else $SHELL (fish and nu passed over for either),
 * else bash on PATH, else /bin/sh. The user's configuration only: a `shell`
 * a repository's own sets is its code, which blocks every call
 * (`opencodeRepositoryCode`) unless opencode reads no repository's
 * configuration, where it does not apply.
 */
export function opencodeShell(env: Environment): string | undefined {
  const own = [...ownConfigDirectories(env).flatMap((directory) => [...CONFIG_NAMES, 'config.json'].map((name) => path.join(directory, name))), ...(env.OPENCODE_CONFIG ? [env.OPENCODE_CONFIG] : [])];
  const shells = own.map((file) => readConfig(file)).map((config) => (typeof config === 'object' ? config.shell : undefined));
  if (env.OPENCODE_CONFIG_CONTENT) shells.push((parseJsonc(env.OPENCODE_CONFIG_CONTENT, [], { allowTrailingComma: true }) as { shell?: unknown } | undefined)?.shell);
  const configured = shells.findLast((value) => value !== undefined);
  // Configured, the shell is that one (or bash, when it is one opencode will not use); otherwise $SHELL, the same way.
  const chosen = typeof configured === 'string' && configured !== '' ? configured : env.SHELL;
  if (chosen !== undefined && chosen !== '' && !['fish', 'nu'].includes(path.basename(chosen).toLowerCase())) {
    const found = path.isAbsolute(chosen) ? (isFile(chosen) ? chosen : undefined) : onPath(chosen, env.PATH);
    if (found !== undefined) return found;
  }
  return onPath('bash', env.PATH) ?? '/bin/sh';
}

/** The user's own opencode configuration folders: $XDG_CONFIG_HOME/opencode, ~/.opencode, OPENCODE_CONFIG_DIR. */
function ownConfigDirectories(env: Environment): string[] {
  const home = env.HOME ?? '/';
  return [path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'opencode'), path.join(home, '.opencode'), ...(env.OPENCODE_CONFIG_DIR ? [path.resolve(env.OPENCODE_CONFIG_DIR)] : [])];
}

function* upFrom(cwd: string): Generator<string> {
  for (let directory = path.resolve(cwd); ; directory = path.dirname(directory)) {
    yield directory;
    if (path.dirname(directory) === directory) return;
  }
}

/** A configuration's object; undefined where there is none; `unreadable` where there is a file that cannot be read as one. */
function readConfig(file: string): Record<string, unknown> | 'unreadable' | undefined {
  const text = readRegularFile(file, MAX_CONFIG_BYTES);
  if (text === undefined) return undefined;
  if (text === 'too large') return 'unreadable';
  const value = parseJsonc(text, [], { allowTrailingComma: true }) as unknown;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : 'unreadable';
}

function isFile(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isFile() === true;
}

/** The names in a folder (none where it is not one). */
function listed(folder: string): string[] {
  try {
    return readdirSync(folder).sort();
  } catch {
    return [];
  }
}

/** opencode's flags are on for "true" and "1". */
function isOn(value: string | undefined): boolean {
  return value !== undefined && ['true', '1'].includes(value.trim().toLowerCase());
}
