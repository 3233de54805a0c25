import { enableCompileCache } from 'node:module';
import { sanitizeTerminalText } from '../core/sanitize-terminal-text.ts';
import { EXIT, processIo, type CliIo } from './cli-io.ts';
import { exitAsHook, runCliCommand, type CommandRun } from './run-cli-command.ts';
import { holdYoungGeneration } from './young-generation-cap.ts';

/**
 * Every command with its one-line summary for `toolgate --help`. A command's
 * module (and all it pulls in: the MCP SDK, the AI SDK, the server...) is
 * imported only when that command is chosen, so `toolgate --help` and each
 * command start without loading the others.
 */
const COMMANDS: Record<string, { load: () => Promise<CommandRun>; summary: string }> = {
  init: { load: async () => (await import('./commands/init-command.ts')).runInitCommand, summary: 'write a starter toolgate.yaml (commented) for this project' },
  run: { load: async () => (await import('./commands/run-command.ts')).runRunCommand, summary: 'run an agent in this terminal, every tool call gated (--demo: no key needed)' },
  check: { load: async () => (await import('./commands/check-command.ts')).runCheckCommand, summary: 'what the policy does with a tool call (the simulator)' },
  serve: { load: async () => (await import('./commands/serve-command.ts')).runServeCommand, summary: 'the HTTP approval API and web inbox; paused runs kept in a store (--demo: no key needed)' },
  token: { load: async () => (await import('./commands/token-command.ts')).runTokenCommand, summary: "create, list or revoke the server's API tokens" },
  mcp: { load: async () => (await import('./commands/mcp-command.ts')).runMcpCommand, summary: "an MCP gateway: one policy in front of the policy's MCP servers" },
  replay: { load: async () => (await import('./commands/replay-command.ts')).runReplayCommand, summary: 'judge past Claude Code and Codex sessions (or an audit log) under a policy, or two to compare' },
  insights: { load: async () => (await import('./commands/insights-command.ts')).runInsightsCommand, summary: 'asks, approval rates and time to decide per rule and approver; rubber-stamped rules and narrower ones (--suggest)' },
  audit: { load: async () => (await import('./commands/audit-command.ts')).runAuditCommand, summary: 'read the audit log' },
  approvals: { load: async () => (await import('./commands/approvals-command.ts')).runApprovalsCommand, summary: 'list or revoke "approve always" decisions' },
  schema: { load: async () => (await import('./commands/schema-command.ts')).runSchemaCommand, summary: 'print the policy file\'s JSON Schema' },
  doctor: { load: async () => (await import('./commands/doctor-command.ts')).runDoctorCommand, summary: 'what the OS sandbox can do here, and what the policy needs' },
  install: { load: async () => (await import('./commands/install-command.ts')).runInstallCommand, summary: "put toolgate's hook in an agent host's configuration (claude-code, codex)" },
  trust: { load: async () => (await import('./commands/trust-command.ts')).runTrustCommand, summary: "let a project's policy decide its agent hosts' calls (toolgate trust [FILE])" },
  uninstall: { load: async () => (await import('./commands/install-command.ts')).runUninstallCommand, summary: "take toolgate's hook out of an agent host's configuration" },
  pause: { load: async () => (await import('./commands/pause-command.ts')).runPauseCommand, summary: "pause toolgate's hooks for a while (the hosts decide alone), keeping them installed" },
  resume: { load: async () => (await import('./commands/pause-command.ts')).runResumeCommand, summary: "end a pause: toolgate's hooks judge every call again" },
  hook: { load: async () => (await import('./commands/hook-command.ts')).runHookCommand, summary: "the permission hook of an agent host (Claude Code, Codex): one policy for the agents people run" },
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
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    const { nearestName } = await import('./parse-command-line.ts');
    const suggestion = nearestName(name, Object.keys(COMMANDS));
    io.stderr.write(`toolgate: unknown command ${sanitizeTerminalText(JSON.stringify(name))}${suggestion === undefined ? '' : `: did you mean ${suggestion}?`}\n\n${MAIN_HELP}`);
    return EXIT.usage;
  }
  return runCliCommand({ name, load: command.load, argv: rest, io });
}

/**
 * Runs the CLI as this process (src/cli/main.ts run directly, or
 * bin/toolgate.js): sets the exit code; a hook exits as soon as its answer
 * is written, since work still pending (a read that hangs past its deadline)
 * must not keep it alive until the host's own timeout, after which the host
 * runs the call.
 *
 * @example
 * await runAsProcess(process.argv.slice(2));
 */
export async function runAsProcess(argv: string[]): Promise<void> {
  // Before its modules load: a replay keeps V8's young generation small (young-generation-cap.ts).
  if (argv[0] === 'replay') holdYoungGeneration();
  const code = await main(argv);
  if (argv[0] === 'hook') await exitAsHook(code);
  process.exitCode = code;
}

/** The package version: two levels up from src/cli, three from the compiled dist/src/cli. */
function version(): string {
  // From the module object, not an ESM import, which would cost every command's start 2 ms (a hook's, per tool call).
  const { readFileSync } = process.getBuiltinModule('node:fs');
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
  // V8's code cache (and the TypeScript stripped to JavaScript), kept in the
  // OS's temp directory (NODE_COMPILE_CACHE names another, NODE_DISABLE_COMPILE_CACHE=1
  // turns it off): a second start compiles nothing again. Before the command's
  // import, so all it loads is cached.
  enableCompileCache();
  await runAsProcess(process.argv.slice(2));
}
