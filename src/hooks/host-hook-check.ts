/**
 * What `toolgate doctor` checks of toolgate's hook in a host's
 * configuration: the file parses, an entry is there for every event (and,
 * for Cursor, every file tool), its matcher reaches every tool, its
 * program exists and runs, a probe call is answered within the handler's
 * timeout, the host trusts it (Codex) and blocks should it fail, and no
 * other settings file the host reads here switches it off.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { findExecutable } from '../sandbox/find-executable.ts';
import { askCodexTrust } from './codex-trust.ts';
import path from 'node:path';
import { DOCTOR_PROBE_TOOL, type HostName } from './host-call.ts';
import { claudeHookSwitches, codexHookSwitches, type HookSwitchOff } from './host-settings-layers.ts';
import { shellSplit } from '../core/shell-split.ts';
import { parse as parseJsonc } from 'jsonc-parser';
import { geminiHookSwitches } from './gemini-settings-layers.ts';
import { OPENCODE_EVENT } from './hosts/opencode.ts';
import { CURSOR_FILE_TOOLS } from './hosts/cursor.ts';
import { readOpencodePlugin } from './hosts/opencode-plugin.ts';
import { opencodeHookSwitches } from './opencode-settings-layers.ts';

import { commandOf, eventsOf, FAIL_CLOSED_SUFFIX, groupsIn, HOST_BLOCKS_ON_FAILURE, isToolgateHandler, matcherNames, readConfig, type HookHandler, type InstallScope } from './host-install.ts';

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
