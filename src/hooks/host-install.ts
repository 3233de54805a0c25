/**
 * toolgate's hook in a host's own configuration: where each host reads its
 * hooks, the entry `toolgate install` adds (and nothing else it touches),
 * the entry `toolgate uninstall` removes (exactly those), and what
 * `toolgate doctor` checks of one: the file parses, the command exists and
 * can run, and a probe call is answered within the budget.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { findExecutable } from '../sandbox/find-executable.ts';
import { askCodexTrust } from './codex-trust.ts';
import { quoteShellWord } from '../core/quote-shell-word.ts';
import os from 'node:os';
import path from 'node:path';
import { DOCTOR_PROBE_TOOL, type HostName } from './host-call.ts';
import { claudeHookSwitches, claudeManagedDirectory, codexHookSwitches, type HookSwitchOff } from './host-settings-layers.ts';
import { shellSplit } from '../core/shell-split.ts';
import { applyEdits, modify, parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { GEMINI_HOOK_NAME, geminiDirectory, geminiHookSwitches } from './gemini-settings-layers.ts';
import { OPENCODE_EVENT } from './hosts/opencode.ts';
import { CURSOR_FILE_TOOLS } from './hosts/cursor.ts';
import { opencodePluginSource, readOpencodePlugin } from './hosts/opencode-plugin.ts';
import { opencodeHookSwitches } from './opencode-settings-layers.ts';

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
function eventsOf(host: HostName): readonly string[] {
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

const FAIL_CLOSED_SUFFIX = ' || exit 2';

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
function matcherNames(matcher: unknown): readonly string[] {
  if (matcher === undefined || matcher === '' || matcher === '*' || matcher === '.*') return CURSOR_FILE_TOOLS;
  return typeof matcher === 'string' ? matcher.split('|').map((name) => name.trim()) : [];
}

/** A command handler's command line (Copilot CLI's is under `bash`). */
function commandOf(handler: HookHandler): unknown {
  return handler.command ?? handler.bash;
}

