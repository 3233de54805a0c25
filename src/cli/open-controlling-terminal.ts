import type tty from 'node:tty';

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
  // From the module objects, not imports: node:tty is not in Node's startup snapshot, and an import's facade reads every
  // export of node:fs (5 ms of every command's start together, a hook's per tool call, which never opens a terminal).
  const { closeSync, existsSync, openSync } = process.getBuiltinModule('node:fs');
  const { isatty, ReadStream, WriteStream } = process.getBuiltinModule('node:tty');
  const path = options.path ?? '/dev/tty';
  if (!existsSync(path)) return undefined;
  let readDescriptor: number | undefined;
  let writeDescriptor: number | undefined;
  try {
    readDescriptor = openSync(path, 'r');
    writeDescriptor = openSync(path, 'w');
    if (!isatty(readDescriptor) || !isatty(writeDescriptor)) throw new Error('not a terminal');
  } catch {
    for (const descriptor of [readDescriptor, writeDescriptor]) if (descriptor !== undefined) closeSync(descriptor);
    return undefined;
  }
  const input = new ReadStream(readDescriptor);
  const output = new WriteStream(writeDescriptor);
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
