/**
 * Claude Code (`@anthropic-ai/claude-code`): a `PreToolUse` command hook
 * in `.claude/settings.json` (or `~/.claude/settings.json`). It waits 600 s
 * for a hook unless `timeout` says otherwise; an exit code other than 0 and
 * 2, a timeout or output that is not JSON lets the call go on through its
 * own rules, so toolgate answers in JSON, and blocks with exit 2 whenever it
 * fails itself. "ask" shows Claude Code's own permission prompt (in `-p`,
 * where nobody can answer it, the call is denied).
 */
import { loginShell, preToolUseHost } from '../host-dialect.ts';

/** Claude Code's Bash tool runs commands with CLAUDE_CODE_SHELL, else the user's $SHELL (bash, zsh or sh). */
export const claudeCode = preToolUseHost({ name: 'claude-code', title: 'Claude Code', asksItsUser: true, detailsOf: (_input, env) => ({ shell: nonEmpty(env.CLAUDE_CODE_SHELL) ?? nonEmpty(env.SHELL) ?? loginShell() }) });

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
