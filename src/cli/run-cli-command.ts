/**
 * One command run as the CLI runs it: loaded, its errors reported as the
 * exit codes `toolgate --help` documents, and a hook's exit. Shared by the
 * CLI (main.ts) and the hook's own entry (hook-main.ts), which must not
 * import main.ts: a bundle of it would hold every command.
 */
import { flushCompileCache } from 'node:module';
import { PolicyError } from '../core/errors/policy-error.ts';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { sanitizeTerminalText } from '../core/sanitize-terminal-text.ts';
import { EXIT, type CliIo } from './cli-io.ts';

export { exitAsHook } from './exit-as-hook.ts';

export type CommandRun = (argv: string[], io: CliIo) => Promise<number>;

/**
 * Runs one command and returns its exit code; an error it throws is
 * reported on stderr (a hook's as blocked: exit 2).
 *
 * @example
 * const code = await runCliCommand({ name: 'hook', load: async () => runHookCommand, argv, io });
 */
export async function runCliCommand(options: { name: string; load: () => Promise<CommandRun>; argv: string[]; io: CliIo }): Promise<number> {
  const { name, io } = options;
  try {
    const run = await options.load();
    // Written now, not at exit: a server runs until it is stopped, maybe by kill -9.
    flushCompileCache();
    return await run(options.argv, io);
  } catch (error) {
    const code = await reportError(error, name, io);
    // A host lets the call run when its hook exits with anything but 0 or 2: whatever reached here blocks.
    return name === 'hook' ? HOOK_BLOCKED : code;
  }
}

/** What `toolgate hook` exits with when it could not decide: the code every host reads as "blocked". */
const HOOK_BLOCKED = 2;

/** Error messages quote flags, JSON and policy text a model may have written: they print through the one sanitiser. */
async function reportError(error: unknown, command: string, io: CliIo): Promise<number> {
  // Loaded here, not up front: every command imports it already, so this costs nothing then.
  const { UsageError } = await import('./usage-error.ts');
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

