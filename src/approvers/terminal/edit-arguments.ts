/**
 * The `[e] edit` flow: the call's arguments as pretty JSON in an editor,
 * parsed and checked against the tool's schema, with the chance to fix a
 * mistake or give up. What comes back is what the person will approve.
 */
import { styleText } from 'node:util';
import type { PromptInput, TerminalOutput } from './prompt-input.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';

/** Checks edited arguments against a tool's schema; may return them normalised (defaults filled in). */
export type ValidateArguments = (tool: string, args: unknown) => { ok: true; args: unknown } | { ok: false; error: string };

/** Opens text in an editor and resolves with the saved text. */
export type EditText = (initialText: string, signal: AbortSignal) => Promise<string>;

export interface EditArgumentsOptions {
  tool: string;
  args: unknown;
  prompt: PromptInput;
  output: TerminalOutput;
  editor: EditText;
  validateArgs?: ValidateArguments | undefined;
  color: boolean;
}

/**
 * Lets the person edit a call's arguments. Returns `{ args }` once they are
 * valid JSON the schema accepts, or undefined when the person cancels (or
 * saves an empty file). Editor failures, invalid JSON and schema errors are
 * shown (escaped: they may quote the text) with `[e] edit again  [c] cancel`.
 * Rejects only when the prompt stops (Ctrl-C, abort).
 *
 * @example
 * const edited = await editArguments({ tool: 'shell', args: call.args, prompt, output, editor, validateArgs, color });
 * if (edited !== undefined) return { approved: true, scope: 'once', args: edited.args };
 */
export async function editArguments(options: EditArgumentsOptions): Promise<{ args: unknown } | undefined> {
  const { output, prompt } = options;
  let text: string;
  try {
    const json = JSON.stringify(options.args, null, 2);
    if (json === undefined) throw new Error('there are no arguments');
    text = `${json}\n`;
  } catch (error) {
    output.write(`${mark(options.color)} these arguments cannot be edited as JSON (${safe(messageOf(error))})\n`);
    return undefined;
  }
  for (;;) {
    output.write('opening the editor…\n');
    let problem: string;
    try {
      // The person's own text comes back next time, so a typo costs one fix, not a redo.
      text = await prompt.release((signal) => options.editor(text, signal));
      const checked = check(options, text);
      if (checked === 'empty') {
        output.write('the file was empty: edit cancelled\n');
        return undefined;
      }
      if ('args' in checked) return checked;
      problem = checked.problem;
    } catch (error) {
      if (prompt.stopSignal.aborted) throw error;
      problem = `the editor failed: ${messageOf(error)}`;
    }
    // Schema errors often span lines; newlines are kept, everything else hidden is escaped.
    output.write(`${mark(options.color)} ${sanitizeTerminalText(problem, { collapse: true, keepNewlines: true })}\n`);
    if (!(await askEditAgain(prompt, output))) return undefined;
  }
}

function check(options: EditArgumentsOptions, text: string): { args: unknown } | { problem: string } | 'empty' {
  if (text.trim() === '') return 'empty';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problem: `invalid JSON: ${messageOf(error)}` };
  }
  if (options.validateArgs === undefined) return { args: parsed };
  try {
    const result = options.validateArgs(options.tool, parsed);
    if (result.ok) return { args: result.args };
    return { problem: `the arguments do not match the tool's schema: ${result.error}` };
  } catch (error) {
    // A validator that throws has not said yes.
    return { problem: `the arguments could not be checked: ${messageOf(error)}` };
  }
}

async function askEditAgain(prompt: PromptInput, output: TerminalOutput): Promise<boolean> {
  for (;;) {
    // The editor had the terminal: keys typed there or since must not answer this question.
    if (!prompt.settled) await prompt.settle();
    output.write(`[e] edit again  [c] cancel${prompt.raw ? '' : ' (then Enter)'}: `);
    const key = await prompt.readKey();
    const letter = key.kind === 'character' ? key.character.toLowerCase() : undefined;
    if (prompt.raw) output.write(letter === undefined ? '\n' : `${safe(letter)}\n`);
    if (letter === 'e') return true;
    if (letter === 'c' || letter === 'q' || letter === 'n' || key.kind === 'escape') return false;
    output.write('press e to edit again or c to cancel\n');
  }
}

function mark(color: boolean): string {
  return color ? styleText(['bold', 'red'], '✗', { validateStream: false }) : '✗';
}

function safe(text: string): string {
  return sanitizeTerminalText(text, { collapse: true });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
