/**
 * Runs a person's own program ($VISUAL, $EDITOR, $PAGER) on the terminal
 * they are sitting at, the way git does: through `sh -c`, so a setting such
 * as `code --wait` or `less -R` works.
 */
import { spawn } from 'node:child_process';
import { TerminalPromptError, type TerminalPromptErrorCode } from './terminal-prompt-error.ts';

export interface RunInTerminalOptions {
  /** A shell command line from the person's environment; `args` follow it as quoted words. */
  command: string;
  args?: readonly string[];
  /** Text for the program's standard input (a pager); otherwise it inherits the terminal. */
  stdinText?: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** Names the program in error messages: "the editor", "the pager". */
  label: string;
  failureCode: Extract<TerminalPromptErrorCode, 'EDITOR_FAILED' | 'PAGER_FAILED'>;
}

/**
 * Runs `command` with the terminal inherited and resolves when it exits
 * successfully. Rejects with a `TerminalPromptError` when it cannot start,
 * fails, or `signal` aborts (the program is then sent SIGTERM).
 *
 * @example
 * await runInTerminal({ command: env.EDITOR, args: [file], env, signal, label: 'the editor', failureCode: 'EDITOR_FAILED' });
 */
export async function runInTerminal(options: RunInTerminalOptions): Promise<void> {
  const { signal, label, failureCode } = options;
  const fail = (message: string, cause?: unknown): TerminalPromptError => new TerminalPromptError({ code: failureCode, message, cause });
  if (signal.aborted) throw fail(`${label} was not started: the prompt was aborted`, signal.reason);
  // Not detached: the program must stay in the terminal's foreground process group to read keys, so it cannot get a group of its own to kill.
  const child = spawn('/bin/sh', ['-c', `${execPrefix(options.command)}${options.command} "$@"`, 'sh', ...(options.args ?? [])], {
    stdio: [options.stdinText === undefined ? 'inherit' : 'pipe', 'inherit', 'inherit'],
    env: options.env,
  });
  let onAbort: (() => void) | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      onAbort = () => {
        child.kill('SIGTERM');
        reject(fail(`${label} was stopped: the prompt was aborted`, signal.reason));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      child.once('error', (error) => reject(fail(`${label} could not start (${error.message})`, error)));
      child.once('exit', (code, killedBy) => {
        if (code === 0) resolve();
        else reject(fail(killedBy === null ? `${label} exited with code ${code}` : `${label} was killed by ${killedBy}`));
      });
      if (child.stdin !== null) {
        // A pager that quits before reading everything closes the pipe: that is not a failure.
        child.stdin.on('error', () => undefined);
        child.stdin.end(options.stdinText);
      }
    });
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * `exec ` for a simple command, so the program replaces the shell and the
 * SIGTERM sent on abort reaches it rather than only the shell (which would
 * leave an editor running on the terminal). A command line with shell
 * syntax (lists, pipes, functions, leading assignments) runs as written.
 */
function execPrefix(command: string): string {
  const simple = !/[;&|(){}`\n]/.test(command) && !/^\s*[A-Za-z_][A-Za-z0-9_]*=/.test(command);
  return simple ? 'exec ' : '';
}
