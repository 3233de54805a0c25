import { ToolgateError } from '../../core/errors/toolgate-error.ts';

/** One problem in a script file, located as precisely as the source allows. */
export interface ScriptIssue {
  /** Key path, e.g. `steps[2].when.last_result`. Empty for the whole file. */
  path: string;
  message: string;
  expected?: string;
  found?: string;
  line?: number;
  column?: number;
}

/**
 * A script for the scripted model that cannot be used: missing, unreadable
 * or invalid. The message lists every issue as
 * `file:line:column: path: message (expected X, found Y)`, the same form as a
 * policy error, so an editor or a person can jump straight to it.
 *
 * @example
 * try { parseScript({ text, source: 'demo.yaml' }) } catch (error) {
 *   if (error instanceof ScriptError) console.error(error.message);
 * }
 */
export class ScriptError extends ToolgateError {
  readonly file: string;
  readonly issues: readonly ScriptIssue[];

  constructor(options: { file: string; issues: ScriptIssue[]; code?: 'SCRIPT_INVALID' | 'SCRIPT_NOT_FOUND' }) {
    super({ code: options.code ?? 'SCRIPT_INVALID', message: formatScriptIssues(options.file, options.issues) });
    this.name = 'ScriptError';
    this.file = options.file;
    this.issues = options.issues;
  }
}

function formatScriptIssues(file: string, issues: readonly ScriptIssue[]): string {
  const lines = issues.map((issue) => {
    const location = issue.line === undefined ? file : `${file}:${issue.line}:${issue.column ?? 1}`;
    const where = issue.path === '' ? '' : ` ${issue.path}:`;
    const detail =
      issue.expected !== undefined || issue.found !== undefined
        ? ` (expected ${issue.expected ?? 'a valid value'}, found ${issue.found ?? 'nothing'})`
        : '';
    return `${location}:${where} ${issue.message}${detail}`;
  });
  const count = issues.length === 1 ? 'an error' : `${issues.length} errors`;
  return `invalid model script, ${count}:\n  ${lines.join('\n  ')}`;
}
