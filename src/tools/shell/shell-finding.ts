/** What one part of a command line (a simple command, a redirection, a construct) decided, and why. */
import type { Decision } from '../../core/types.ts';

export interface ShellFinding {
  decision: Decision;
  /** The simple command, redirection or construct it is about, as written. */
  subject: string;
  reason: string;
  /** `shell.rules[2]`, `shell.default`, or null when the analysis itself decided. */
  rule: string | null;
  /** Where the subject sits: `inside $(…)`, `run by sudo`... */
  via: string | undefined;
}