/** The groups of `host`'s event in `config` (Copilot CLI's handlers, as one group for every tool). */
function groupsIn(config: Record<string, unknown>, host: HostName, event: string = HOOK_EVENT[host]): HookGroup[] {
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
function readConfig(file: string, text: string | undefined, host: HostName): Record<string, unknown> {
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

/** What doctor found of one host's configuration. */
export interface HostHookCheck {
  host: HostName;
  file: string;
  /**
   * `absent`: no file; `none`: no toolgate hook in it; `live`: a probe was
   * answered; `blocking`: it answers, but blocks every call; `broken`: the
   * host would ignore it and decide on its own; `untrusted`: it answers,
   * but Codex has not trusted it, so Codex skips it; `fails_open`: it
   * answers, but should it fail, Claude Code runs the call (no
   * `onFailure: "block"`); `switched_off`: another settings file the host
   * reads here (a repository's own, often) turns it off.
   */
  state: 'absent' | 'none' | 'live' | 'blocking' | 'broken' | 'untrusted' | 'fails_open' | 'switched_off';
  detail: string;
  command?: string;
  probeMs?: number;
}

/**
 * Checks toolgate's hook in `file`: the command's program exists and can
 * run, and a probe call (a tool named `toolgate_doctor_probe`, which runs
 * nothing) gets an answer the host reads, within the handler's timeout.
 *
 * @example
 * const check = await checkHostHook({ host: 'claude-code', file: '.claude/settings.json', cwd: process.cwd() });
 */
export async function checkHostHook(options: { host: HostName; file: string; scope?: InstallScope; cwd: string; env?: Readonly<Record<string, string | undefined>>; searchPath?: string | undefined }): Promise<HostHookCheck[]> {
  const { host, file } = options;
  if (!existsSync(file)) return [{ host, file, state: 'absent', detail: 'no such file' }];
  if (host === 'opencode') return [await checkOpencodePlugin({ ...options, host })];
  let config: Record<string, unknown>;
  try {
    config = readConfig(file, readFileSync(file, 'utf8'), host);
  } catch (error) {
    return [{ host, file, state: 'broken', detail: `${error instanceof Error ? error.message : String(error)}: the host cannot read its hooks` }];
  }
  const events = eventsOf(host);
  const byEvent = events.map((event) => groupsIn(config, host, event).flatMap((group) => (group.hooks ?? []).filter((handler) => isToolgateHandler(handler, host)).map((handler) => ({ handler, matcher: group.matcher }))));
  if (byEvent.every((handlers) => handlers.length === 0)) return [{ host, file, state: 'none', detail: `no toolgate hook (toolgate install ${host})` }];
  // Cursor: one entry per event; an event without one is an action toolgate never sees.
  const missing = events.filter((_event, index) => byEvent[index]!.length === 0);
  // Copilot CLI: without permissionRequest's entry, a call its preToolUse hook fails to answer in time runs (an install of before permissionRequest's).
  if (host === 'copilot' && missing.length === 1 && missing[0] === 'permissionRequest') {
    return [{ host, file, state: 'fails_open', detail: 'no toolgate hook under permissionRequest: should the preToolUse hook time out or answer what Copilot CLI cannot read, Copilot CLI runs the call. Run toolgate install copilot again' }];
  }
  if (missing.length > 0) return [{ host, file, state: 'broken', detail: `no toolgate hook under ${missing.join(', ')}: those actions never reach toolgate (toolgate install ${host} again)` }];
  // Cursor's preToolUse entry: its matcher names each of Cursor's file-changing tools.
  if (host === 'cursor') {
    const unmatched = byEvent[events.indexOf('preToolUse')]!.flatMap(({ handler }) => CURSOR_FILE_TOOLS.filter((tool) => !matcherNames(handler.matcher).includes(tool)));
    if (unmatched.length > 0) return [{ host, file, state: 'broken', detail: `toolgate's preToolUse entry does not match ${[...new Set(unmatched)].join(', ')}: those file changes never reach toolgate (toolgate install cursor again)` }];
  }
  // The same entry in each of Cursor's events is probed once (its preToolUse entry differs by its matcher alone).
  const probed = (handler: HookHandler) => JSON.stringify({ ...handler, matcher: undefined });
  const handlers = byEvent.flat().filter((entry, index, all) => all.findIndex((other) => probed(other.handler) === probed(entry.handler)) === index);
  const checks: HostHookCheck[] = [];
  for (const { handler, matcher } of handlers) {
    if (host === 'cursor' && handler.failClosed !== true) {
      checks.push({ host, file, command: String(commandOf(handler)), state: 'fails_open', detail: 'its entry has no "failClosed": true: should the hook fail (killed, past its timeout), Cursor runs the action. Run toolgate install cursor again' });
      continue;
    }
    const http = handler.type === 'http';
    const base = { host, file, command: String(http ? handler.url : commandOf(handler)) };
    // Every tool, as each host writes it (Gemini CLI's matchers are regular expressions, where ".*" is every tool too).
    if (matcher !== '*' && matcher !== '' && matcher !== undefined && !(host === 'gemini' && matcher === '.*')) {
      checks.push({ ...base, state: 'broken', detail: `its matcher is ${JSON.stringify(matcher)}: tool calls it does not match never reach toolgate (use "*")` });
      continue;
    }
    const check = http ? await checkHttpHandler({ ...options, handler, base }) : await checkCommandHandler({ ...options, handler, base });
    checks.push(switchedOff(failsOpen(handler, check), hookSwitches({ host, scope: options.scope ?? 'user', cwd: options.cwd, env: options.env ?? process.env, command: base.command })));
  }
  return checks;
}

/**
 * The settings the host reads in `cwd` that turn off a hook of `scope`
 * (host-settings-layers.ts): for Claude Code, `disableAllHooks` anywhere
 * reaches every hook but managed ones, and managed settings' own switches
 * reach all; for Codex, `codex_hooks = false` reaches all.
 */
export function hookSwitches(options: { host: HostName; scope: InstallScope; cwd: string; env: Readonly<Record<string, string | undefined>>; /** The hook's command (Gemini CLI may disable a hook by it). */ command?: string }): HookSwitchOff[] {
  if (options.host === 'codex') return codexHookSwitches(options);
  if (options.host === 'opencode') return opencodeHookSwitches(options);
  if (options.host === 'gemini') return geminiHookSwitches(options);
  // Claude Code's settings switch off Claude Code's hooks, not another host's.
  if (options.host !== 'claude-code') return [];
  return claudeHookSwitches(options).filter((found) => found.reach === 'all' || options.scope !== 'managed');
}

/** A hook another settings file turns off does not run, whatever its probe said. */
function switchedOff(check: HostHookCheck, switches: readonly HookSwitchOff[]): HostHookCheck {
  if (switches.length === 0 || check.state === 'broken') return check;
  const said = switches.map((found) => `${found.file} sets ${found.key} (${found.detail})`).join('; ');
  if (switches.every((found) => found.key.startsWith('env.') || found.hookRuns === true)) return { ...check, state: 'switched_off', detail: `${said}: the hook runs, but what it allows is not what runs here` };
  return { ...check, state: 'switched_off', detail: `${said}: the hook does not run here, and the host decides every call on its own${check.host === 'claude-code' ? '. A hook in managed settings (toolgate install claude-code --scope managed, as root) survives a repository\'s disableAllHooks' : ''}` };
}

/** A live hook of a host that can block on a failed hook by itself, without the setting: should it fail, the host runs the call. */
function failsOpen(handler: HookHandler, check: HostHookCheck): HostHookCheck {
  const wanted = HOST_BLOCKS_ON_FAILURE[check.host];
  if (check.state !== 'live' || wanted === undefined || handler.onFailure === wanted.onFailure) return check;
  return {
    ...check,
    state: 'fails_open',
    detail: `${check.detail}, but it has no "onFailure": "block": should the hook fail (killed, past its timeout${handler.type === 'http' ? ', its server down' : ''}), Claude Code (2.1.295 and later) runs the call. Run toolgate install ${check.host} again`,
  };
}

type HandlerCheck = {
  host: HostName;
  file: string;
  cwd: string;
  env?: Readonly<Record<string, string | undefined>> | undefined;
  searchPath?: string | undefined;
  handler: HookHandler;
  base: { host: HostName; file: string; command: string };
  /** Longest the probe is waited for; the handler's timeout (at most 30 s) otherwise. */
  probeLimitMs?: number;
  /** Whether Codex is asked if it trusts the hook (not before it is written). */
  askTrust?: boolean;
};

/**
 * Runs a handler `toolgate install` is about to write once, as the host
 * would, with doctor's probe call: `live` when it answers, `blocking` or
 * `broken` (saying why) when every call would be blocked or let through.
 * Codex's trust is not asked: it cannot trust a hook not yet written.
 *
 * @example
 * const probe = await probeHandler({ host: 'codex', file, handler, cwd: process.cwd() });
 * if (probe.state !== 'live') refuse(probe.detail);
 */
export function probeHandler(options: { host: HostName; file: string; handler: HookHandler; cwd: string; env?: Readonly<Record<string, string | undefined>>; probeLimitMs?: number }): Promise<HostHookCheck> {
  const base = { host: options.host, file: options.file, command: String(options.handler.type === 'http' ? options.handler.url : commandOf(options.handler)) };
  const check = { ...options, base, askTrust: false };
  return options.handler.type === 'http' ? checkHttpHandler(check) : checkCommandHandler(check);
}

/** A command hook: its program exists and runs, and a probe call is answered within its timeout (and, for Codex, Codex trusts it). */
async function checkCommandHandler(options: HandlerCheck): Promise<HostHookCheck> {
  const { handler, base, host, file } = options;
  const command = commandOf(handler) as string;
  const timeoutSeconds = handlerTimeoutSeconds(handler, host);
  const program = firstWord(command);
  // A command that ends in `|| exit 2` blocks when its program is missing: the probe says so.
  if (program !== undefined && !command.trimEnd().endsWith(FAIL_CLOSED_SUFFIX.trim()) && findExecutable({ name: program, searchPath: options.searchPath }) === undefined) {
    return { ...base, state: 'broken', detail: `${program} ${program.includes('/') ? 'does not exist or cannot be run' : 'is not on PATH'}: the host would ignore the hook and run every call (exit 126/127 does not block)` };
  }
  const probe = await runProbe({ host, command, cwd: options.cwd, env: options.env, timeoutMs: Math.min(timeoutSeconds * 1000, options.probeLimitMs ?? 30_000) });
  if (probe.code === 0 && PROBE_ANSWERED[host].test(probe.stdout)) {
    const answered = `a probe call was answered in ${probe.ms} ms (budget ${timeoutSeconds} s)`;
    if (host === 'codex' && options.askTrust !== false) {
      const trust = await codexRunsHook({ file, command, cwd: options.cwd, env: options.env, searchPath: options.searchPath });
      if (trust.runs) return { ...base, state: 'live', detail: `${answered}; ${trust.detail}`, probeMs: probe.ms };
      return { ...base, state: 'untrusted', detail: `${answered}, but ${trust.detail}: Codex skips such a hook without a word and runs every call. Trust it in Codex's hook review (/hooks), or run codex exec --dangerously-bypass-hook-trust`, probeMs: probe.ms };
    }
    return { ...base, state: 'live', detail: answered, probeMs: probe.ms };
  }
  if (probe.code === 2) return { ...base, state: 'blocking', detail: `it answers, but blocks every call: ${oneLine(probe.stderr)}`, probeMs: probe.ms };
  return { ...base, state: 'broken', detail: `a probe call ${probe.code === null ? 'timed out' : `exited ${probe.code}`}${probe.stderr.trim() === '' ? '' : ` (${oneLine(probe.stderr)})`}: the host would ignore the hook and run every call`, probeMs: probe.ms };
}

/**
 * Claude Code's `http` hook: the probe call posted as Claude Code posts it
 * (its headers, with the environment variables it names from this
 * environment), and the answer read as Claude Code reads it.
 */
async function checkHttpHandler(options: HandlerCheck): Promise<HostHookCheck> {
  const { handler, base } = options;
  const timeoutSeconds = typeof handler.timeout === 'number' ? handler.timeout : 600;
  const env = options.env ?? process.env;
  const allowed = new Set(Array.isArray(handler.allowedEnvVars) ? handler.allowedEnvVars.filter((name): name is string => typeof name === 'string') : []);
  const missing: string[] = [];
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(typeof handler.headers === 'object' && handler.headers !== null ? (handler.headers as Record<string, unknown>) : {})) {
    headers[name] = String(value).replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_whole, variable: string) => {
      const found = allowed.has(variable) ? env[variable] : undefined;
      if (found === undefined || found === '') missing.push(variable);
      return found ?? '';
    });
  }
  const blocksOnFailure = handler.onFailure === 'block';
  if (missing.length > 0) {
    return { ...base, state: 'blocking', detail: `its headers name ${[...new Set(missing)].join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not set here (or not in its allowedEnvVars): Claude Code sends it empty and toolgate serve refuses every call` };
  }
  const started = Date.now();
  try {
    const response = await fetch(String(handler.url), { method: 'POST', headers, body: probeInput(options.cwd), signal: AbortSignal.timeout(Math.min(timeoutSeconds * 1000, options.probeLimitMs ?? 30_000)) });
    const text = await response.text();
    const ms = Date.now() - started;
    const decision = /"permissionDecision"\s*:\s*"(allow|deny|ask)"/.exec(text)?.[1];
    if (response.status !== 200 || decision === undefined) {
      return { ...base, state: blocksOnFailure ? 'blocking' : 'broken', detail: `a probe call was answered ${response.status} ${oneLine(text).slice(0, 200)}: ${blocksOnFailure ? 'Claude Code blocks every call' : 'Claude Code would ignore the hook and run every call'}`, probeMs: ms };
    }
    const refusal = /"permissionDecisionReason"\s*:\s*"(?:toolgate: )?(toolgate serve: [^"]*)"/.exec(text)?.[1];
    if (refusal !== undefined) return { ...base, state: 'blocking', detail: `toolgate serve answers, but refuses every call: ${refusal}`, probeMs: ms };
    return { ...base, state: 'live', detail: `a probe call was answered in ${ms} ms (budget ${timeoutSeconds} s)`, probeMs: ms };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error instanceof Error ? error.message : String(error));
    return { ...base, state: blocksOnFailure ? 'blocking' : 'broken', detail: `a probe call could not be posted (${cause}): ${blocksOnFailure ? 'Claude Code blocks every call while the server is not answering' : 'Claude Code would ignore the hook and run every call'}`, probeMs: Date.now() - started };
  }
}

