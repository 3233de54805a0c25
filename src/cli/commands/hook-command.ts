import path from 'node:path';
import { Readable } from 'node:stream';
import { DOCTOR_PROBE_TOOL } from '../../hooks/host-call.ts';
import { HOST_DIALECTS } from '../../hooks/hosts/host-dialects.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import type { HostDialect } from '../../hooks/host-dialect.ts';
import { runHook } from '../../hooks/run-hook.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { RUN_MODE_OPTIONS, runModeFrom, runModeHelp } from '../run-mode-options.ts';

const HOSTS: Readonly<Record<string, HostDialect>> = HOST_DIALECTS;
/** A day: the longest a hook is waited for that a timer can count (and longer than any host's own limit). */
const MAX_TIMEOUT_SECONDS = 86_400;

export const HOOK_HELP = `Usage:
  toolgate hook <host> [--policy FILE] [--timeout SECONDS] [--approver host]
  toolgate hook <host> --approver server --server URL [--timeout SECONDS]

The permission hook of an agent host: reads the host's PreToolUse JSON on
stdin, judges the call with the policy — a shell command through the shell
tool's analysis (rules, zones, what it reads, writes, deletes, runs), a file
read, write or edit through the fs zones (an edit as the write it makes), an
MCP tool through mcp.servers by server and tool name, a web fetch through the
network rules (shell.network), anything else by the policy's rules and
unknown_tools — records the decision in the audit log with the host and its
session, and answers in the host's dialect.

Hosts:
  claude-code   Claude Code: hooks.PreToolUse in .claude/settings.json
  codex         OpenAI Codex CLI: hooks.PreToolUse in $CODEX_HOME/hooks.json
  gemini        Gemini CLI: hooks.BeforeTool in .gemini/settings.json (or
                ~/.gemini/settings.json), with hooksConfig.enabled: true
  copilot       GitHub Copilot CLI: hooks.preToolUse in a hooks file of
                $COPILOT_HOME/hooks/ (~/.copilot/hooks/toolgate.json)
  opencode      opencode: run by toolgate's plugin in its plugins folder
                (~/.config/opencode/plugins/toolgate.js), which hands it each
                call of tool.execute.before and runs the call only on "allow"
  cursor        Cursor: beforeShellExecution, beforeMCPExecution and
                beforeReadFile in ~/.cursor/hooks.json, with failClosed

Options:
  --policy FILE       the policy (default: the project's toolgate.yaml, .yml or
                      .json, in the call's directory or the nearest folder above
                      it, once you trusted it with \`toolgate trust\`; in a
                      project with none, the user-level policy,
                      ~/.config/toolgate/toolgate.yaml, its zones rooted at the
                      project: the git repository the call is in, else its
                      directory)
  --timeout SECONDS   the hook's timeout as the host's configuration gives it
                      (default 600, both hosts' default): toolgate answers
                      "blocked" by itself 2 s before it
  --approver host     who is asked when the policy asks: the host's own prompt
                      (Claude Code); Codex cannot ask from its hook, so there
                      a call that asks is denied, saying so (the default)
  --approver server   send the call to toolgate serve (--server URL, a
                      submitter's token in TOOLGATE_TOKEN), which judges it
                      with its policy and puts an ask in its web inbox; the
                      hook waits for the decision until just before its
                      timeout, then denies saying to retry: the same call,
                      retried in the same session, runs once it is approved
  --server URL        where toolgate serve listens (with --approver server)
${runModeHelp(18)}
  -h, --help          this help

Fails closed: the hosts let a call run when their hook crashes, times out or
prints what they cannot read, so every failure of toolgate's own — input it
cannot read, a missing or invalid policy, an error, its own deadline — exits
2 with the reason on stderr, which both hosts treat as "blocked" and pass to
the model.

Exit codes:
  0  decided: the answer is the JSON on stdout (allow, deny, or ask)
  2  blocked because toolgate could not decide (the reason is on stderr)
`;

/**
 * `toolgate hook <host>`. Never throws: whatever goes wrong blocks the call.
 *
 * @example
 * await runHookCommand(['claude-code'], processIo()); // reads the PreToolUse JSON on stdin
 */
