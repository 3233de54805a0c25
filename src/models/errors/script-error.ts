import { formatSourceIssues } from '../../core/errors/policy-error.ts';
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
    super({ code: options.code ?? 'SCRIPT_INVALID', message: formatSourceIssues({ what: 'model script', file: options.file, issues: options.issues }) });
    this.name = 'ScriptError';
    this.file = options.file;
    this.issues = options.issues;
  }
}
