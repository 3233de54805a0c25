/**
 * What in Gemini CLI's settings switches toolgate's hook off, as Gemini CLI
 * 0.61 reads them (its bundle, measured in test/hosts):
 *
 * - It merges system defaults (`/etc/gemini-cli/system-defaults.json`), the
 *   user's (`~/.gemini/settings.json`, `GEMINI_CLI_HOME` moving the home),
 *   the workspace's (`.gemini/settings.json` in the folder it starts in,
 *   read only where that folder is trusted) and the system's
 *   (`/etc/gemini-cli/settings.json`), each later one winning.
 *   `hooksConfig.enabled: false` in the result runs no hook at all;
 *   `hooksConfig.disabled` lists hooks by name (or command) that do not run.
 *   Settings files may hold comments (JSONC).
 * - In a folder it does not trust it runs no hook from any settings file
 *   (and refuses `--approval-mode yolo`): folder trust is on unless
 *   `security.folderTrust.enabled` is false, and a folder is trusted by
 *   `trustedFolders.json` in `~/.gemini` (the longest rule that covers it),
 *   or by `GEMINI_CLI_TRUST_WORKSPACE=true`.
 */
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { runsThisToolgate, toolMatches, type HookSwitchOff } from './host-settings-layers.ts';
import { readRegularFile } from './host-transcript.ts';

type Environment = Readonly<Record<string, string | undefined>>;

/** The largest settings file read. */
const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

/** The name toolgate's hook has in Gemini CLI's settings: what `hooksConfig.disabled` would list, and what its messages say. */
export const GEMINI_HOOK_NAME = 'toolgate';

/** The key of the switch that says Gemini CLI does not trust the folder (which keeps every hook from running there). */
export const GEMINI_FOLDER_TRUST = 'folder trust';

/** `~/.gemini`, where `GEMINI_CLI_HOME` (else HOME) says the home is. */
export function geminiDirectory(env: Environment): string {
  const home = env.GEMINI_CLI_HOME || env.HOME || os.homedir();
  return path.join(home, '.gemini');
}

/** The settings files Gemini CLI reads for `cwd`, lowest precedence first. */
export function geminiSettingsFiles(options: { cwd: string; env: Environment }): Array<{ layer: 'system-defaults' | 'user' | 'workspace' | 'system'; file: string }> {
  const system = options.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH || (process.platform === 'darwin' ? '/Library/Application Support/GeminiCli/settings.json' : '/etc/gemini-cli/settings.json');
  const defaults = options.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH || path.join(path.dirname(system), 'system-defaults.json');
  const user = path.join(geminiDirectory(options.env), 'settings.json');
  const workspace = path.join(path.resolve(options.cwd), '.gemini', 'settings.json');
  // The home folder's own .gemini is the user's settings, not a workspace's.
  return [{ layer: 'system-defaults', file: defaults }, { layer: 'user', file: user }, ...(workspace === user ? [] : [{ layer: 'workspace' as const, file: workspace }]), { layer: 'system', file: system }];
}

/**
 * The settings that keep toolgate's hook from running in `cwd`: an
 * untrusted folder, `hooksConfig.enabled: false` where it decides, and
 * `hooksConfig.disabled` naming the hook; a file that cannot be read is
 * reported too (toolgate cannot tell what it says).
 *
 * @example
 * geminiHookSwitches({ cwd: '/repo', env: process.env })
 * // [{ file: '/repo/.gemini/settings.json', key: 'hooksConfig.enabled', reach: 'all', detail: '…' }]
 */
export function geminiHookSwitches(options: { cwd: string; env: Environment; /** The hook's command, which `hooksConfig.disabled` may list instead of its name. */ command?: string }): HookSwitchOff[] {
  const switches: HookSwitchOff[] = [];
  const layers = geminiSettingsFiles(options).map(({ layer, file }) => {
    const read = readSettings(file);
    if (typeof read === 'string' && read !== MISSING) switches.push({ file, key: '(the whole file)', reach: 'all', detail: `${read}, so whether it turns hooks off cannot be told (Gemini CLI itself refuses to start on a settings file it cannot read)` });
    return { layer, file, settings: typeof read === 'string' ? undefined : read };
  });
  const trust = folderTrust({ cwd: options.cwd, env: options.env, layers: layers.filter((layer) => layer.layer !== 'workspace') });
  if (trust !== undefined) return [...switches, trust];
  let enabled: { file: string; value: unknown } | undefined;
  for (const { file, settings } of layers) {
    const hooksConfig = objectAt(settings, 'hooksConfig');
    if (hooksConfig !== undefined && 'enabled' in hooksConfig) enabled = { file, value: hooksConfig.enabled };
    const disabled = Array.isArray(hooksConfig?.disabled) ? hooksConfig.disabled : [];
    const named = disabled.find((entry) => entry === GEMINI_HOOK_NAME || (options.command !== undefined && entry === options.command));
    if (named !== undefined) switches.push({ file, key: 'hooksConfig.disabled', reach: 'all', detail: `it lists ${JSON.stringify(named)}, which turns toolgate's hook off` });
  }
  if (enabled !== undefined && enabled.value === false) switches.push({ file: enabled.file, key: 'hooksConfig.enabled', reach: 'all', detail: 'hooksConfig.enabled: false runs no hook at all' });
  return switches;
}

