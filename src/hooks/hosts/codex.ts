/**
 * OpenAI Codex CLI (`@openai/codex`): a `PreToolUse` command hook in
 * `$CODEX_HOME/hooks.json`, with Claude Code's input and answers. Codex
 * runs a hook only once it is trusted (its TUI's review, or
 * `--dangerously-bypass-hook-trust`), waits 600 s unless `timeout` says
 * otherwise, and runs the command when the hook fails, times out, prints
 * garbage — or answers "ask", which its PreToolUse does not support. So
 * toolgate never answers "ask" to Codex: a call that needs a person is
 * denied, saying how to get it approved, and every failure of toolgate's own
 * exits 2.
 */
import { preToolUseHost } from '../host-dialect.ts';

export const codex = preToolUseHost({ name: 'codex', title: 'Codex', asksItsUser: false });