export async function runHookCommand(argv: string[], io: CliIo, options: { /** Told the host's budget once the options say it (the decider tells its client by when it answers). */ onBudget?: (budgetMs: number) => void } = {}): Promise<number> {
  const [hostName, ...rest] = argv;
  if (hostName === '-h' || hostName === '--help') {
    io.stdout.write(HOOK_HELP);
    return EXIT.ok;
  }
  const dialect = hostName === undefined || !Object.hasOwn(HOSTS, hostName) ? undefined : HOSTS[hostName]!;
  const block = (reason: string): number => {
    io.stderr.write(`toolgate hook: ${sanitizeTerminalText(reason, { collapse: true })}\n`);
    return EXIT.usage;
  };
  if (dialect === undefined) {
    return block(`${hostName === undefined ? 'no host given' : `unknown host ${JSON.stringify(hostName)}`} (hosts: ${Object.keys(HOSTS).join(', ')}): the call is blocked. Run 'toolgate hook --help' for usage.`);
  }
  // No options on the command line: the ones toolgate install kept in toolgate's configuration (Codex hashes its hook's command line, hook-settings.ts).
  let words = rest;
  if (rest.length === 0) {
    try {
      words = (await import('../../hooks/hook-settings.ts')).hookArgs({ host: dialect.name, env: io.env }) ?? [];
    } catch (error) {
      return block(`${(error as Error).message}: the call is blocked`);
    }
  }
  let values;
  try {
    ({ values } = parseCommandLine({
      argv: words,
      options: { policy: { type: 'string' }, timeout: { type: 'string' }, approver: { type: 'string' }, server: { type: 'string' }, ...RUN_MODE_OPTIONS, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    return block(`${(error as Error).message}: the call is blocked`);
  }
  if (values.help) {
    io.stdout.write(HOOK_HELP);
    return EXIT.ok;
  }
  let budgetMs: number | undefined;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds < 1 || seconds > MAX_TIMEOUT_SECONDS) return block(`--timeout must be a number of seconds from 1 to ${MAX_TIMEOUT_SECONDS} (24 hours), not ${JSON.stringify(values.timeout)}: the call is blocked`);
    budgetMs = seconds * 1000;
  }
  if (values.approver !== undefined && values.approver !== 'host' && values.approver !== 'server') return block(`--approver must be host or server, not ${JSON.stringify(values.approver)}: the call is blocked`);
  let server: { url: string; token: string } | undefined;
  if (values.approver === 'server') {
    if (values.server === undefined) return block('--approver server needs --server URL (where toolgate serve listens): the call is blocked');
    let url: URL;
    try {
      url = new URL(values.server);
    } catch {
      return block(`--server must be a URL such as http://127.0.0.1:8787, not ${JSON.stringify(values.server)}: the call is blocked`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return block(`--server must be an http or https URL, not ${JSON.stringify(values.server)}: the call is blocked`);
    const token = io.env.TOOLGATE_TOKEN;
    if (token === undefined || token === '') return block('--approver server needs the token of a submitter in TOOLGATE_TOKEN (toolgate token create NAME --role submitter): the call is blocked');
    server = { url: url.href, token };
  } else if (values.server !== undefined) {
    return block('--server goes with --approver server: the call is blocked');
  }
  let mode;
  try {
    mode = runModeFrom(values);
  } catch (error) {
    return block(`${(error as Error).message}: the call is blocked`);
  }
  options.onBudget?.(budgetMs ?? dialect.defaultBudgetMs);
  // Paused by the person (toolgate pause): no answer at all, so the host decides as it would without toolgate.
  // The input is read first (a host whose write to the hook fails may take that for a failed hook); doctor's probe is still answered.
  let stdin = io.stdin;
  if ((await import('../../hooks/hook-pause.ts')).pausedUntil({ env: io.env }) !== undefined) {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    const text = Buffer.concat(chunks).toString('utf8');
    if (!text.includes(DOCTOR_PROBE_TOOL)) return EXIT.ok;
    stdin = Readable.from([text]);
  }
  const policyFlag = values.policy === undefined ? undefined : path.resolve(io.cwd, values.policy);
  const answer = await runHook({
    dialect,
    stdin,
    env: io.env,
    ...(io.argv0 === undefined ? {} : { argv0: io.argv0 }),
    ...(budgetMs === undefined ? {} : { budgetMs }),
    ...(mode === undefined ? {} : { mode }),
    ...(server === undefined ? {} : { server }),
    loadPolicy: async (cwd, input) => {
      if (policyFlag !== undefined) return (await import('../../config/load-policy-file.ts')).loadPolicyFile(policyFlag, { cwd });
      // One hook for every project: the project's trusted policy, else the user's, found from where the host's session began
      // (Claude Code: CLAUDE_PROJECT_DIR; Codex: its rollout's first line), not the call's directory, which the model chooses.
      // (Gemini CLI: GEMINI_PROJECT_DIR, the project root it was started in. Copilot CLI: the call's cwd is the session's, where
      // each of its commands starts.)
      const absolute = (value: string | undefined) => (value !== undefined && path.isAbsolute(value) ? value : undefined);
      const began =
        dialect.name === 'claude-code'
          ? absolute(io.env.CLAUDE_PROJECT_DIR)
          : dialect.name === 'gemini'
            ? absolute(io.env.GEMINI_PROJECT_DIR)
            : input.transcriptPath === undefined ? undefined : (await import('../../hooks/host-transcript.ts')).codexSessionDirectory(input.transcriptPath);
      return (await import('../../config/find-host-policy.ts')).loadHostPolicy({ cwd, env: io.env, ...(began === undefined ? {} : { sessionDirectory: began }) });
    },
  });
  io.stdout.write(answer.stdout);
  io.stderr.write(answer.exitCode === 0 ? answer.stderr : sanitizeTerminalText(answer.stderr, { keepNewlines: true, collapse: true }));
  return answer.exitCode;
}
