import { createInterface } from 'node:readline';
import type { CliIo } from './cli-io.ts';

/**
 * Asks a yes/no question on the terminal (the question on stderr, the answer
 * a line of stdin); only y or yes is a yes, so Enter, anything else and the
 * end of input say no. For a person at a terminal: callers check that stdin
 * is one first.
 *
 * @example
 * if (await askYesNo({ io, question: 'add .toolgate/ to .gitignore?' })) addStateDirectoryToGitignore({ file });
 */
export async function askYesNo(options: { io: CliIo; question: string; signal?: AbortSignal }): Promise<boolean> {
  const { io } = options;
  io.stderr.write(`${options.question} [y/N] `);
  const lines = createInterface({ input: io.stdin, crlfDelay: Infinity });
  let abort: (() => void) | undefined;
  try {
    const answer = await new Promise<string | undefined>((resolve) => {
      abort = () => resolve(undefined);
      if (options.signal?.aborted === true) return resolve(undefined);
      options.signal?.addEventListener('abort', abort, { once: true });
      lines.once('line', (line) => resolve(line));
      lines.once('close', () => resolve(undefined));
    });
    // No answer (the end of input, an abort) leaves the prompt's line open: end it, so what follows starts on its own.
    if (answer === undefined) io.stderr.write('\n');
    return /^\s*y(es)?\s*$/i.test(answer ?? '');
  } finally {
    if (abort !== undefined) options.signal?.removeEventListener('abort', abort);
    lines.close();
  }
}
