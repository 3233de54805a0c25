/**
 * toolgate's hook in a host's own configuration: where each host reads its
 * hooks, the entry `toolgate install` adds (and nothing else it touches),
 * and the entry `toolgate uninstall` removes (exactly those). What
 * `toolgate doctor` checks of one is host-hook-check.ts's.
 */
import { quoteShellWord } from '../core/quote-shell-word.ts';
import os from 'node:os';
import path from 'node:path';
import { type HostName } from './host-call.ts';
import { claudeManagedDirectory } from './host-settings-layers.ts';
import { applyEdits, modify, parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { GEMINI_HOOK_NAME, geminiDirectory } from './gemini-settings-layers.ts';
import { OPENCODE_EVENT } from './hosts/opencode.ts';
import { CURSOR_FILE_TOOLS } from './hosts/cursor.ts';
import { opencodePluginSource, readOpencodePlugin } from './hosts/opencode-plugin.ts';

export type InstallScope = 'project' | 'local' | 'user' | 'managed';

/** The hosts `toolgate install` writes a hook for (and `toolgate init --for` writes a starter policy for). */
export const INSTALLABLE_HOSTS: readonly HostName[] = ['claude-code', 'codex', 'gemini', 'copilot', 'opencode', 'cursor'];

/**
 * The event each host calls its hook before a tool runs: the list in
 * `hooks` toolgate's entry goes in. Its entries are `{matcher, hooks:
 * [handlers]}` groups, but for Copilot CLI, whose list holds the handlers
 * themselves (`groupsIn` and `entriesOf` read and write both the same way).
 */
const HOOK_EVENT: Readonly<Record<HostName, 'PreToolUse' | 'BeforeTool' | 'preToolUse' | 'beforeShellExecution' | typeof OPENCODE_EVENT>> = {
  'claude-code': 'PreToolUse',
  codex: 'PreToolUse',
  gemini: 'BeforeTool',
  copilot: 'preToolUse',
  cursor: 'beforeShellExecution',
  opencode: OPENCODE_EVENT,
};

/** Cursor's events before an action whose answer it enforces: toolgate's entry goes in each. */
const CURSOR_EVENTS = ['beforeShellExecution', 'beforeMCPExecution', 'beforeReadFile', 'preToolUse'] as const;

/**
 * Cursor's preToolUse fires for every tool, its shell, reads and MCP tools
 * too, which have events of their own: toolgate's entry there matches its
 * file changes alone (a pattern of tool names), or those calls would be
 * judged (and asked about) twice.
 */
const CURSOR_FILE_MATCHER = CURSOR_FILE_TOOLS.join('|');

/** toolgate's handler as it goes in `event`: Cursor's preToolUse entry carries its matcher. */
function handlerFor(host: HostName, event: string, handler: HookHandler): HookHandler {
  return host === 'cursor' && event === 'preToolUse' ? { ...handler, matcher: CURSOR_FILE_MATCHER } : handler;
}

/**
 * Copilot CLI's events: preToolUse before every call, and permissionRequest
 * in place of its own prompt, which gets a call its preToolUse hook failed
 * to answer (timed out, answered what it cannot read), where Copilot CLI
 * with --allow-all-tools would run it unjudged (measured with 1.0.102).
 */
const COPILOT_EVENTS = ['preToolUse', 'permissionRequest'] as const;

/** The events toolgate's entry goes in, for `host`. */
export function eventsOf(host: HostName): readonly string[] {
  return host === 'cursor' ? CURSOR_EVENTS : host === 'copilot' ? COPILOT_EVENTS : [HOOK_EVENT[host]];
}

/** Hosts whose event lists hold the handlers themselves, not `{matcher, hooks}` groups. */
const FLAT_HOSTS: ReadonlySet<HostName> = new Set(['copilot', 'cursor']);

/** Where the host reads its PreToolUse hooks for `scope`. Throws for a scope the host has not. */
export function hostConfigFile(options: { host: HostName; scope: InstallScope; cwd: string; env: Readonly<Record<string, string | undefined>> }): string {
  const home = options.env.HOME ?? os.homedir();
  if (options.host === 'claude-code') {
    if (options.scope === 'managed') return path.join(claudeManagedDirectory(options.env), 'managed-settings.json');
    if (options.scope === 'project') return path.join(options.cwd, '.claude', 'settings.json');
    if (options.scope === 'local') return path.join(options.cwd, '.claude', 'settings.local.json');
    return path.join(options.env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude'), 'settings.json');
  }
  if (options.host === 'gemini') {
    if (options.scope === 'project') return path.join(options.cwd, '.gemini', 'settings.json');
    if (options.scope === 'user') return path.join(geminiDirectory(options.env), 'settings.json');
    throw new HostConfigError('Gemini CLI reads hooks from ~/.gemini/settings.json (--scope user) and a project\'s .gemini/settings.json (--scope project)');
  }
  if (options.host === 'opencode') {
    // opencode runs every module of its plugins folder; the user's folder reaches every project.
    if (options.scope !== 'user') throw new HostConfigError("opencode's hook is a plugin toolgate writes to your opencode plugins folder ($XDG_CONFIG_HOME/opencode/plugins, ~/.config/opencode/plugins): use --scope user");
    return path.join(options.env.XDG_CONFIG_HOME || path.join(home, '.config'), 'opencode', 'plugins', 'toolgate.js');
  }
  if (options.host === 'cursor') {
    // Cursor runs the hooks of all of them: the user's (~/.cursor/hooks.json) and the workspace's (.cursor/hooks.json).
    if (options.scope === 'project') return path.join(options.cwd, '.cursor', 'hooks.json');
    if (options.scope === 'user') return path.join(home, '.cursor', 'hooks.json');
    throw new HostConfigError("Cursor reads hooks from ~/.cursor/hooks.json (--scope user) and a workspace's .cursor/hooks.json (--scope project)");
  }
  if (options.host === 'copilot') {
    // Headless (-p), Copilot CLI ignores a repository's .github/hooks (measured with 1.0.102): its home's hooks folder is what it reads.
    if (options.scope !== 'user') throw new HostConfigError("GitHub Copilot CLI run headless reads hooks only from $COPILOT_HOME/hooks/ (~/.copilot/hooks), not from a repository's .github/hooks: use --scope user");
    return path.join(options.env.COPILOT_HOME ?? path.join(home, '.copilot'), 'hooks', 'toolgate.json');
  }
  if (options.scope !== 'user') throw new HostConfigError('Codex reads its hooks from $CODEX_HOME/hooks.json only: use --scope user');
  return path.join(options.env.CODEX_HOME ?? path.join(home, '.codex'), 'hooks.json');
}

/**
 * The hook command line a host's configuration holds: the words quoted for
 * the POSIX shell the hosts run it with, and `|| exit 2` after them, so that
 * a hook that dies before it can answer (node not found, killed by a signal,
 * crashed before toolgate ran) blocks the call too, which Claude Code would
 * otherwise run (it reads any exit but 0 and 2 as a hook that failed).
 *
 * @example
 * hookCommandLine(['/usr/bin/node', '/opt/toolgate/bin/toolgate.js', 'hook', 'codex']); // "/usr/bin/node /opt/toolgate/bin/toolgate.js hook codex || exit 2"
 */
export function hookCommandLine(words: readonly string[]): string {
  return `${words.map(quoteShellWord).join(' ')}${FAIL_CLOSED_SUFFIX}`;
}

export const FAIL_CLOSED_SUFFIX = ' || exit 2';

/** A host's configuration toolgate will not edit (it would lose what is there): said with the file. */
export class HostConfigError extends Error {
  override name = 'HostConfigError';
}

/** Whether a hook command is toolgate's hook for `host` (what uninstall removes and install replaces). */
export function isToolgateHook(command: unknown, host: HostName): boolean {
  return typeof command === 'string' && new RegExp(`(^|[\\s'"/])toolgate(\\.js)?'?\\s+hook\\s+${host}(\\s|$)`).test(command);
}

/** Whether a handler is toolgate's for `host`: its command hook, or an `http` hook posting to toolgate serve's `/hooks/<host>`. */
export function isToolgateHandler(handler: HookHandler, host: HostName): boolean {
  if (handler.type === 'http') return typeof handler.url === 'string' && new RegExp(`/hooks/${host}(\\?|$)`).test(handler.url);
  return isToolgateHook(commandOf(handler), host);
}

/** The tool names a Cursor matcher names: its `|`-separated alternatives (no matcher: every tool). */
export function matcherNames(matcher: unknown): readonly string[] {
  if (matcher === undefined || matcher === '' || matcher === '*' || matcher === '.*') return CURSOR_FILE_TOOLS;
  return typeof matcher === 'string' ? matcher.split('|').map((name) => name.trim()) : [];
}

/** A command handler's command line (Copilot CLI's is under `bash`). */
export function commandOf(handler: HookHandler): unknown {
  return handler.command ?? handler.bash;
}

/** The groups of `host`'s event in `config` (Copilot CLI's handlers, as one group for every tool). */
export function groupsIn(config: Record<string, unknown>, host: HostName, event: string = HOOK_EVENT[host]): HookGroup[] {
  const entries = (config.hooks as Record<string, unknown[] | undefined> | undefined)?.[event] ?? [];
  return FLAT_HOSTS.has(host) ? (entries.length === 0 ? [] : [{ matcher: '*', hooks: entries as HookHandler[] }]) : (entries as HookGroup[]);
}

/** The event's list as `host` writes it, from groups. */
function entriesOf(groups: readonly HookGroup[], host: HostName): unknown[] {
  return FLAT_HOSTS.has(host) ? groups.flatMap((group) => group.hooks ?? []) : [...groups];
}

export interface HookHandler {
  type?: unknown;
  command?: unknown;
  url?: unknown;
  timeout?: unknown;
  onFailure?: unknown;
  [key: string]: unknown;
}

/**
 * Claude Code 2.1.295 and later block the call themselves when a hook with
 * `onFailure: "block"` fails (exits other than 0 and 2, times out, its
 * server is down), where they would otherwise run it; earlier releases
 * ignore the key (measured with 2.1.197), where toolgate's own fail-closed
 * answers are the only guard. Codex has no such setting (0.171), and its
 * hooks.json is read strictly: nothing is added there.
 */
export const HOST_BLOCKS_ON_FAILURE: Readonly<Record<HostName, { onFailure: 'block' } | undefined>> = { 'claude-code': { onFailure: 'block' }, codex: undefined, gemini: undefined, copilot: undefined, cursor: undefined, opencode: undefined };

/**
 * The handler toolgate installs: its command hook, or (Claude Code) an
 * `http` hook posting to toolgate serve with the token from
 * `TOOLGATE_TOKEN`, with the host's own fail-closed setting where it has one.
 *
 * @example
 * toolgateHandler({ host: 'claude-code', target: { command }, timeoutSeconds: 600 })
 * // { type: 'command', command, timeout: 600, onFailure: 'block' }
 */
export function toolgateHandler(options: { host: HostName; target: { command: string } | { url: string }; timeoutSeconds: number; /** Where a person decides an ask (the server's inbox), said while the host waits. */ inbox?: string }): HookHandler {
  const { host, target, timeoutSeconds } = options;
  const failClosed = HOST_BLOCKS_ON_FAILURE[host] ?? {};
  // Claude Code shows a hook's statusMessage while it runs: where to decide, when a person is asked in the inbox. (Codex
  // hashes the whole entry, statusMessage too, so its entry carries none.)
  const status = host === 'claude-code' && options.inbox !== undefined ? { statusMessage: `toolgate: an ask waits for a person in the inbox, ${options.inbox}` } : {};
  if ('url' in target) {
    return { type: 'http', url: target.url, headers: { Authorization: 'Bearer $TOOLGATE_TOKEN' }, allowedEnvVars: ['TOOLGATE_TOKEN'], timeout: timeoutSeconds, ...status, ...failClosed };
  }
  // Gemini CLI names its hooks in its messages and in hooksConfig.disabled, and counts their timeout in milliseconds.
  if (host === 'gemini') return { name: GEMINI_HOOK_NAME, type: 'command', command: target.command, timeout: timeoutSeconds * 1000 };
  // Copilot CLI names the command by the shell that runs it, and counts its timeout in seconds.
  if (host === 'copilot') return { type: 'command', bash: target.command, timeoutSec: timeoutSeconds };
  // Cursor runs the action when a hook fails unless its entry says failClosed (its timeout's unit is documented two ways: left to Cursor).
  if (host === 'cursor') return { command: target.command, failClosed: true };
  return { type: 'command', command: target.command, timeout: timeoutSeconds, ...status, ...failClosed };
}
interface HookGroup {
  matcher?: unknown;
  hooks?: HookHandler[];
  [key: string]: unknown;
}

/**
 * The file's JSON object, or an empty one when it does not exist; a file
 * that is not a JSON object is refused, naming the problem. Gemini CLI's
 * settings may hold comments (JSONC), which it reads, and so does this.
 */
export function readConfig(file: string, text: string | undefined, host: HostName): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  if (host === 'gemini') {
    const errors: ParseError[] = [];
    value = parseJsonc(text, errors, { allowTrailingComma: true });
    if (errors.length > 0) throw new HostConfigError(`${file} is not valid JSON, with comments or without (at offset ${errors[0]!.offset}): fix it first; toolgate does not rewrite a file it cannot read`);
  } else {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new HostConfigError(`${file} is not valid JSON (${error instanceof Error ? error.message : String(error)}): fix it first; toolgate does not rewrite a file it cannot read`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new HostConfigError(`${file} holds a JSON ${Array.isArray(value) ? 'list' : typeof value}, not an object`);
  const hooks = (value as { hooks?: unknown }).hooks;
  if (hooks !== undefined && (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks))) throw new HostConfigError(`${file}: "hooks" is not an object`);
  const flat = FLAT_HOSTS.has(host);
  for (const event of eventsOf(host)) {
    const pre = (hooks as Record<string, unknown> | undefined)?.[event];
    if (pre !== undefined && !Array.isArray(pre)) throw new HostConfigError(`${file}: "hooks.${event}" is not a list`);
    for (const [index, group] of ((pre as unknown[] | undefined) ?? []).entries()) {
      if (flat ? typeof group !== 'object' || group === null || Array.isArray(group) : typeof group !== 'object' || group === null || ((group as HookGroup).hooks !== undefined && !Array.isArray((group as HookGroup).hooks))) {
        throw new HostConfigError(`${file}: "hooks.${event}[${index}]" is not a ${host === 'copilot' ? '{type, bash, timeoutSec} object' : host === 'cursor' ? '{command, failClosed} object' : '{matcher, hooks: [...]} object'}`);
      }
    }
  }
  return value as Record<string, unknown>;
}

/** The config without toolgate's hook for `host`, and how many handlers were taken out (groups left empty by that go too). */
function withoutToolgate(config: Record<string, unknown>, host: HostName): { config: Record<string, unknown>; removed: number } {
  let result = config;
  let removed = 0;
  for (const event of eventsOf(host)) {
    const hooks = result.hooks as Record<string, unknown[] | undefined> | undefined;
    if (hooks === undefined || hooks[event] === undefined) continue;
    const groups: HookGroup[] = [];
    for (const group of groupsIn(result, host, event)) {
      const handlers = group.hooks ?? [];
      const kept = handlers.filter((handler) => !isToolgateHandler(handler, host));
      removed += handlers.length - kept.length;
      if (kept.length === handlers.length) groups.push(group);
      else if (kept.length > 0) groups.push({ ...group, hooks: kept });
    }
    const { [event]: _dropped, ...otherEvents } = hooks;
    const nextHooks = groups.length > 0 ? { ...otherEvents, [event]: entriesOf(groups, host) } : otherEvents;
    const { hooks: _hooks, ...rest } = result;
    result = Object.keys(nextHooks).length > 0 ? { ...rest, hooks: nextHooks } : rest;
  }
  return { config: result, removed };
}

/**
 * The file's new text: written whole, or, for Gemini CLI's settings (which
 * may hold comments), the original with only `hooks` edited in place.
 */
function textOf(options: { config: Record<string, unknown>; host: HostName; before: string | undefined }): string {
  const { config, host, before } = options;
  if (host !== 'gemini' || before === undefined || before.trim() === '') return `${JSON.stringify(config, null, 2)}\n`;
  const formattingOptions = { insertSpaces: true, tabSize: 2, eol: '\n' };
  const hooks = config.hooks as Record<string, unknown> | undefined;
  // toolgate's event alone, and `hooks` itself only where nothing is left in it: the user's other hooks keep their layout.
  const event = HOOK_EVENT[host];
  const edited = applyEdits(before, modify(before, ['hooks', event], hooks?.[event], { formattingOptions }));
  const result = hooks === undefined ? applyEdits(edited, modify(edited, ['hooks'], undefined, { formattingOptions })) : edited;
  // Nothing left but an empty object (a file install made, whose uninstall then removes it): written as such.
  return result.replace(/\s+/g, '') === '{}' ? '{}\n' : result;
}

/**
 * The file's text with toolgate's hook for `host` (one entry, matcher `*`),
 * replacing any toolgate hook for it there was; `changed` false when the
 * file already says exactly that.
 *
 * @example
 * const plan = planInstall({ file, text: existing, host: 'codex', handler: toolgateHandler({ host: 'codex', target: { command }, timeoutSeconds: 600 }) });
 */
export function planInstall(options: { file: string; text: string | undefined; host: HostName; handler: HookHandler; settings?: Record<string, unknown> }): { text: string; changed: boolean; replaced: number } {
  const { host } = options;
  if (host === 'opencode') {
    const before = options.text === undefined ? undefined : opencodeHookIn(options.file, options.text);
    const text = opencodePluginSource({ command: String(options.handler.command), timeoutSeconds: Number(options.handler.timeout) });
    return { text, changed: text !== options.text, replaced: before === undefined ? 0 : 1 };
  }
  const config = readConfig(options.file, options.text, host);
  const { config: without, removed } = withoutToolgate(config, host);
  const hooks = (without.hooks as Record<string, unknown> | undefined) ?? {};
  const added = Object.fromEntries(eventsOf(host).map((event) => [event, entriesOf([...groupsIn(without, host, event), { matcher: '*', hooks: [handlerFor(host, event, options.handler)] }], host)]));
  // Copilot CLI's and Cursor's hooks files carry their format's version.
  const version = FLAT_HOSTS.has(host) && without.version === undefined ? { version: 1 } : {};
  const next = { ...version, ...without, ...options.settings, hooks: { ...hooks, ...added } };
  const text = textOf({ config: next, host, before: options.text });
  const changed = options.text === undefined || JSON.stringify(config) !== JSON.stringify(next);
  return { text, changed, replaced: removed };
}

/** The file's text without toolgate's hook for `host`; `removed` 0 when it had none. */
export function planUninstall(options: { file: string; text: string | undefined; host: HostName }): { text: string; removed: number } {
  // toolgate's opencode plugin is a file of its own: uninstall removes it whole (the empty text), and leaves anyone else's.
  if (options.host === 'opencode') {
    if (options.text === undefined) return { text: '', removed: 0 };
    return readOpencodePlugin(options.text) === undefined ? { text: options.text, removed: 0 } : { text: '', removed: 1 };
  }
  const { config: left, removed } = withoutToolgate(readConfig(options.file, options.text, options.host), options.host);
  // A Copilot CLI hooks file with no hook left holds nothing but the version install wrote.
  const { version: _version, ...rest } = left;
  const config = FLAT_HOSTS.has(options.host) && Object.keys(rest).length === 0 ? rest : left;
  return { text: removed === 0 && options.text !== undefined ? options.text : textOf({ config, host: options.host, before: options.text }), removed };
}

/**
 * Where toolgate's handlers for `host` sit in a host's settings text, as
 * Codex names a hook in its trust entries (`<group>:<handler>` of
 * PreToolUse); none for a text that cannot be read.
 *
 * @example
 * toolgateHandlerPositions({ file, text, host: 'codex' }) // ['0:0']
 */
export function toolgateHandlerPositions(options: { file: string; text: string | undefined; host: HostName }): string[] {
  let config: Record<string, unknown>;
  try {
    config = readConfig(options.file, options.text, options.host);
  } catch {
    return [];
  }
  const groups = groupsIn(config, options.host);
  return groups.flatMap((group, groupIndex) => (group.hooks ?? []).flatMap((handler, handlerIndex) => (isToolgateHandler(handler, options.host) ? [`${groupIndex}:${handlerIndex}`] : [])));
}

/**
 * Codex's config.toml without its trust entries for the hooks at
 * `positions` of `hooksFile` (`[hooks.state."<file>:pre_tool_use:G:H"]`
 * tables, each up to the next table), and how many were taken out. Edited as
 * text, so that the rest of the file — comments included — stays as it is.
 *
 * @example
 * withoutCodexTrust({ text, hooksFile: '/home/me/.codex/hooks.json', positions: ['0:0'] }) // { text: '…', removed: 1 }
 */
export function withoutCodexTrust(options: { text: string; hooksFile: string; positions: readonly string[] }): { text: string; removed: number } {
  const headers = new Set(options.positions.map((position) => `[hooks.state.${JSON.stringify(`${options.hooksFile}:pre_tool_use:${position}`)}]`));
  const kept: string[] = [];
  let skipping = false;
  let removed = 0;
  for (const line of options.text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('[')) {
      skipping = headers.has(trimmed.replace(/\s*#.*$/, ''));
      if (skipping) removed++;
    }
    if (!skipping) kept.push(line);
  }
  return { text: kept.join('\n'), removed };
}

/** The hook in toolgate's opencode plugin file; undefined where it is someone else's file, which install refuses to overwrite. */
export function opencodeHookIn(file: string, text: string): { command: string; timeoutSeconds: number } | undefined {
  const hook = readOpencodePlugin(text);
  if (hook === undefined) throw new HostConfigError(`${file} is not toolgate's plugin (it lacks toolgate's first line): toolgate does not overwrite a plugin of someone else's; move it, then install again`);
  return hook === 'unreadable' ? undefined : hook;
}
