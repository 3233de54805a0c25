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
import { loginShell, preToolUseHost } from '../host-dialect.ts';
import { codexCallArguments } from '../host-transcript.ts';

/**
 * Codex's `exec_command` lets the model choose the shell (its `shell`
 * argument), which the hook's input leaves out: it is read from the call in
 * Codex's rollout. Without one, Codex runs the user's login shell. A shell
 * call not found in the rollout has a shell that is not known.
 */
export const codex = preToolUseHost({
  name: 'codex',
  title: 'Codex',
  asksItsUser: false,
  detailsOf(input) {
    if (input.hostTool !== 'Bash') return { shell: loginShell() };
    if (input.transcriptPath === undefined || input.toolUseId === undefined) return { shell: undefined };
    const args = codexCallArguments(input.transcriptPath, input.toolUseId);
    return args === undefined ? { shell: undefined } : codexCallDetails(args);
  },
});

/**
 * The shell and the other options of a Codex shell call, from the
 * arguments the model gave it (its rollout's `function_call`): the hook's
 * and `toolgate replay`'s one reading of them.
 *
 * @example
 * codexCallDetails({ cmd: 'ls', shell: '/bin/zsh', tty: true }) // { shell: '/bin/zsh', options: { shell: '/bin/zsh', tty: true } }
 */
export function codexCallDetails(args: Record<string, unknown>): { shell: string | undefined; options: Record<string, unknown> } {
  // Everything but the command itself (the tool input's) and what only paces its output.
  const { cmd: _cmd, command: _command, yield_time_ms: _yield, max_output_tokens: _tokens, ...options } = args;
  return { shell: typeof args.shell === 'string' && args.shell !== '' ? args.shell : loginShell(), options };
}
