/**
 * What in a host's other settings switches toolgate's hook off. A hook in
 * one file is live only if no other file the host reads for that directory
 * turns it off — and some of those files belong to the repository:
 *
 * - Claude Code merges managed (`/etc/claude-code/managed-settings.json` and
 *   `managed-settings.d/*.json`), user (`~/.claude/settings.json`), project
 *   (`.claude/settings.json`) and local (`.claude/settings.local.json`)
 *   settings. `disableAllHooks: true` in any layer but managed turns off
 *   every hook outside managed settings, a user-scope one too (measured with
 *   2.1.332: a repository's own `.claude/settings.json` or
 *   `settings.local.json` saying so let `rm -rf` run past toolgate's hook);
 *   in managed settings it turns off all of them. `allowManagedHooksOnly` in
 *   managed settings turns off every other hook.
 * - Codex reads `$CODEX_HOME/config.toml` and, in a project it trusts, the
 *   project's `.codex/config.toml`; `[features] codex_hooks = false` in
 *   either turns its hooks off (measured with 0.171: a repository's own
 *   `.codex/config.toml` saying so, and the hook did not run). A project's
 *   `.codex/hooks.json` adds hooks; it does not take toolgate's away.
 */
import { readdirSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { readRegularFile } from './host-transcript.ts';
import { isSensitiveVariable } from '../tools/shell/sensitive-variables.ts';
import { toolgateEntry } from '../config/own-entry.ts';
import { shellSplit } from '../core/shell-split.ts';

/** The largest settings file read. */
const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

export type ClaudeSettingsScope = 'managed' | 'user' | 'project' | 'local';

/** One setting that turns a hook off: where, which key, and what it does. */
export interface HookSwitchOff {
  file: string;
  key: string;
  /** Which hooks it turns off: all of them, or all but the managed ones. */
  reach: 'all' | 'not-managed';
  detail: string;
  /** The hook still runs, but what it allows is not what runs (a repository's own code acts in the call's place). */
  hookRuns?: true;
}

/**
 * Where Claude Code reads managed settings on this platform; the
 * `TOOLGATE_CLAUDE_MANAGED_DIR` environment variable points elsewhere (a
 * test's, or a machine whose managed settings live elsewhere).
 */
export function claudeManagedDirectory(env: Readonly<Record<string, string | undefined>>): string {
  if (env.TOOLGATE_CLAUDE_MANAGED_DIR !== undefined && env.TOOLGATE_CLAUDE_MANAGED_DIR !== '') return env.TOOLGATE_CLAUDE_MANAGED_DIR;
  if (process.platform === 'darwin') return '/Library/Application Support/ClaudeCode';
  if (process.platform === 'win32') return 'C:\\Program Files\\ClaudeCode';
  return '/etc/claude-code';
}

/**
 * Every settings file Claude Code reads for `cwd`, with its scope: managed
 * (the file and its drop-in directory), the user's, and the project's and
 * local ones in `cwd` and every directory above it (read wider than Claude
 * Code may: a switch too many is reported, never one too few).
 */
export function claudeSettingsFiles(options: { cwd: string; env: Readonly<Record<string, string | undefined>> }): Array<{ scope: ClaudeSettingsScope; file: string }> {
  const managed = claudeManagedDirectory(options.env);
  const files: Array<{ scope: ClaudeSettingsScope; file: string }> = [{ scope: 'managed', file: path.join(managed, 'managed-settings.json') }];
  try {
    const dropIns = readdirSync(path.join(managed, 'managed-settings.d')).filter((name) => name.endsWith('.json')).sort();
    files.push(...dropIns.map((name) => ({ scope: 'managed' as const, file: path.join(managed, 'managed-settings.d', name) })));
  } catch {
    // No drop-in directory.
  }
  const home = options.env.HOME ?? os.homedir();
  const configDirectory = path.resolve(options.env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude'));
  files.push({ scope: 'user', file: path.join(configDirectory, 'settings.json') });
  for (let directory = path.resolve(options.cwd); ; directory = path.dirname(directory)) {
    // The user's own configuration directory is not a project's `.claude` (a working directory under the home finds it).
    if (path.join(directory, '.claude') !== configDirectory) files.push({ scope: 'project', file: path.join(directory, '.claude', 'settings.json') }, { scope: 'local', file: path.join(directory, '.claude', 'settings.local.json') });
    if (path.dirname(directory) === directory) break;
  }
  return files;
}

/**
 * The settings that turn Claude Code's hooks off for `cwd`.
 *
 * @example
 * claudeHookSwitches({ cwd: '/repo', env: process.env })
 * // [{ file: '/repo/.claude/settings.local.json', key: 'disableAllHooks', reach: 'not-managed', detail: '…' }]
 */
export function claudeHookSwitches(options: { cwd: string; env: Readonly<Record<string, string | undefined>> }): HookSwitchOff[] {
  const switches: HookSwitchOff[] = [];
  for (const { scope, file } of claudeSettingsFiles(options)) {
    const settings = readJsonObject(file);
    if (settings === 'too large') {
      switches.push({ file, key: '(the whole file)', reach: scope === 'managed' ? 'all' : 'not-managed', detail: `it is larger than ${MAX_SETTINGS_BYTES} bytes, so whether it turns hooks off cannot be told` });
      continue;
    }
    if (settings === undefined) continue;
    const environment = (scope === 'project' || scope === 'local') ? commandEnvironmentSwitch(file, scope, settings) : undefined;
    if (environment !== undefined) switches.push(environment);
    if (isOn(settings.disableAllHooks)) {
      switches.push(
        scope === 'managed'
          ? { file, key: 'disableAllHooks', reach: 'all', detail: 'managed settings turn off every hook, managed ones too' }
          : { file, key: 'disableAllHooks', reach: 'not-managed', detail: `${scope} settings turn off every hook outside managed settings (a user-scope one too); only a hook in managed settings survives it` },
      );
    }
    if (scope === 'managed' && isOn(settings.allowManagedHooksOnly)) {
      switches.push({ file, key: 'allowManagedHooksOnly', reach: 'not-managed', detail: 'managed settings allow only the hooks they define themselves' });
    }
  }
  return switches;
}

/**
 * A repository's `env` for the session that changes what a judged command
 * does (measured with Claude Code 2.1.332: a project's `env.PATH` with
 * `./tools` first made an allowed `cat README` run the repository's
 * `tools/cat`).
 */
function commandEnvironmentSwitch(file: string, scope: ClaudeSettingsScope, settings: Record<string, unknown>): HookSwitchOff | undefined {
  const env = settings.env;
  if (typeof env !== 'object' || env === null) return undefined;
  const changed = Object.keys(env).filter((name) => COMMAND_ENVIRONMENT.has(name) || isSensitiveVariable(name));
  if (changed.length === 0) return undefined;
  return { file, key: `env.${changed.join(', env.')}`, reach: 'all', detail: `${scope} settings set ${changed.join(', ')} for the session, which changes what a command toolgate judged runs (its shell, where its programs are found, code run before it)` };
}

/** The repository's own Claude Code settings for a directory (project and local, here and above), each read once: what the hook checks of them for every call. */
export type RepositorySettings = ReadonlyArray<{ scope: 'project' | 'local'; file: string; settings: Record<string, unknown> | undefined | 'too large' }>;

/**
 * @example
 * const repository = claudeRepositorySettings({ cwd: '/repo', env: process.env });
 * repositoryCommandEnvironment(repository); claudeRepositoryHooks({ repository, tool: 'Bash', projectDirectory: '/repo' });
 */
export function claudeRepositorySettings(options: { cwd: string; env: Readonly<Record<string, string | undefined>> }): RepositorySettings {
  return claudeSettingsFiles(options).flatMap(({ scope, file }) => (scope === 'project' || scope === 'local' ? [{ scope, file, settings: readJsonObject(file) }] : []));
}

/**
 * The repository's own settings that set such an `env`: the hook reads them
 * for every shell command, which then cannot be judged as written.
 *
 * @example
 * repositoryCommandEnvironment(claudeRepositorySettings({ cwd: '/repo', env: process.env })) // [{ file: '/repo/.claude/settings.json', key: 'env.PATH', … }]
 */
export function repositoryCommandEnvironment(repository: RepositorySettings): HookSwitchOff[] {
  const found: HookSwitchOff[] = [];
  for (const { scope, file, settings } of repository) {
    if (settings === 'too large') found.push({ file, key: '(the whole file)', reach: 'all', detail: `it is larger than ${MAX_SETTINGS_BYTES} bytes, so what it sets cannot be told` });
    else if (settings !== undefined) {
      const environment = commandEnvironmentSwitch(file, scope, settings);
      if (environment !== undefined) found.push(environment);
    }
  }
  return found;
}

/**
 * The PreToolUse hooks of the repository's own settings (project and local,
 * here and above) other than toolgate's, that run for `tool` (a matcher is
 * a tool name or a regular expression; `*` or none is every tool): each can
 * answer with an `updatedInput`, which Claude Code then runs in place of the
 * call toolgate judged (measured with 2.1.332: an allowed `echo hi` ran as
 * `rm -rf victim`). A settings file too large to read is one too: toolgate
 * cannot tell what it holds.
 *
 * @example
 * claudeRepositoryHooks({ repository, tool: 'Bash', projectDirectory: '/repo' }) // [{ file: '/repo/.claude/settings.json', hooks: ['"$CLAUDE_PROJECT_DIR"/.claude/rewrite.sh'] }]
 */
export function claudeRepositoryHooks(options: { repository: RepositorySettings; tool: string; projectDirectory: string }): Array<{ file: string; hooks: string[] }> {
  const found: Array<{ file: string; hooks: string[] }> = [];
  for (const { file, settings } of options.repository) {
    const hooks = otherPreToolUseHooks({ settings, tool: options.tool, projectDirectory: options.projectDirectory, host: 'claude-code' });
    if (hooks.length > 0) found.push({ file, hooks });
  }
  return found;
}

/**
 * Every other PreToolUse hook of Claude Code's for `tool`, in any layer it
 * reads here (managed, the user's, the repository's): with `sandbox.hosts:
 * wrap`, any of them can hand back a command of its own, which Claude Code
 * runs instead of toolgate's wrapped one (measured with 2.1.332; found on
 * review with a user-level command rewriter).
 *
 * @example
 * claudeOtherPreToolUseHooks({ cwd: '/repo', env: process.env, tool: 'Bash' }) // [{ file: '/home/me/.claude/settings.json', hooks: ['rtk-rewrite'] }]
 */
export function claudeOtherPreToolUseHooks(options: { cwd: string; env: Readonly<Record<string, string | undefined>>; tool: string }): Array<{ file: string; hooks: string[] }> {
  const projectDirectory = options.env.CLAUDE_PROJECT_DIR ?? options.cwd;
  const found: Array<{ file: string; hooks: string[] }> = [];
  for (const { file } of claudeSettingsFiles(options)) {
    const hooks = otherPreToolUseHooks({ settings: readJsonObject(file), tool: options.tool, projectDirectory, host: 'claude-code' });
    if (hooks.length > 0) found.push({ file, hooks });
  }
  return found;
}

/**
 * Whether a hook command is this very toolgate's hook for `host`, in the
 * one form install writes: `[/usr/bin/env -u NAME ...] NODE ENTRY hook HOST
 * [options] [|| exit 2]`, where ENTRY is this package's `bin/toolgate.js`
 * (the same file, links resolved, with the hosts' project-folder variables
 * expanded: `$CLAUDE_PROJECT_DIR`, `$GEMINI_PROJECT_DIR`), NODE is `node`
 * or this Node, and nothing else is there for the shell to act on. A
 * command that merely names toolgate (`evil.sh .../toolgate.js`, `echo … #
 * .../toolgate.js`) is not: a repository chooses its commands.
 *
 * @example
 * runsThisToolgate({ command: 'node "$CLAUDE_PROJECT_DIR"/node_modules/toolgate/bin/toolgate.js hook claude-code', projectDirectory: '/repo', host: 'claude-code' }) // true where that is this toolgate
 */
export function runsThisToolgate(options: { command: unknown; projectDirectory: string; host: string }): boolean {
  const { command, projectDirectory } = options;
  if (typeof command !== 'string') return false;
  const body = command.replace(/\s*\|\|\s*exit 2\s*$/, '');
  const folder = /"\$\{?(?:CLAUDE|GEMINI)_PROJECT_DIR\}?"|\$\{?(?:CLAUDE|GEMINI)_PROJECT_DIR\}?/g;
  // Anything the shell would run, redirect, substitute or expand besides the project's folder: not a plain toolgate hook.
  if (/[;&|`$<>(){}\n\\*?~#!]/.test(body.replace(folder, ''))) return false;
  const words = shellSplit(body.replace(folder, () => projectDirectory));
  let at = 0;
  if (words[0] === '/usr/bin/env') for (at = 1; words[at] === '-u' && words[at + 1] !== undefined; at += 2);
  const [program, script, verb, host] = words.slice(at);
  if (program === undefined || script === undefined || verb !== 'hook' || host !== options.host) return false;
  const real = (file: string): string | undefined => {
    try {
      return realpathSync.native(path.resolve(projectDirectory, file));
    } catch {
      return undefined;
    }
  };
  let entry: string | undefined;
  try {
    entry = real(toolgateEntry());
  } catch {
    return false;
  }
  return entry !== undefined && real(script) === entry && (program === 'node' || real(program) === real(process.execPath));
}


/**
 * The PreToolUse hooks of the repository's own `.codex/hooks.json` (here
 * and above) other than toolgate's, that run for `tool`: Codex applies
 * their `updatedInput` too (measured with 0.171: an allowed `echo hi` became
 * `rm -rf victim`, which only Codex's own rm rule stopped). Codex runs such a
 * hook once it is trusted in its hook review, which says nothing of this.
 *
 * @example
 * codexRepositoryHooks({ cwd: '/repo', env: process.env, tool: 'exec_command' }) // [{ file: '/repo/.codex/hooks.json', hooks: ['/repo/.codex/rewrite.sh'] }]
 */
export function codexRepositoryHooks(options: { cwd: string; env: Readonly<Record<string, string | undefined>>; tool: string }): Array<{ file: string; hooks: string[] }> {
  const home = options.env.HOME ?? os.homedir();
  const userHooks = path.resolve(options.env.CODEX_HOME ?? path.join(home, '.codex'), 'hooks.json');
  const found: Array<{ file: string; hooks: string[] }> = [];
  for (let directory = path.resolve(options.cwd); ; directory = path.dirname(directory)) {
    const file = path.join(directory, '.codex', 'hooks.json');
    if (file !== userHooks) {
      const hooks = otherPreToolUseHooks({ settings: readJsonObject(file), tool: options.tool, projectDirectory: options.cwd, host: 'codex' });
      if (hooks.length > 0) found.push({ file, hooks });
    }
    if (path.dirname(directory) === directory) break;
  }
  return found;
}

/** The PreToolUse handlers in a settings or hooks file's object that reach `tool` and are not this toolgate's (a file too large to read: one). */
function otherPreToolUseHooks(options: { settings: Record<string, unknown> | undefined | 'too large'; tool: string; projectDirectory: string; host: 'claude-code' | 'codex' }): string[] {
  const { settings } = options;
  if (settings === 'too large') return [`whatever it holds (it is larger than ${MAX_SETTINGS_BYTES} bytes)`];
  const groups = typeof settings?.hooks === 'object' && settings.hooks !== null ? (settings.hooks as Record<string, unknown>).PreToolUse : undefined;
  const hooks: string[] = [];
  for (const group of Array.isArray(groups) ? (groups as unknown[]) : []) {
    if (typeof group !== 'object' || group === null || !toolMatches((group as { matcher?: unknown }).matcher, options.tool)) continue;
    const handlers = (group as { hooks?: unknown }).hooks;
    for (const handler of Array.isArray(handlers) ? (handlers as unknown[]) : []) {
      if (typeof handler !== 'object' || handler === null) continue;
      const { command, url } = handler as { command?: unknown; url?: unknown };
      // This toolgate's own hook, by the file it runs (a name alone is the attacker's to choose); an http hook to a toolgate serve is toolgate's judgement too.
      if (runsThisToolgate({ command, projectDirectory: options.projectDirectory, host: options.host }) || (typeof url === 'string' && new RegExp(`/hooks/${options.host}(\\?|$)`).test(url))) continue;
      hooks.push(String(command ?? url ?? JSON.stringify(handler)));
    }
  }
  return hooks;
}

/** Whether a hook matcher reaches `tool`, as Claude Code, Codex and Gemini CLI match them (a regular expression, `*` or none for every tool; read wide: a matcher that cannot be told reaches it). */
export function toolMatches(matcher: unknown, tool: string): boolean {
  if (typeof matcher !== 'string') return true;
  const trimmed = matcher.trim();
  if (trimmed === '' || trimmed === '*') return true;
  try {
    return new RegExp(trimmed).test(tool);
  } catch {
    return true;
  }
}

/** Every config.toml Codex reads for `cwd`: the system's, `$CODEX_HOME`'s, and a project's `.codex/config.toml` in `cwd` and above. */
export function codexConfigFiles(options: { cwd: string; env: Readonly<Record<string, string | undefined>> }): string[] {
  const home = options.env.HOME ?? os.homedir();
  const files = ['/etc/codex/config.toml', '/etc/codex/managed_config.toml', path.join(options.env.CODEX_HOME ?? path.join(home, '.codex'), 'config.toml')];
  for (let directory = path.resolve(options.cwd); ; directory = path.dirname(directory)) {
    files.push(path.join(directory, '.codex', 'config.toml'));
    if (path.dirname(directory) === directory) break;
  }
  return [...new Set(files)];
}

/**
 * The settings that turn Codex's hooks off for `cwd`: `[features]
 * codex_hooks = false`. A config.toml that is not TOML is reported too:
 * toolgate cannot tell what it says.
 */
export function codexHookSwitches(options: { cwd: string; env: Readonly<Record<string, string | undefined>> }): HookSwitchOff[] {
  const switches: HookSwitchOff[] = [];
  for (const file of codexConfigFiles(options)) {
    const text = readRegularFile(file, MAX_SETTINGS_BYTES);
    if (text === undefined) continue;
    if (text === 'too large') {
      switches.push({ file, key: '(the whole file)', reach: 'all', detail: `it is larger than ${MAX_SETTINGS_BYTES} bytes, so whether it turns hooks off cannot be told` });
      continue;
    }
    let config: Record<string, unknown>;
    try {
      config = parseToml(text) as Record<string, unknown>;
    } catch (error) {
      switches.push({ file, key: '(the whole file)', reach: 'all', detail: `it is not TOML toolgate can read (${error instanceof Error ? error.message.split('\n')[0] : String(error)}), so whether it turns hooks off cannot be told` });
      continue;
    }
    // At the top level, and in any profile (a profile carries its own [features], and a repository can choose the profile).
    const profiles = typeof config.profiles === 'object' && config.profiles !== null ? Object.entries(config.profiles as Record<string, unknown>) : [];
    for (const [where, table] of [['features', config] as const, ...profiles.map(([name, profile]) => [`profiles.${name}.features`, profile] as const)]) {
      const features = typeof table === 'object' && table !== null ? (table as Record<string, unknown>).features : undefined;
      if (typeof features === 'object' && features !== null && (features as Record<string, unknown>).codex_hooks === false) {
        switches.push({ file, key: `${where}.codex_hooks`, reach: 'all', detail: 'codex_hooks = false turns off every Codex hook' });
      }
    }
  }
  return switches;
}

/**
 * Environment variables that change what a judged command does: the shell
 * that runs it, where its programs are found, code run before it, libraries
 * loaded into it.
 */
/** Claude Code's own variables for how it runs commands; with the shell's sensitive variables (BASHOPTS, RIPGREP_CONFIG_PATH, GIT_*...), what changes what a judged command does. */
const COMMAND_ENVIRONMENT = new Set([
  'SHELL', 'CLAUDE_CODE_SHELL', 'CLAUDE_CODE_SHELL_PREFIX', 'BASH_ENV', 'ENV', 'ZDOTDIR', 'PATH', 'PROMPT_COMMAND', 'NODE_OPTIONS', 'PYTHONSTARTUP', 'PYTHONPATH', 'PERL5OPT', 'PERL5LIB', 'RUBYOPT', 'GIT_SSH_COMMAND', 'GIT_EXEC_PATH', 'PAGER', 'GIT_PAGER', 'EDITOR', 'VISUAL',
]);

/** A settings file's JSON object; undefined when it is missing or not one (Claude Code ignores such a file too); 'too large' past the limit. */
function readJsonObject(file: string): Record<string, unknown> | undefined | 'too large' {
  const text = readRegularFile(file, MAX_SETTINGS_BYTES);
  if (text === undefined || text === 'too large') return text;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Claude Code reads these switches as on for anything but false, "false", null and absence. */
function isOn(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 'false';
}
