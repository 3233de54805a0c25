/**
 * What was called, in a few words: a command, a path, the files of a patch,
 * else the arguments as JSON. Give it arguments already masked
 * (`redact`): it shows what it is given.
 *
 * @example
 * callSummary({ command: 'git reset --hard HEAD~1', cwd: '/p' }) // 'git reset --hard HEAD~1'
 */
export function callSummary(args: unknown): string {
  if (typeof args !== 'object' || args === null) return args === undefined ? '-' : JSON.stringify(args);
  const fields = args as Record<string, unknown>;
  for (const key of ['command', 'path', 'file_path', 'files', 'source', 'url', 'query', 'skill']) {
    if (typeof fields[key] === 'string') return (fields[key] as string).replace(/\s+/g, ' ');
  }
  return JSON.stringify(args) ?? '-';
}
