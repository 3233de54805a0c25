/**
 * The one line printed after a prompt ends, so the scrollback says what was
 * decided: "✓ approved once", "✗ denied: reason", "✗ timed out".
 */
import { styleText } from 'node:util';
import type { ApprovalDecision } from '../../core/types.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';

export interface RenderDecisionLineOptions {
  /** A decision, or how a prompt ended without one. */
  outcome: ApprovalDecision | 'timed out' | 'cancelled';
  /** What was decided, e.g. the tool name or "3 requests"; untrusted, sanitized here. */
  subject?: string;
  color: boolean;
}

/**
 * Renders the decision as one terminal-safe line, ending in a newline. The
 * subject and the reason may come from a model or a person's typing: both
 * are shown with every control and hidden character escaped.
 *
 * @example
 * renderDecisionLine({ outcome: { approved: true, scope: 'once' }, color: false }) // '✓ approved once\n'
 * renderDecisionLine({ outcome: { approved: false, scope: 'once', reason: 'too risky' }, subject: 'shell', color: false }) // '✗ denied — shell: too risky\n'
 */
export function renderDecisionLine(options: RenderDecisionLineOptions): string {
  const { outcome } = options;
  const subject = options.subject === undefined || options.subject === '' ? '' : ` — ${safe(options.subject)}`;
  const paint = (style: 'green' | 'red' | 'yellow', text: string): string => (options.color ? styleText(['bold', style], text, { validateStream: false }) : text);
  if (outcome === 'timed out' || outcome === 'cancelled') return `${paint('yellow', '✗')} ${outcome}${subject}\n`;
  if (outcome.approved) {
    const scope = outcome.scope === 'once' ? 'once' : outcome.scope === 'session' ? 'for this session' : 'always';
    const edited = outcome.args !== undefined ? ' with edited arguments' : '';
    const note = outcome.note ? `: ${safe(outcome.note)}` : '';
    return `${paint('green', '✓')} approved ${scope}${edited}${subject}${note}\n`;
  }
  const how = outcome.automatic === true ? 'denied automatically' : 'denied';
  const reason = outcome.reason ? `: ${safe(outcome.reason)}` : '';
  const stop = outcome.stop === true ? ' (the run stops)' : '';
  return `${paint('red', '✗')} ${how}${subject}${reason}${stop}\n`;
}

function safe(text: string): string {
  return sanitizeTerminalText(String(text), { collapse: true });
}
