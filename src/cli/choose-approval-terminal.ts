import type { CliIo } from './cli-io.ts';

/** Where `toolgate run` asks a person: the streams of one terminal. */
export interface ApprovalTerminal {
  input: CliIo['stdin'];
  output: CliIo['stderr'];
  /** `stdio` when stdin and stderr are that terminal; `tty` when it was opened as /dev/tty. */
  via: 'stdio' | 'tty';
  close(): void;
}

/**
 * The terminal `toolgate run` asks on, decided on the streams the prompt is
 * read from and written to, never on stdin alone: stdin and stderr when both
 * are a terminal; otherwise the controlling terminal (/dev/tty), so that
 * `toolgate run 2>/dev/null` still shows its prompts and `echo task |
 * toolgate run` still asks the person at the keyboard. Undefined when there
 * is no terminal at all (CI, a pipeline, a service): then nobody can be asked.
 *
 * @example
 * const terminal = chooseApprovalTerminal(io);
 * const approver = terminal === undefined ? createNonInteractiveApprover({ hint }) : createTerminalApprover({ input: terminal.input, output: terminal.output, env });
 */
export function chooseApprovalTerminal(io: CliIo): ApprovalTerminal | undefined {
  if (io.stdin.isTTY === true && io.stderr.isTTY === true) return { input: io.stdin, output: io.stderr, via: 'stdio', close: () => {} };
  const opened = io.openTerminal?.();
  if (opened === undefined) return undefined;
  // Reading keys from /dev/tty is what keeps the process alive while a prompt waits (the stream is unref'd when opened).
  opened.input.ref();
  return { input: opened.input as unknown as CliIo['stdin'], output: opened.output, via: 'tty', close: () => opened.close() };
}
