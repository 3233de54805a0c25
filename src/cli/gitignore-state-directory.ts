import { appendFileSync, readFileSync } from 'node:fs';

/** The line `toolgate init` adds: toolgate's state folder, wherever it is below the .gitignore. */
export const STATE_DIRECTORY_LINE = '.toolgate/';

/** The spellings of a line that ignores `.toolgate/` (the folder, at any depth or at the top). */
const IGNORING = new Set(['.toolgate', '.toolgate/', '/.toolgate', '/.toolgate/', '.toolgate/*', '/.toolgate/*', '**/.toolgate', '**/.toolgate/', '.toolgate/**', '/.toolgate/**']);

/**
 * Whether a .gitignore's text already ignores `.toolgate/`: the last line
 * about it (any of its usual spellings) ignores it rather than negating it
 * (`!.toolgate/`). Other patterns that happen to match (`.*`) are not
 * counted: adding the plain line then does no harm.
 *
 * @example
 * gitignoreIgnoresStateDirectory('node_modules/\n/.toolgate\n') // true
 * gitignoreIgnoresStateDirectory('.toolgate/\n!.toolgate/\n')   // false
 */
export function gitignoreIgnoresStateDirectory(text: string): boolean {
  let ignored = false;
  for (const raw of text.split(/\r?\n/)) {
    // Git keeps trailing spaces only when escaped; a line with one is not one of ours.
    const line = raw.replace(/[ \t]+$/, '');
    if (IGNORING.has(line)) ignored = true;
    else if (line.startsWith('!') && IGNORING.has(line.slice(1))) ignored = false;
  }
  return ignored;
}

/** What `addStateDirectoryToGitignore` did. */
export type GitignoreOutcome = 'created' | 'added' | 'already';

/**
 * Appends `.toolgate/` to a .gitignore (created when absent), unless it
 * already ignores it: exactly one line, after a line break when the file
 * does not end with one, so the line before is never changed.
 *
 * @example
 * addStateDirectoryToGitignore({ file: '/work/app/.gitignore' }) // 'added'
 * addStateDirectoryToGitignore({ file: '/work/app/.gitignore' }) // 'already'
 */
export function addStateDirectoryToGitignore(options: { file: string }): GitignoreOutcome {
  const text = readGitignore(options.file);
  if (text !== undefined && gitignoreIgnoresStateDirectory(text)) return 'already';
  // A file written on Windows keeps its line ends.
  const newline = text?.includes('\r\n') === true ? '\r\n' : '\n';
  const separator = text === undefined || text === '' || text.endsWith('\n') ? '' : newline;
  appendFileSync(options.file, `${separator}${STATE_DIRECTORY_LINE}${newline}`, { mode: 0o644 });
  return text === undefined ? 'created' : 'added';
}

/**
 * The .gitignore's text, or undefined when there is none.
 *
 * @example
 * readGitignore('/work/app/.gitignore') // 'node_modules/\n'
 */
export function readGitignore(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