/** A hook's timeout in seconds: Gemini CLI counts it in milliseconds (default 60 s), Copilot CLI in `timeoutSec` (default 30 s), the others in seconds (default 600). */
function handlerTimeoutSeconds(handler: HookHandler, host: HostName): number {
  if (host === 'gemini') return typeof handler.timeout === 'number' ? handler.timeout / 1000 : 60;
  if (host === 'copilot') return typeof handler.timeoutSec === 'number' ? handler.timeoutSec : 30;
  if (host === 'opencode') return typeof handler.timeout === 'number' ? handler.timeout : 600;
  if (host === 'cursor') return typeof handler.timeout === 'number' ? handler.timeout : 30;
  return typeof handler.timeout === 'number' ? handler.timeout : 600;
}

/** An answer to the probe that the host reads as a decision. */
const PROBE_ANSWERED: Readonly<Record<HostName, RegExp>> = {
  'claude-code': /"permissionDecision"\s*:\s*"(allow|deny|ask)"/,
  codex: /"permissionDecision"\s*:\s*"(allow|deny|ask)"/,
  gemini: /"decision"\s*:\s*"(allow|deny|block)"/,
  copilot: /"permissionDecision"\s*:\s*"(allow|deny|ask)"/,
  cursor: /"permission"\s*:\s*"(allow|deny|ask)"/,
  opencode: /"decision"\s*:\s*"(allow|deny)"/,
};

