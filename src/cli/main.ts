import { readFileSync } from 'node:fs';
import { PolicyError } from '../core/errors/policy-error.ts';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { sanitizeTerminalText } from '../core/sanitize-terminal-text.ts';
import { EXIT, processIo, type CliIo } from './cli-io.ts';
import { UsageError } from './cli-support.ts';
import { nearestName } from './parse-command-line.ts';
import { runApprovalsCommand } from './commands/approvals-command.ts';
import { runAuditCommand } from './commands/audit-command.ts';
import { runCheckCommand } from './commands/check-command.ts';
import { runDoctorCommand } from './commands/doctor-command.ts';
import { runInitCommand } from './commands/init-command.ts';
import { runMcpCommand } from './commands/mcp-command.ts';
import { runRunCommand } from './commands/run-command.ts';
import { runSchemaCommand } from './commands/schema-command.ts';
import { runServeCommand } from './commands/serve-command.ts';
import { runTokenCommand } from './commands/token-command.ts';

const COMMANDS: Record<string, { run: (argv: string[], io: CliIo) => Promise<number>; summary: string }> = {
  init: { run: (argv, io) => runInitCommand(argv, io), summary: 'write a starter toolgate.yaml (commented) for this project' },
  run: { run: runRunCommand, summary: 'run an agent in this terminal, every tool call gated (--demo: no key needed)' },
  check: { run: runCheckCommand, summary: 'what the policy does with a tool call (the simulator)' },
  serve: { run: (argv, io) => runServeCommand(argv, io), summary: 'the HTTP approval API and web inbox; paused runs kept in a store (--demo: no key needed)' },
  token: { run: runTokenCommand, summary: "create, list or revoke the server's API tokens" },
  mcp: { run: runMcpCommand, summary: "an MCP gateway: one policy in front of the policy's MCP servers" },
  audit: { run: runAuditCommand, summary: 'read the audit log' },
  approvals: { run: runApprovalsCommand, summary: 'list or revoke "approve always" decisions' },
  schema: { run: runSchemaCommand, summary: 'print the policy file\'s JSON Schema' },
  doctor: { run: (argv, io) => runDoctorCommand(argv, io), summary: 'what the OS sandbox can do here, and what the policy needs' },
};

export const MAIN_HELP = `toolgate — human-in-the-loop approval for the tools that LLM agents call

Usage: toolgate <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(10)} ${command.summary}`)
  .join('\n')}

Run 'toolgate <command> --help' for a command's options and exit codes.

Exit codes common to every command:
  0  success          2  usage error (unknown flag, bad value)
  3  the policy file is missing or invalid (file:line:column: key: problem)
`;

/**
 * Runs the CLI with `argv` (without node and script) and returns the exit code.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2));
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.stdout.write(MAIN_HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    const suggestion = nearestName(name, Object.keys(COMMANDS));
    io.stderr.write(`toolgate: unknown command ${sanitizeTerminalText(JSON.stringify(name))}${suggestion === undefined ? '' : `: did you mean ${suggestion}?`}\n\n${MAIN_HELP}`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    return reportError(error, name, io);
  }
}

/** Error messages quote flags, JSON and policy text a model may have written: they print through the one sanitiser. */
function reportError(error: unknown, command: string, io: CliIo): number {
  const safe = (text: unknown): string => sanitizeTerminalText(String(text), { keepNewlines: true, keepTabs: true, collapse: true });
  if (error instanceof UsageError || (error as NodeJS.ErrnoException)?.code?.startsWith?.('ERR_PARSE_ARGS')) {
    io.stderr.write(`toolgate ${command}: ${safe((error as Error).message)}\nRun 'toolgate ${command} --help' for usage.\n`);
    return EXIT.usage;
  }
  if (error instanceof PolicyError) {
    io.stderr.write(`toolgate ${command}: ${safe(error.message)}\n`);
    return EXIT.policy;
  }
  if (error instanceof ToolgateError) {
    io.stderr.write(`toolgate ${command}: ${safe(error.message)} [${safe(error.code)}]\n`);
    return 1;
  }
  io.stderr.write(`toolgate ${command}: unexpected error: ${safe((error as Error)?.stack ?? String(error))}\n`);
  return 1;
}

/** The package version: two levels up from src/cli, three from the compiled dist/src/cli. */
function version(): string {
  for (const candidate of ['../../package.json', '../../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'toolgate' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // Not there: try the next.
    }
  }
  return 'unknown';
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
