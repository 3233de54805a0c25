/**
 * The `[v] view full` pager: the person's $PAGER when set, otherwise a
 * built-in one that prints page by page. It is only ever given text the
 * renderer has already made terminal-safe, so a pager that passes escapes
 * through (`less -R`) still cannot be driven by a request's content.
 */
import { displayWidth } from '../../core/sanitize-terminal-text.ts';
import type { KeyPress, PromptInput, TerminalOutput } from './prompt-input.ts';
import { runInTerminal } from './run-in-terminal.ts';

export interface ShowInPagerOptions {
  /** Already sanitized (a `renderApproval` rendering): the pager prints it as is. */
  text: string;
  env: NodeJS.ProcessEnv;
  output: TerminalOutput;
  prompt: PromptInput;
  /** Terminal rows: the built-in pager's page is one row shorter (for its status line). */
  rows: number;
}

/**
 * Shows `text` in $PAGER, or page by page (space/Enter: next, b: back,
 * q/Esc: return). If $PAGER fails, says so and falls back to the built-in
 * pager. Rejects only when the prompt stops (Ctrl-C, abort).
 *
 * @example
 * await showInPager({ text: renderApproval({ request, color, width, full: true }).text, env, output, prompt, rows: 40 });
 */
export async function showInPager(options: ShowInPagerOptions): Promise<void> {
  const { env, prompt } = options;
  const pager = env.PAGER?.trim();
  if (pager !== undefined && pager !== '') {
    try {
      // Like git: `less` shows colours and quits when the text fits, unless the person configured it.
      const pagerEnv = { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' };
      await prompt.release((signal) =>
        runInTerminal({ command: pager, stdinText: options.text, env: pagerEnv, signal, label: 'the pager', failureCode: 'PAGER_FAILED' }),
      );
      return;
    } catch (error) {
      if (prompt.stopSignal.aborted) throw error;
      options.output.write(`${(error as Error).message}; showing it here instead\n`);
    }
  }
  await pageText(options);
}

async function pageText(options: ShowInPagerOptions): Promise<void> {
  const { output, prompt } = options;
  const lines = (options.text.endsWith('\n') ? options.text.slice(0, -1) : options.text).split('\n');
  const pageSize = Math.max(5, Math.floor(options.rows) - 1);
  let start = 0;
  for (;;) {
    const end = Math.min(lines.length, start + pageSize);
    output.write(`${lines.slice(start, end).join('\n')}\n`);
    const atEnd = end >= lines.length;
    const next = prompt.raw ? 'space/Enter: next' : 'Enter: next';
    const back = prompt.raw ? 'q: return' : 'q then Enter: return';
    const status = atEnd
      ? `-- end (${lines.length} lines) · any key: return --`
      : `-- lines ${start + 1}–${end} of ${lines.length} · ${next} · b: back · ${back} --`;
    let action: 'next' | 'back' | 'return' | undefined;
    while (action === undefined) {
      // After a pager that failed to start, keys typed meanwhile must not turn the page.
      if (!prompt.settled) await prompt.settle();
      output.write(status);
      const key = await prompt.readKey();
      // In raw mode nothing was echoed: blank the status line so the next page starts clean.
      output.write(prompt.raw ? `\r${' '.repeat(displayWidth(status))}\r` : '\n');
      action = atEnd ? 'return' : pagerAction(key);
    }
    if (action === 'return') return;
    start = action === 'next' ? end : Math.max(0, start - pageSize);
  }
}

function pagerAction(key: KeyPress): 'next' | 'back' | 'return' | undefined {
  if (key.kind === 'escape') return 'return';
  if (key.kind === 'enter') return 'next';
  if (key.kind !== 'character') return undefined;
  if (key.character === ' ') return 'next';
  const letter = key.character.toLowerCase();
  return letter === 'q' ? 'return' : letter === 'b' ? 'back' : undefined;
}
