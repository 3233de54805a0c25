import { closeSync, existsSync, openSync } from 'node:fs';
import tty from 'node:tty';

/** The person's terminal, opened apart from stdin and stdout. */
export interface ControllingTerminal {
  input: tty.ReadStream;
  output: tty.WriteStream;
  close(): void;
}

/**
 * Opens /dev/tty, the terminal the process was started from, when there is
 * one: a stdio MCP gateway cannot ask on stdin/stdout, which carry the
 * protocol. Returns undefined when /dev/tty does not exist, cannot be opened
 * (no controlling terminal, as under most MCP clients) or is not a terminal.
 * The streams do not keep the process alive on their own.
 *
 * @example
 * const terminal = openControllingTerminal();
 * const approver = terminal && createTerminalApprover({ input: terminal.input, output: terminal.output, env: process.env });
 */
export function openControllingTerminal(options: { path?: string } = {}): ControllingTerminal | undefined {
  const path = options.path ?? '/dev/tty';
  if (!existsSync(path)) return undefined;
  let readDescriptor: number | undefined;
  let writeDescriptor: number | undefined;
  try {
    readDescriptor = openSync(path, 'r');
    writeDescriptor = openSync(path, 'w');
    if (!tty.isatty(readDescriptor) || !tty.isatty(writeDescriptor)) throw new Error('not a terminal');
  } catch {
    for (const descriptor of [readDescriptor, writeDescriptor]) if (descriptor !== undefined) closeSync(descriptor);
    return undefined;
  }
  const input = new tty.ReadStream(readDescriptor);
  const output = new tty.WriteStream(writeDescriptor);
  input.unref();
  output.unref();
  return {
    input,
    output,
    close() {
      input.destroy();
      output.destroy();
    },
  };
}