/** What a program wrote on stderr, on one line and not too long. */
function oneLine(text: string): string {
  const joined = text.trim().replace(/\s*\n\s*/g, ' ');
  return joined.length > 500 ? `${joined.slice(0, 500)}…` : joined;
}

/** The program a hook command runs: its first word, or, after an `env` that unsets or sets variables (`env -u NODE_OPTIONS …`), the first word after those. */
function firstWord(command: string): string | undefined {
  const words = shellSplit(command);
  if (words[0] === undefined || path.basename(words[0]) !== 'env') return words[0];
  let at = 1;
  while (at < words.length && (words[at] === '-u' || words[at]!.includes('='))) at += words[at] === '-u' ? 2 : 1;
  return words[at];
}

/**
 * Whether Codex runs the hook `command` of `file`, as Codex itself says
 * (its app-server's hooks/list: trusted, and not disabled). Where no
 * `codex` is on PATH, or it cannot be asked, only whether its config.toml
 * holds a trust entry for the file's PreToolUse hooks (which its hook
 * review writes) can be read, and the detail says that the hash was not checked.
 */
async function codexRunsHook(options: { file: string; command: string; cwd: string; env: Readonly<Record<string, string | undefined>> | undefined; searchPath: string | undefined }): Promise<{ runs: boolean; detail: string }> {
  const codex = findExecutable({ name: 'codex', searchPath: options.searchPath });
  let unasked: string;
  if (codex === undefined) {
    unasked = 'no codex on PATH to ask';
  } else {
    try {
      const hooks = await askCodexTrust({ codex, file: options.file, cwd: options.cwd, env: options.env ?? process.env });
      const hook = hooks.find((candidate) => candidate.command === options.command);
      if (hook === undefined) return { runs: false, detail: `Codex (${codex}) does not list this hook among the PreToolUse hooks it reads from ${options.file}` };
      if (hook.trustStatus === 'trusted' && hook.enabled) return { runs: true, detail: `Codex trusts it (${hook.key})` };
      if (hook.trustStatus === 'trusted') return { runs: false, detail: `Codex has it disabled (enabled = false for ${hook.key} in its config.toml)` };
      if (hook.trustStatus === 'modified') return { runs: false, detail: `the hook changed since Codex trusted it (${hook.key}: its trusted_hash is of an earlier hook)` };
      return { runs: false, detail: `Codex has not trusted this hook (${hook.key} is ${hook.trustStatus})` };
    } catch (error) {
      unasked = `codex could not be asked: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  let text = '';
  try {
    text = readFileSync(path.join(path.dirname(options.file), 'config.toml'), 'utf8');
  } catch {
    // No config.toml: no trust entry.
  }
  const prefix = `[hooks.state.${JSON.stringify(`${options.file}:pre_tool_use:`).slice(0, -1)}`;
  if (text.split('\n').some((line) => line.trim().startsWith(prefix))) return { runs: true, detail: `Codex's config.toml holds a trust entry for it (${unasked}: whether its hash matches the hook as it is now was not checked)` };
  return { runs: false, detail: `Codex has not trusted this hook (no hooks.state entry for ${options.file} in its config.toml; ${unasked})` };
}

/** The hook command as the host runs it (`sh -c`), given a probe call on stdin. */
function runProbe(options: { host: HostName; command: string; cwd: string; env: Readonly<Record<string, string | undefined>> | undefined; timeoutMs: number }): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const input = probeInput(options.cwd, options.host);
  // Gemini CLI gives its hooks the project's folder as GEMINI_PROJECT_DIR and GEMINI_CWD (and CLAUDE_PROJECT_DIR, for compatibility).
  const hostVariables = options.host === 'gemini' ? { GEMINI_PROJECT_DIR: options.cwd, GEMINI_CWD: options.cwd } : {};
  // toolgate's opencode plugin starts its hook without the variables that load code into Node.
  const unset = options.host === 'opencode' ? { NODE_OPTIONS: undefined, NODE_COMPILE_CACHE: undefined, NODE_PATH: undefined } : {};
  return new Promise((resolve) => {
    // As Claude Code runs its hooks: with the project's folder in CLAUDE_PROJECT_DIR, which a portable project hook names.
    // A probe starts no decider of the hook's calls (a probe leaves no process behind): TOOLGATE_HOOK_PROBE, as src/cli/hook-decider-client.ts reads it.
    const child = spawn('sh', ['-c', options.command], { cwd: options.cwd, env: withoutUndefined({ CLAUDE_PROJECT_DIR: options.cwd, ...(options.env ?? process.env), ...hostVariables, ...unset, TOOLGATE_HOOK_PROBE: '1' }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: signal === null ? code : null, stdout, stderr, ms: Date.now() - started });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/** An environment without the variables set to undefined (spawn would pass them as the text "undefined"). */
function withoutUndefined(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The hook in toolgate's opencode plugin file; undefined where it is someone else's file, which install refuses to overwrite. */
function opencodeHookIn(file: string, text: string): { command: string; timeoutSeconds: number } | undefined {
  const hook = readOpencodePlugin(text);
  if (hook === undefined) throw new HostConfigError(`${file} is not toolgate's plugin (it lacks toolgate's first line): toolgate does not overwrite a plugin of someone else's; move it, then install again`);
  return hook === 'unreadable' ? undefined : hook;
}

/** toolgate's opencode plugin: its hook line read, then checked as any command hook (the plugin runs it with sh -c, as the probe does). */
async function checkOpencodePlugin(options: { host: HostName; file: string; scope?: InstallScope; cwd: string; env?: Readonly<Record<string, string | undefined>>; searchPath?: string | undefined }): Promise<HostHookCheck> {
  const { host, file } = options;
  const hook = readOpencodePlugin(readFileSync(file, 'utf8'));
  if (hook === undefined) return { host, file, state: 'none', detail: "a plugin, but not toolgate's (toolgate install opencode writes its own there)" };
  if (hook === 'unreadable') return { host, file, state: 'broken', detail: "toolgate's plugin, but its TOOLGATE_HOOK line cannot be read: opencode blocks every call (run toolgate install opencode again)" };
  const handler: HookHandler = { type: 'command', command: hook.command, timeout: hook.timeoutSeconds };
  const check = await checkCommandHandler({ ...options, handler, base: { host, file, command: hook.command } });
  // The plugin fails closed: a hook that does not answer blocks every call, where another host would run them.
  const closed = check.state === 'broken' ? { ...check, state: 'blocking' as const, detail: check.detail.replace(/: the host would ignore the hook and run every call.*$/, ': toolgate\'s plugin blocks every call') } : check;
  // opencode runs a call with the arguments object it handed its plugins: one that puts another object in its place, in a plugin
  // opencode runs before toolgate's, changes what toolgate judges and not what runs (found on review).
  const others = opencodeOtherPlugins({ file, env: options.env ?? process.env });
  if (others.length > 0 && closed.state === 'live') closed.detail = `${closed.detail}; note: other plugins of yours run beside it (${others.join(', ')}): one that replaces a call's arguments (output.args = …) rather than changing them makes toolgate judge arguments that do not run`;
  return switchedOff(closed, hookSwitches({ host, scope: options.scope ?? 'user', cwd: options.cwd, env: options.env ?? process.env, command: hook.command }));
}

/** The user's other opencode plugins: the files beside toolgate's, and the `plugin` entries of their configuration. */
function opencodeOtherPlugins(options: { file: string; env: Readonly<Record<string, string | undefined>> }): string[] {
  const folder = path.dirname(options.file);
  let files: string[] = [];
  try {
    files = readdirSync(folder).filter((name) => name !== path.basename(options.file) && /\.(m?[jt]s)$/.test(name));
  } catch {
    // No folder: no plugins there.
  }
  const entries: string[] = [];
  for (const name of ['opencode.json', 'opencode.jsonc', 'config.json']) {
    let text: string;
    try {
      text = readFileSync(path.join(path.dirname(folder), name), 'utf8');
    } catch {
      continue;
    }
    const plugin = (parseJsonc(text, [], { allowTrailingComma: true }) as { plugin?: unknown } | undefined)?.plugin;
    if (Array.isArray(plugin)) entries.push(...plugin.map((entry) => String(Array.isArray(entry) ? entry[0] : entry)));
  }
  return [...files, ...entries];
}

/** The probe call, in the host's shape: a tool nobody has, which runs nothing. */
function probeInput(cwd: string, host: HostName = 'claude-code'): string {
  if (host === 'gemini') return JSON.stringify({ session_id: 'toolgate-doctor', transcript_path: '', cwd, hook_event_name: 'BeforeTool', timestamp: new Date().toISOString(), tool_name: DOCTOR_PROBE_TOOL, tool_input: {} });
  if (host === 'copilot') return JSON.stringify({ sessionId: 'toolgate-doctor', timestamp: Date.now(), cwd, toolName: DOCTOR_PROBE_TOOL, toolArgs: {} });
  if (host === 'cursor') return JSON.stringify({ conversation_id: 'toolgate-doctor', generation_id: 'toolgate-doctor-probe', hook_event_name: 'preToolUse', tool_name: DOCTOR_PROBE_TOOL, tool_input: {}, tool_use_id: 'toolgate-doctor-probe', cwd: '', workspace_roots: [cwd] });
  if (host === 'opencode') return JSON.stringify({ event: OPENCODE_EVENT, tool: DOCTOR_PROBE_TOOL, sessionID: 'toolgate-doctor', callID: 'toolgate-doctor-probe', args: {}, directory: cwd, worktree: cwd });
  return JSON.stringify({ session_id: 'toolgate-doctor', cwd, hook_event_name: 'PreToolUse', tool_name: DOCTOR_PROBE_TOOL, tool_input: {}, tool_use_id: 'toolgate-doctor-probe' });
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
