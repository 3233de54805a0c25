/**
 * `toolgate hook` as an entry of its own: what bin/toolgate.js runs for a
 * hook in the installed package, bundled with everything it imports into
 * one file (scripts/bundle-hook.ts). A host starts it for every tool call,
 * and loading some 390 modules one by one cost most of its time; one file
 * costs one read and one compile (kept in Node's compile cache). The same
 * file runs the decider, which answers the next calls warm
 * (hook-decider.ts).
 *
 * @example
 * await runHookProcess(['hook', 'claude-code']);
 */
import { processIo } from './cli-io.ts';
import { runHookCommand } from './commands/hook-command.ts';
import { exitAsHook, runCliCommand } from './run-cli-command.ts';

export { serveHookDecider } from './hook-decider.ts';

/** Decides in this process, answers, then (`afterAnswer`) starts a decider for the next call, and exits. */
export async function runHookProcess(argv: string[], options: { afterAnswer?: () => void } = {}): Promise<never> {
  const code = await runCliCommand({ name: 'hook', load: async () => runHookCommand, argv: argv.slice(1), io: processIo() });
  options.afterAnswer?.();
  return exitAsHook(code);
}
