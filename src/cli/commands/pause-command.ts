import { durationMs } from '../../core/policy/normalize-policy.ts';
import { MAX_PAUSE_MS, pausedUntil, pauseHooks, resumeHooks } from '../../hooks/hook-pause.ts';
import { EXIT, type CliIo } from '../cli-io.ts';
import { UsageError } from '../cli-support.ts';
import { parseCommandLine } from '../parse-command-line.ts';

export const PAUSE_HELP = `Usage:
  toolgate pause [DURATION]   pause toolgate's hooks (default 1h, at most 24h)
  toolgate pause --status     whether they are paused, and until when
  toolgate resume             end the pause now

While paused, the hooks of Claude Code and Codex judge nothing, record
nothing and answer nothing: each host decides as it would without toolgate
(its own permission rules and prompts). The hooks stay installed, so Codex's
trust of them holds, and the pause ends by itself. DURATION: 90s, 30m, 2h.

The pause is kept in toolgate's state home (~/.local/state/toolgate), which
no agent's tool call may write; run this yourself, in a terminal. An agent
that runs it through its shell is judged like any command first.

Exit codes: 0 done   2 usage error
`;

/**
 * `toolgate pause` and `toolgate resume`.
 *
 * @example
 * process.exitCode = await runPauseCommand(['30m'], processIo());
 */
export async function runPauseCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine({ argv, allowPositionals: true, options: { status: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help === true) {
    io.stdout.write(PAUSE_HELP);
    return EXIT.ok;
  }
  if (values.status === true) {
    if (positionals.length > 0) throw new UsageError('--status takes no duration');
    const until = pausedUntil({ env: io.env });
    io.stdout.write(until === undefined ? "toolgate's hooks are not paused\n" : `toolgate's hooks are paused until ${until.toISOString()} (toolgate resume ends it now)\n`);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError(`pause takes one duration, not ${positionals.length} words`);
  const written = positionals[0] ?? '1h';
  const ms = durationMs(written);
  if (ms === undefined || ms < 1000 || ms > MAX_PAUSE_MS) throw new UsageError(`the pause must be a duration from 1s to 24h, such as 30m or 2h, not ${JSON.stringify(written)}`);
  const until = pauseHooks({ env: io.env, ms });
  io.stdout.write(`toolgate's hooks are paused until ${until.toISOString()}: Claude Code and Codex decide on their own until then (toolgate resume ends it now)\n`);
  return EXIT.ok;
}

/**
 * `toolgate resume`.
 *
 * @example
 * process.exitCode = await runResumeCommand([], processIo());
 */
export async function runResumeCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandLine({ argv, options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help === true) {
    io.stdout.write(PAUSE_HELP);
    return EXIT.ok;
  }
  io.stdout.write(resumeHooks({ env: io.env }) ? "toolgate's hooks judge every call again\n" : "toolgate's hooks were not paused: they judge every call\n");
  return EXIT.ok;
}
