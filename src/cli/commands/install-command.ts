import { existsSync } from 'node:fs';
import path from 'node:path';
import { findHostPolicy, projectRootOf } from '../../config/find-host-policy.ts';
import { quoteShellWord } from '../../core/quote-shell-word.ts';
import { toolgateConfigHome } from '../../config/user-toolgate-paths.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import type { HostName } from '../../hooks/host-call.ts';
import { loginShell } from '../../hooks/host-dialect.ts';
import { GEMINI_FOLDER_TRUST } from '../../hooks/gemini-settings-layers.ts';
import { projectConfigOff } from '../../hooks/opencode-settings-layers.ts';
import { hookSwitches, probeHandler } from '../../hooks/host-hook-check.ts';
import { INSTALLABLE_HOSTS, hookCommandLine, hostConfigFile, planInstall, planUninstall, toolgateHandler, type InstallScope } from '../../hooks/host-install.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { change } from './install-change.ts';
import { toolgateEntry } from '../../config/own-entry.ts';

const HOSTS = INSTALLABLE_HOSTS;

export const INSTALL_HELP = `Usage:
  toolgate install <host> [--scope project|local|user|managed] [--policy FILE] [--timeout SECONDS] [--dry-run]
  toolgate install <host> --approver server --server URL [--scope ...] [--timeout SECONDS] [--dry-run]
  toolgate install claude-code --approver server --server URL --http [...]

Puts toolgate's hook (toolgate hook <host>) in the host's configuration, as
its PreToolUse hook for every tool (matcher "*"), showing the change first.
Run again, it changes nothing; with other options, it replaces its own entry
and touches nothing else in the file.

Hosts and where their hooks go:
  claude-code   --scope project (default): .claude/settings.json here, which
                the project shares: the hook names toolgate in the project
                ("$CLAUDE_PROJECT_DIR"/node_modules/toolgate/...) when it is
                installed there, so every clone can run it
                --scope local: .claude/settings.local.json here, yours alone
                --scope user: $CLAUDE_CONFIG_DIR/settings.json (~/.claude)
                --scope managed (root): Claude Code's managed settings
                (/etc/claude-code/managed-settings.json), which no
                repository's settings can switch off
  codex         $CODEX_HOME/hooks.json (~/.codex); Codex runs it only once it
                is trusted (its hook review) or with --dangerously-bypass-hook-trust.
                Codex trusts it by a hash of the entry, so the entry stays
                \`toolgate hook codex\` whatever the options, which go to
                ~/.config/toolgate/hooks.json; a --timeout over 600 changes
                the entry, and install warns that Codex then runs every call
                unguarded until it is trusted again
  gemini        --scope user (default): ~/.gemini/settings.json (GEMINI_CLI_HOME
                moves the home), for every project
                --scope project: .gemini/settings.json here (Gemini CLI warns
                once about a new project hook, then runs it)
                As its BeforeTool hook named "toolgate", timeout in
                milliseconds; comments in the file are kept. Gemini CLI runs
                no hook in a folder it does not trust: install and doctor say
                so (trust the folder, or set security.folderTrust.enabled:
                false). It has no "ask" in a hook's answer: what the policy
                would ask about is denied with the reason, or, with
                --approver server, waits for a person in the inbox
  copilot       $COPILOT_HOME/hooks/toolgate.json (~/.copilot/hooks), a file of
                toolgate's own, as its preToolUse hook and its
                permissionRequest hook (timeoutSec), which gets a call
                preToolUse failed to answer in time (Copilot CLI would run it
                unjudged) and the permission prompts Copilot CLI would show;
                headless, Copilot CLI reads hooks only there, not a
                repository's .github/hooks. It asks its own user when the
                policy asks (headless, it denies, saying so)
  opencode      $XDG_CONFIG_HOME/opencode/plugins/toolgate.js
                (~/.config/opencode/plugins), a plugin of toolgate's that
                opencode loads for every project: it hands each call to
                toolgate hook opencode and runs it only on "allow" (any
                failure blocks it). opencode cannot ask from a plugin: what
                the policy would ask about is denied with the reason, or,
                with --approver server, waits in the inbox. A repository's
                own opencode configuration (.opencode/plugins, tools, MCP
                servers, formatters, shell...) runs code inside opencode:
                toolgate blocks every call in such a repository unless
                opencode runs with OPENCODE_DISABLE_PROJECT_CONFIG=1; and
                opencode --pure (OPENCODE_PURE) runs no plugin, toolgate's
                neither
  cursor        --scope user (default): ~/.cursor/hooks.json
                --scope project: .cursor/hooks.json here (shared with whoever
                clones the project)
                Under beforeShellExecution, beforeMCPExecution and
                beforeReadFile, each with "failClosed": true (without it,
                Cursor runs the action when the hook fails); the hook answers
                within 30 s (--timeout), Cursor's default wait. No Cursor runs
                here: the entries follow Cursor's documentation, untested
                against Cursor itself

Options:
  --scope S         project, local, user or managed (see above)
  --managed-hooks-only  (--scope managed) also write allowManagedHooksOnly:
                    true, so that no hook outside managed settings runs
  --policy FILE     the one policy the hook judges every call with; without
                    it, each call is judged by its project's toolgate.yaml
                    (from the call's directory up, once trusted: toolgate
                    trust), else by the user-level policy (toolgate init
                    --user); not with --approver server (the server's is used)
  --approver A      host (default: the host's own prompt) or server
  --server URL      toolgate serve's URL (--approver server); the hook reads a
                    submitter's token from TOOLGATE_TOKEN in the host's
                    environment: export it where you start the host (your
                    shell's profile), never in a settings file a project
                    commits
  --http            (claude-code, with --approver server) Claude Code's own http
                    hook posts each call to the server: no process per call.
                    The URL names the shell Claude Code runs commands with
                    (CLAUDE_CODE_SHELL or SHELL here, now): without it, every
                    shell command asks, its shell not known
  --timeout SECONDS the hook's timeout, written for both the host and the hook
                    (default 600, the hosts' default)
  --dry-run         show the change, write nothing
  -h, --help        this help

Install refuses to write a hook that another settings file the host reads
here turns off (Claude Code's disableAllHooks, in a repository's own
.claude/settings.json or settings.local.json too; Codex's [features]
codex_hooks = false; Gemini CLI's hooksConfig.enabled: false or a
hooksConfig.disabled naming "toolgate", in a repository's own
.gemini/settings.json too, or a folder it does not trust), naming the file
and the key: remove it first, or, for
Claude Code, install with --scope managed, which only managed settings reach.

Claude Code's hook is written with "onFailure": "block": Claude Code 2.1.295
and later then block a call themselves when the hook fails (killed, past its
timeout, its server down), where they would otherwise run it. toolgate's own
answers fail closed on every release.

The hook runs on this Node (${process.execPath}), whatever node the host's
PATH finds: an older Node could not start toolgate, and a hook that fails
that way lets every call run.

Exit codes:
  0  installed (or already so)   2  usage error
  1  the host's configuration could not be read or written (the file says why)
`;

