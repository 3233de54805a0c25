/**
 * What `toolgate run` writes while the agent works: the model's text on
 * stdout, and on stderr each tool call (its secrets [REDACTED], as in the
 * audit log) and what came of it, ran, failed (secrets hidden in the
 * message too) or why it did not run. Everything from the model or a tool
 * is sanitized for the terminal.
 */
import { styleText } from 'node:util';
import type { LoadedPolicy } from '../../config/load-policy-file.ts';
import type { GateObserver } from '../../core/gate.ts';
import { redact, redactSecretsInText } from '../../core/redact.ts';
import { sanitizeTerminalText } from '../../core/sanitize-terminal-text.ts';
import { brief, type AgentRunEvents } from '../../runtime/run-agent.ts';
import type { CliIo } from '../cli-io.ts';
import type { Spinner } from '../spinner.ts';

/** Writes a line of the run's own to stderr, styled when the terminal takes color. */
export type Say = (text: string, style?: Parameters<typeof styleText>[0]) => unknown;

/**
 * The run's `say`: stderr, in color when it is a terminal and NO_COLOR is unset.
 *
 * @example
 * const { say, color } = createSay(io);
 * say('blocked\n', 'red');
 */
export function createSay(io: CliIo): { say: Say; color: boolean } {
  const color = io.stderr.isTTY === true && io.env.NO_COLOR === undefined;
  const say: Say = (text, style) => io.stderr.write(color && style !== undefined ? styleText(style, text) : text);
  return { say, color };
}

/** The transcript of one run. */
export interface RunTranscript {
  /** Hears why each call that did not run was stopped, to show next to it. */
  observer: GateObserver;
  /** The agent's events, written out. */
  events: AgentRunEvents;
  /** Whether the model's text of this step was written and not yet ended with a newline. */
  readonly wroteText: boolean;
}

/**
 * The transcript of a run, written to `io` (the model's text) and through
 * `say` (the calls), secrets redacted as `loaded`'s policy says; the spinner
 * stops before anything is written.
 *
 * @example
 * const transcript = createRunTranscript({ io, say, spinner, loaded });
 * await runAgent({ ...options, ...transcript.events });
 */
export function createRunTranscript(options: { io: CliIo; say: Say; spinner: Spinner; loaded: LoadedPolicy }): RunTranscript {
  const { io, say, spinner, loaded } = options;
  // Why each call that did not run was stopped, to show next to it.
  const refusals = new Map<string, string>();
  let wroteText = false;
  // Each call's arguments until its result is printed, to keep their secrets out of an error message that quotes them.
  const argumentsById = new Map<string, unknown>();
  return {
    observer: {
      authorized: ({ call, authorization }) => {
        if (authorization.decision === 'block' || authorization.decision === 'denied') {
          refusals.set(call.callId, `${authorization.decision === 'block' ? 'blocked' : 'denied'}: ${authorization.reason}`);
        }
      },
    },
    events: {
      onThinking: () => spinner.start('thinking'),
      onText: (delta) => {
        spinner.stop();
        wroteText = true;
        io.stdout.write(sanitizeTerminalText(delta, { keepNewlines: true, keepTabs: true }));
      },
      onStepEnd: () => {
        if (wroteText) io.stdout.write('\n');
        wroteText = false;
      },
      onToolCall: ({ toolCallId, tool, args }) => {
        spinner.stop();
        argumentsById.set(toolCallId, args);
        // The transcript is a stream like the audit log: secrets stay [REDACTED] here; the prompt masks them and [v] reveals them.
        say(`\n→ ${sanitizeTerminalText(tool)} ${sanitizeTerminalText(brief(redact(args, loaded.policy.redact.keys), 120))}\n`, 'cyan');
      },
      onToolResult: ({ toolCallId, tool, outcome, detail }) => {
        spinner.stop();
        if (outcome === 'ran') say(`  ✓ ${sanitizeTerminalText(tool)} ran\n`, 'green');
        // A failure message may quote the call's arguments (a validation error does): their secrets stay hidden there too.
        else if (outcome === 'failed') say(`  ✗ ${sanitizeTerminalText(tool)} failed: ${sanitizeTerminalText(redactSecretsInText({ text: detail, value: argumentsById.get(toolCallId), keys: loaded.policy.redact.keys }))}\n`, 'red');
        else say(`  ✗ ${sanitizeTerminalText(tool)} ${sanitizeTerminalText(refusals.get(toolCallId) ?? 'did not run')}\n`, 'red');
      },
    },
    get wroteText() {
      return wroteText;
    },
  };
}