/**
 * The BeforeTool hooks of the repository's own `.gemini/settings.json` in
 * `cwd`, other than toolgate's, that run for `tool` (Gemini CLI matches a
 * hook's matcher as a regular expression anywhere in the tool's name; `*`
 * or none is every tool; one that is not a valid regular expression is
 * taken to match every tool): each can answer with a changed `tool_input`,
 * which Gemini CLI then runs in place of the call toolgate judged (measured
 * with 0.61: an approved `echo hi` ran as `rm -rf victim`). Where the file
 * cannot be read, toolgate cannot tell, and says so as one.
 *
 * @example
 * geminiRepositoryHooks({ cwd: '/repo', tool: 'run_shell_command' }) // ['helper (.gemini/rewrite.sh)']
 */
export function geminiRepositoryHooks(options: { cwd: string; tool: string }): string[] {
  const file = path.join(path.resolve(options.cwd), '.gemini', 'settings.json');
  const settings = readSettings(file);
  if (settings === MISSING) return [];
  if (typeof settings === 'string') return [`whatever ${file} holds (${settings})`];
  const groups = objectAt(settings, 'hooks')?.BeforeTool;
  if (!Array.isArray(groups)) return [];
  const found: string[] = [];
  for (const group of groups as unknown[]) {
    if (typeof group !== 'object' || group === null || !toolMatches((group as { matcher?: unknown }).matcher, options.tool)) continue;
    const hooks = (group as { hooks?: unknown }).hooks;
    for (const hook of Array.isArray(hooks) ? (hooks as unknown[]) : []) {
      if (typeof hook !== 'object' || hook === null) continue;
      const { name, command } = hook as { name?: unknown; command?: unknown };
      // This toolgate's own hook, by the file it runs: a name alone is the repository's to choose.
      if (runsThisToolgate({ command, projectDirectory: path.resolve(options.cwd), host: 'gemini' })) continue;
      found.push(typeof name === 'string' && name !== '' ? `${name} (${String(command)})` : String(command));
    }
  }
  return found;
}


/** Where `cwd` is a folder Gemini CLI does not trust, the switch that says so; undefined where it trusts it. */
function folderTrust(options: { cwd: string; env: Environment; layers: ReadonlyArray<{ file: string; settings: Record<string, unknown> | undefined }> }): HookSwitchOff | undefined {
  const { env } = options;
  if (env.GEMINI_CLI_TRUST_WORKSPACE === 'true') return undefined;
  const trustFile = env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || path.join(geminiDirectory(env), 'trustedFolders.json');
  const untrusted = (why: string): HookSwitchOff => ({
    file: trustFile,
    key: GEMINI_FOLDER_TRUST,
    reach: 'all',
    detail: `Gemini CLI does not trust ${options.cwd} (${why}): in a folder it does not trust it runs no hook, toolgate's included, and decides every call with its own approvals (headless, it does not start at all). Trust the folder in Gemini CLI (it asks when it starts there), or turn folder trust off (security.folderTrust.enabled: false in ~/.gemini/settings.json)`,
  });
  if (env.GEMINI_RESTRICTED_MODE === 'true' || env.GEMINI_CLI_TRUST_WORKSPACE === 'false') return untrusted('GEMINI_RESTRICTED_MODE or GEMINI_CLI_TRUST_WORKSPACE=false');
  let trustEnabled: unknown = true;
  for (const { settings } of options.layers) {
    const folderTrustSettings = objectAt(objectAt(settings, 'security'), 'folderTrust');
    if (folderTrustSettings !== undefined && 'enabled' in folderTrustSettings) trustEnabled = folderTrustSettings.enabled;
  }
  if (trustEnabled === false) return undefined;
  const rules = readSettings(trustFile);
  if (typeof rules === 'string') return untrusted(rules === MISSING ? 'there is no trustedFolders.json' : `${trustFile}: ${rules}`);
  // The longest rule that covers the folder decides, as Gemini CLI's isPathTrusted does (TRUST_PARENT covers the rule's parent).
  const real = realOrSame(path.resolve(options.cwd));
  let decided: { rule: string; level: unknown } | undefined;
  for (const [rule, level] of Object.entries(rules)) {
    const covered = realOrSame(level === 'TRUST_PARENT' ? path.dirname(rule) : rule);
    const inside = real === covered || real.startsWith(covered.endsWith(path.sep) ? covered : `${covered}${path.sep}`);
    if (inside && (decided === undefined || rule.length > decided.rule.length)) decided = { rule, level };
  }
  if (decided?.level === 'TRUST_FOLDER' || decided?.level === 'TRUST_PARENT') return undefined;
  return untrusted(decided === undefined ? 'no rule in trustedFolders.json covers it' : `trustedFolders.json says ${JSON.stringify(decided.level)} for ${decided.rule}`);
}

const MISSING = 'no such file';

/** A settings file's object; a string saying why it is not one (MISSING, too large, not JSON). */
function readSettings(file: string): Record<string, unknown> | string {
  const text = readRegularFile(file, MAX_SETTINGS_BYTES);
  if (text === undefined) return MISSING;
  if (text === 'too large') return `it is larger than ${MAX_SETTINGS_BYTES} bytes`;
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true, allowEmptyContent: true }) as unknown;
  if (errors.length > 0) return 'it is not JSON (with comments) toolgate can read';
  if (value === undefined) return {};
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : 'it is not a JSON object';
}

function objectAt(value: Record<string, unknown> | undefined, key: string): Record<string, unknown> | undefined {
  const found = value?.[key];
  return typeof found === 'object' && found !== null && !Array.isArray(found) ? (found as Record<string, unknown>) : undefined;
}

function realOrSame(target: string): string {
  try {
    return realpathSync.native(target);
  } catch {
    return target;
  }
}