export const UNINSTALL_HELP = `Usage: toolgate uninstall <host> [--scope project|local|user|managed] [--dry-run]

Takes toolgate's hook (toolgate hook <host>) out of the host's configuration
(see toolgate install --help for where), showing the change first, and
leaves everything else in the file as it is.

Exit codes:
  0  removed (or there was none)   2  usage error
  1  the host's configuration could not be read or written
`;

function parse(argv: string[], install: boolean) {
  const [host, ...rest] = argv;
  const { values } = parseCommandLine({
    argv: rest,
    options: {
      scope: { type: 'string' },
      'dry-run': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      ...(install ? { policy: { type: 'string' }, approver: { type: 'string' }, server: { type: 'string' }, timeout: { type: 'string' }, http: { type: 'boolean' }, 'managed-hooks-only': { type: 'boolean' } } : {}),
    } as const,
  });
  if (host === undefined || host === '-h' || host === '--help') return { help: true as const };
  if (!HOSTS.includes(host as HostName)) throw new UsageError(`unknown host ${JSON.stringify(host)} (hosts: ${HOSTS.join(', ')})`);
  const scope = (values.scope ?? (host === 'claude-code' ? 'project' : 'user')) as string;
  if (scope !== 'project' && scope !== 'local' && scope !== 'user' && scope !== 'managed') throw new UsageError(`--scope must be project, local, user or managed, not ${JSON.stringify(scope)}`);
  // Said before anything else is checked: there is no such place to install to.
  try {
    hostConfigFile({ host: host as HostName, scope, cwd: '/', env: {} });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return { help: values.help === true, host: host as HostName, scope: scope as InstallScope, values: values as Record<string, string | boolean | undefined> };
}

/**
 * `toolgate install <host>`.
 *
 * @example
 * await runInstallCommand(['claude-code', '--dry-run'], processIo());
 */
export async function runInstallCommand(argv: string[], io: CliIo): Promise<number> {
  const parsed = parse(argv, true);
  if (parsed.help) {
    io.stdout.write(INSTALL_HELP);
    return EXIT.ok;
  }
  const { host, scope, values } = parsed;
  const approver = (values.approver as string | undefined) ?? 'host';
  if (approver !== 'host' && approver !== 'server') throw new UsageError(`--approver must be host or server, not ${JSON.stringify(approver)}`);
  const managedOnly = values['managed-hooks-only'] === true;
  if (managedOnly && scope !== 'managed') throw new UsageError('--managed-hooks-only goes with --scope managed');
  // Cursor waits for a hook as long as its entry says, in a unit its documentation gives two ways: toolgate's hook answers within Cursor's default, 30 s.
  const timeout = values.timeout === undefined ? (host === 'cursor' ? CURSOR_TIMEOUT_SECONDS : DEFAULT_TIMEOUT_SECONDS) : Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 86_400) throw new UsageError(`--timeout must be a whole number of seconds from 1 to 86400, not ${JSON.stringify(values.timeout)}`);
  const args = ['hook', host];
  if (approver === 'server') {
    if (typeof values.server !== 'string') throw new UsageError('--approver server needs --server URL');
    if (values.policy !== undefined) throw new UsageError('--policy does not go with --approver server: the server judges with its own policy');
    args.push('--approver', 'server', '--server', values.server);
  } else {
    if (values.server !== undefined) throw new UsageError('--server goes with --approver server');
    if (typeof values.policy === 'string') {
      // Named: every call, in every project, is judged by this one file.
      const policy = path.resolve(io.cwd, values.policy);
      if (!existsSync(policy)) throw new UsageError(`--policy ${policy} does not exist`);
      args.push('--policy', policy);
    } else if (findHostPolicy({ cwd: io.cwd, env: io.env }) === undefined) {
      // Not named: the hook finds each call's project policy, else the user's (find-host-policy.ts); there must be one here for the probe to answer.
      throw new UsageError(
        `no policy for ${io.cwd}: no toolgate.yaml here or in a folder above, and no user-level policy in ${toolgateConfigHome(io.env)}; ` +
          `write one with \`toolgate init --for ${host}\` (this project) or \`toolgate init --user\` (every project without its own), or give --policy FILE`,
      );
    }
  }
  if (values.http === true && (approver !== 'server' || host !== 'claude-code')) throw new UsageError('--http is for claude-code with --approver server (Claude Code posts each call to the server itself)');
  // Codex trusts its hook by a hash of the entry (command, timeout): the entry stays the same whatever the options, which
  // toolgate keeps in its own configuration for the hook to read (hook-settings.ts). Codex's own timeout is its default, or
  // longer when the hook's must be (that changes the hash, and is said).
  const codexOptions = host === 'codex' ? [...args.slice(2), ...(timeout === DEFAULT_TIMEOUT_SECONDS ? [] : ['--timeout', String(timeout)])] : undefined;
  const commandArgs = codexOptions === undefined ? [...args, '--timeout', String(timeout)] : args.slice(0, 2);
  const hostTimeout = codexOptions === undefined ? timeout : Math.max(timeout, DEFAULT_TIMEOUT_SECONDS);
  // Claude Code's http hook does not say which shell runs a command; the URL does, as this user's shell now (the command hook reads the host's environment).
  const shell = io.env.CLAUDE_CODE_SHELL || io.env.SHELL || loginShell();
  const httpUrl = () => `${String(values.server).replace(/\/+$/, '')}/hooks/${host}?timeout=${timeout}${shell === undefined ? '' : `&shell=${encodeURIComponent(shell)}`}`;
  // Project settings are shared with whoever clones the project: there the hook names toolgate inside the project, through
  // CLAUDE_PROJECT_DIR, and the node on PATH (toolgate's own refuses an old one, which blocks the call); elsewhere this machine's paths.
  const entry = toolgateEntry();
  // (Gemini CLI sets CLAUDE_PROJECT_DIR for its hooks too, for compatibility.)
  const portable = (host === 'claude-code' || host === 'gemini') && scope === 'project' ? portableEntry({ cwd: io.cwd, entry }) : undefined;
  const started = portable === undefined ? hookCommandLine([process.execPath, entry, ...commandArgs]) : `${portable.node} ${portable.entry} ${hookCommandLine(commandArgs)}`;
  // Claude Code gives its hooks the session's env, which a repository's own settings can set: NODE_OPTIONS=--require
  // ./evil.js ran a repository's code inside the hook's Node (measured with 2.1.332), which then answers what it likes.
  // The hook's Node starts without the variables that load code into it.
  const command = host === 'claude-code' ? `${NODE_CODE_VARIABLES_UNSET} ${started}` : started;
  const target = values.http === true ? { url: httpUrl() } : { command };
  if ((host === 'claude-code' || host === 'gemini') && scope === 'project' && (portable === undefined || typeof values.policy === 'string') && values.http !== true) {
    io.stderr.write(
      `toolgate install: note: ${path.join(host === 'gemini' ? '.gemini' : '.claude', 'settings.json')} is shared with whoever clones this project, and this hook names paths of this machine (${sanitizeTerminalText(portable === undefined ? entry : String(values.policy))}): ` +
        (host === 'gemini'
          ? 'with it, their Gemini CLI blocks every call. For a hook of your own, install with --scope user (~/.gemini/settings.json); for one the project shares, add toolgate to it (npm i -D toolgate) and install from there without --policy\n'
          : 'with it, their Claude Code blocks every call. For a hook of your own, install with --scope local (.claude/settings.local.json); for one the project shares, add toolgate to it (npm i -D toolgate) and install from there without --policy\n'),
    );
  }
  const handler = toolgateHandler({ host, target, timeoutSeconds: hostTimeout, ...(approver === 'server' ? { inbox: String(values.server).replace(/\/+$/, '') } : {}) });
  // A hook another settings file turns off here would not run: said, and nothing written.
  const found = hookSwitches({ host, scope, cwd: io.cwd, env: io.env, command });
  // Gemini CLI's trust is of a folder: the hook still runs in the folders it trusts, so this one is said, not refused.
  for (const untrusted of found.filter((entry) => entry.key === GEMINI_FOLDER_TRUST)) io.stderr.write(`toolgate install: note: ${sanitizeTerminalText(untrusted.detail, { collapse: true })}\n`);
  // A repository's own opencode code leaves the hook running (toolgate then blocks the calls there): said, not refused.
  for (const repository of found.filter((entry) => entry.hookRuns === true)) io.stderr.write(`toolgate install: note: ${sanitizeTerminalText(`${repository.file} (${repository.key}): ${repository.detail}`, { collapse: true })}\n`);
  const switches = found.filter((entry) => entry.key !== GEMINI_FOLDER_TRUST && entry.hookRuns !== true);
  if (switches.length > 0) {
    const said = switches.map((found) => `${found.file} sets ${found.key} (${found.detail})`).join('; ');
    io.stderr.write(`toolgate install: ${sanitizeTerminalText(said, { collapse: true })}: a hook installed ${scope === 'managed' ? 'in managed settings' : `with --scope ${scope}`} would not run here. ${host === 'claude-code' && scope !== 'managed' ? 'Remove the key, or install with --scope managed (as root), which only managed settings reach' : 'Remove the key first'}\n`);
    return 1;
  }
  const installed = await change({
    io,
    host,
    scope,
    dryRun: values['dry-run'] === true,
    plan: (file, text) => planInstall({ file, text, host, handler, ...(managedOnly ? { settings: { allowManagedHooksOnly: true } } : {}) }),
    // Run once as the host will run it, before it is reported installed: a hook that cannot start blocks every call.
    probe: (file) => probeHandler({ host, file, handler, cwd: io.cwd, env: io.env, probeLimitMs: INSTALL_PROBE_LIMIT_MS }),
    ...(codexOptions === undefined ? {} : { options: { host, args: codexOptions } }),
    install: true,
  });
  if (installed === EXIT.ok && host === 'opencode' && !projectConfigOff(io.env)) {
    io.stdout.write(
      "opencode runs a repository's own configuration as code (its .opencode/plugins when it starts, before any call; its tools, MCP servers, formatters, shell): " +
        'toolgate blocks every call in a repository that has such configuration. Start opencode with OPENCODE_DISABLE_PROJECT_CONFIG=1 (export it in your shell\'s profile) so that no repository\'s runs; yours in ~/.config/opencode still does\n',
    );
  }
  return installed;
}

