/**
 * How `toolgate run` ends: the summary of a finished run (its calls and
 * decisions counted, what stopped it) and the exit code it comes to, or,
 * for a run that failed, what stopped it: a denial in a worker, an
 * interruption, or a model that could not be reached or broke off (one
 * line of what failed and one of what to do; the trace only with --debug).
 */
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import type { StoppedBy } from '../../adapters/ai-sdk/gated-tools-state.ts';
import { modelCallErrorFrom, type ModelCallTarget } from '../../models/model-call-error-from.ts';
import type { DecisionTally } from '../../runtime/decision-tally.ts';
import { brief, type AgentRunSummary } from '../../runtime/run-agent.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import type { Say } from './run-transcript.ts';

/**
 * Writes the summary of a finished run and returns its exit code.
 *
 * @example
 * return reportRunSummary({ summary, counts: tally.counts, io, say, demo: false, policyPath: loaded.path, interrupted });
 */
export function reportRunSummary(options: { summary: AgentRunSummary; counts: DecisionTally['counts']; io: CliIo; say: Say; demo: boolean; policyPath: string; interrupted: boolean }): number {
  const { summary, counts, say, interrupted } = options;
  options.io.stdout.write('\n');
  say(
    `\n${summary.toolCalls} tool calls: ${counts.allowed} allowed, ${counts.approved} approved, ${counts.denied} denied${counts.timedOut > 0 ? ` (${counts.timedOut} timed out)` : ''}, ${counts.blocked} blocked\n`,
    'bold',
  );
  if (options.demo) {
    say(`every decision is in the audit log: toolgate audit --policy ${sanitizeTerminalText(options.policyPath)}\n`);
  }
  if (summary.stoppedBy !== undefined) {
    say(`stopped by the denial of ${sanitizeTerminalText(summary.stoppedBy.tool)}: ${sanitizeTerminalText(summary.stoppedBy.reason)}\n`, 'red');
    return interrupted ? EXIT.interrupted : EXIT.blockedOrDenied;
  }
  return interrupted ? EXIT.interrupted : EXIT.ok;
}

/**
 * Says why a run failed and returns its exit code; rethrows an error that is
 * none of a denial in a worker, an interruption or a model's failure.
 *
 * @example
 * catch (error) { return reportRunFailure({ error, io, say, stoppedInWorker, interrupted, target: connection, wroteText, debug }); }
 */
export function reportRunFailure(options: {
  error: unknown;
  io: CliIo;
  say: Say;
  /** The denial in a worker that stopped the run, if one did. */
  stoppedInWorker: StoppedBy | undefined;
  /** Ctrl-C, or the run's signal aborted. */
  interrupted: boolean;
  target: ModelCallTarget;
  /** The model's text of the last step was not ended with a newline. */
  wroteText: boolean;
  debug: boolean;
}): number {
  const { error, io, say, stoppedInWorker } = options;
  if (stoppedInWorker !== undefined) {
    say(`\nstopped by the denial of ${sanitizeTerminalText(stoppedInWorker.tool)} in a worker: ${sanitizeTerminalText(stoppedInWorker.reason)}\n`, 'red');
    return EXIT.blockedOrDenied;
  }
  if (options.interrupted) {
    say('\ninterrupted\n', 'red');
    return EXIT.interrupted;
  }
  // A model that cannot be reached or breaks off: one line of what failed, one of what to do; the trace only with --debug.
  const failure = modelCallErrorFrom({ error, target: options.target });
  if (failure === undefined) throw error;
  // The model's last words may have stopped mid-line.
  if (options.wroteText) io.stdout.write('\n');
  io.stderr.write(`toolgate run: ${sanitizeTerminalText(failure.message)} [${failure.code}]\n${sanitizeTerminalText(failure.hint)}\n`);
  if (options.debug) io.stderr.write(`${debugTrace(error)}\n`);
  return EXIT.model;
}

/** The error, its stack and its causes (a retry's last error, the socket's), for --debug. */
function debugTrace(error: unknown): string {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    lines.push(depth === 0 ? '' : 'caused by:');
    if (current instanceof Error) {
      lines.push(current.stack ?? `${current.name}: ${current.message}`);
      const extra = current as { url?: unknown; statusCode?: unknown; responseBody?: unknown };
      if (typeof extra.url === 'string') lines.push(`  url: ${extra.url}`);
      if (typeof extra.statusCode === 'number') lines.push(`  status: ${extra.statusCode}`);
      if (typeof extra.responseBody === 'string') lines.push(`  response: ${extra.responseBody.slice(0, 2000)}`);
      current = (current as { lastError?: unknown }).lastError ?? current.cause;
    } else {
      lines.push(brief(current, 2000));
      current = undefined;
    }
  }
  return sanitizeTerminalText(lines.join('\n'), { keepNewlines: true, keepTabs: true });
}
