import { ToolgateError } from './toolgate-error.ts';

/** One problem in a policy file, located as precisely as the source allows. */
export interface PolicyIssue {
  /** Key path, e.g. `tools.send_email.decision` or `filter.deny[2]`. */
  path: string;
  message: string;
  expected?: string;
  found?: string;
  line?: number;
  column?: number;
}

/**
 * A policy file that cannot be used. Its message lists every issue as
 * `file:line:column: path: message (expected X, found Y)`, so an editor or a
 * person can jump straight to it.
 */
export class PolicyError extends ToolgateError {
  readonly file: string;
  readonly issues: readonly PolicyIssue[];

  constructor(options: { file: string; issues: PolicyIssue[]; code?: 'POLICY_INVALID' | 'POLICY_NOT_FOUND' | 'POLICY_EXAMPLE_FAILED' }) {
    super({
      code: options.code ?? 'POLICY_INVALID',
      message: formatPolicyIssues(options.file, options.issues),
    });
    this.name = 'PolicyError';
    this.file = options.file;
    this.issues = options.issues;
  }
}

export function formatPolicyIssues(file: string, issues: readonly PolicyIssue[]): string {
  return formatSourceIssues({ what: 'policy', file, issues });
}

/**
 * Issues in a source file (a policy, a model script) as
 * `file:line:column: key.path: message (expected X, found Y)`, one a line.
 *
 * @example
 * formatSourceIssues({ what: 'model script', file: 'demo.yaml', issues })
 */
export function formatSourceIssues(options: { what: string; file: string; issues: readonly PolicyIssue[] }): string {
  const { file, issues } = options;
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
  return `invalid ${options.what}, ${count}:\n  ${lines.join('\n  ')}`;
}