/**
 * `toolgate uninstall <host>`.
 *
 * @example
 * await runUninstallCommand(['codex'], processIo());
 */
export async function runUninstallCommand(argv: string[], io: CliIo): Promise<number> {
  const parsed = parse(argv, false);
  if (parsed.help) {
    io.stdout.write(UNINSTALL_HELP);
    return EXIT.ok;
  }
  const { host, scope, values } = parsed;
  return change({
    io,
    host,
    scope,
    dryRun: values['dry-run'] === true,
    plan: (file, text) => {
      const planned = planUninstall({ file, text, host });
      return { text: planned.text, changed: planned.removed > 0, replaced: planned.removed };
    },
    ...(host === 'codex' ? { options: { host, args: undefined } } : {}),
    install: false,
  });
}

/**
 * toolgate's entry as a project's shared settings can name it: relative to
 * `$CLAUDE_PROJECT_DIR`, which Claude Code sets for its hooks, when the entry
 * is in the project (its node_modules) or its git repository; and the
 * project's own Node (node@24 as a devDependency) when it has one, else the
 * node on PATH. Undefined when the entry is elsewhere (a global install, a
 * checkout).
 *
 * @example
 * portableEntry({ cwd: '/home/me/app', entry: '/home/me/app/node_modules/toolgate/bin/toolgate.js' })
 * // { node: 'node', entry: '"$CLAUDE_PROJECT_DIR"/node_modules/toolgate/bin/toolgate.js' }
 */
