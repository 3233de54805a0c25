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
import type { HostDialect } from '../host-dialect.ts';
import { blockingExit, preToolUseAnswer, readPreToolUse } from '../host-dialect.ts';

export const codex: HostDialect = {
  name: 'codex',
  title: 'Codex',
  defaultBudgetMs: 600_000,
  asksItsUser: false,
  read: (input) => readPreToolUse({ host: 'codex', title: 'Codex', input }),
  answer: (verdict) => preToolUseAnswer(verdict.decision === 'ask' ? 'deny' : verdict.decision, `toolgate: ${verdict.reason}`),
  fail: (reason) => blockingExit(`toolgate: ${reason}`),
};
