/**
 * `node src/cli/mcp-entry.ts --policy FILE [options]`: runs `toolgate mcp`
 * directly, for MCP client configurations that start a script rather than
 * the `toolgate` binary, and for the end-to-end tests. Same options, output
 * and exit codes as `toolgate mcp`.
 */
import { PolicyError } from '../core/errors/policy-error.ts';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { EXIT, processIo } from './cli-io.ts';
import { UsageError } from './cli-support.ts';
import { runMcpCommand } from './commands/mcp-command.ts';

const io = processIo();
try {
  process.exitCode = await runMcpCommand(process.argv.slice(2), io);
} catch (error) {
  if (error instanceof UsageError || (error as NodeJS.ErrnoException)?.code?.startsWith?.('ERR_PARSE_ARGS')) {
    io.stderr.write(`toolgate mcp: ${(error as Error).message}\nRun 'toolgate mcp --help' for usage.\n`);
    process.exitCode = EXIT.usage;
  } else if (error instanceof PolicyError) {
    io.stderr.write(`toolgate mcp: ${error.message}\n`);
    process.exitCode = EXIT.policy;
  } else if (error instanceof ToolgateError) {
    io.stderr.write(`toolgate mcp: ${error.message} [${error.code}]\n`);
    process.exitCode = 1;
  } else {
    io.stderr.write(`toolgate mcp: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  }
}
// Nothing may keep a finished gateway alive (a terminal stream, a stray timer): it has closed everything it owns.
process.exit();
