/**
 * The default editor for `[e] edit`: the person's $VISUAL or $EDITOR on a
 * private temporary file, with the terminal handed over to it.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInTerminal } from './run-in-terminal.ts';
import { TerminalPromptError } from './terminal-prompt-error.ts';

export interface EditInEditorOptions {
  text: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** The temporary file's name; its extension lets the editor pick a syntax. Default `arguments.json`. */
  fileName?: string;
}

/**
 * Opens `text` in $VISUAL (or $EDITOR) and returns the saved text. The file
 * is readable by its owner only (arguments may hold secrets) and removed
 * afterwards. Rejects with `EDITOR_FAILED` when no editor is set, it fails,
 * or `signal` aborts.
 *
 * @example
 * const edited = await editInEditor({ text: JSON.stringify(args, null, 2), env: process.env, signal });
 */
export async function editInEditor(options: EditInEditorOptions): Promise<string> {
  const command = [options.env.VISUAL, options.env.EDITOR].find((value) => value !== undefined && value.trim() !== '');
  if (command === undefined) {
    throw new TerminalPromptError({ code: 'EDITOR_FAILED', message: 'no editor is set: set $VISUAL or $EDITOR to edit the arguments' });
  }
  const directory = await mkdtemp(join(tmpdir(), 'toolgate-edit-'));
  try {
    const file = join(directory, options.fileName ?? 'arguments.json');
    await writeFile(file, options.text, { mode: 0o600 });
    await runInTerminal({ command, args: [file], env: options.env, signal: options.signal, label: 'the editor', failureCode: 'EDITOR_FAILED' });
    return await readFile(file, 'utf8');
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