function portableEntry(options: { cwd: string; entry: string }): { node: string; entry: string } | undefined {
  const inside = (from: string, target: string) => {
    const relative = path.relative(from, target);
    return relative !== '' && !relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative);
  };
  const repository = projectRootOf(options.cwd);
  if (!inside(options.cwd, options.entry) && !(repository !== options.cwd && inside(repository, options.entry))) return undefined;
  const relative = path.relative(options.cwd, options.entry);
  // Words a POSIX shell reads as one, the variable expanded: the path itself is quoted, the variable in double quotes.
  const under = (words: string) => `"$CLAUDE_PROJECT_DIR"/${quoteShellWord(words)}`;
  const projectNode = path.join('node_modules', '.bin', 'node');
  return { node: existsSync(path.join(options.cwd, projectNode)) ? under(projectNode) : 'node', entry: under(relative) };
}

/**
 * `env` (by its absolute path: a repository's settings can set PATH too)
 * taking off the variables that make Node load code before toolgate runs:
 * options (`--require`, `--import`, `--loader`), a code cache to read
 * compiled code from, module search paths.
 */
const NODE_CODE_VARIABLES_UNSET = '/usr/bin/env -u NODE_OPTIONS -u NODE_COMPILE_CACHE -u NODE_PATH';

/** The hooks' timeout unless --timeout says otherwise: both hosts' default. */
const DEFAULT_TIMEOUT_SECONDS = 600;
/** Cursor's: its default wait for a hook. */
const CURSOR_TIMEOUT_SECONDS = 30;

/** How long install waits for the probe of the hook it writes: the hook answers a probe in well under a second. */
const INSTALL_PROBE_LIMIT_MS = 15_000;
