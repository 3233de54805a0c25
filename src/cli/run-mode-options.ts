import type { RunMode } from '../core/types.ts';
import { UsageError } from './usage-error.ts';

/** The modes a command line may choose, as the policy's `mode:` spells them. */
export const RUN_MODES: readonly RunMode[] = ['interactive', 'approve_all', 'strict', 'auto_deny'];

/**
 * The flags that choose a mode, the same in `run`, `check` and `mcp`:
 * `--mode MODE`, and the shorthands `--approve-all`, `--strict`, `--auto-deny`.
 */
export const RUN_MODE_OPTIONS = {
  mode: { type: 'string' },
  'approve-all': { type: 'boolean' },
  strict: { type: 'boolean' },
  'auto-deny': { type: 'boolean' },
} as const;

/** The help lines for `RUN_MODE_OPTIONS`, aligned to `width`. */
export function runModeHelp(width: number): string {
  const line = (flag: string, text: string) => `  ${flag.padEnd(width)} ${text}`;
  return [
    line('--mode MODE', 'interactive | approve_all | strict | auto_deny'),
    line('', "(default: the policy's mode:, else interactive)"),
    line('--approve-all', '--mode approve_all: approve every ask (blocks still block)'),
    line('--strict', '--mode strict: deny every required ask'),
    line('--auto-deny', '--mode auto_deny: deny every ask'),
  ].join('\n');
}

/**
 * The mode the flags choose, or undefined (the policy's). Accepts
 * `approve-all` for `approve_all` too. Throws `UsageError` for an unknown
 * mode or two different ones.
 *
 * @example
 * runModeFrom({ mode: 'strict' }) // 'strict'
 * runModeFrom({ 'auto-deny': true }) // 'auto_deny'
 */
export function runModeFrom(values: { mode?: string | undefined; 'approve-all'?: boolean | undefined; strict?: boolean | undefined; 'auto-deny'?: boolean | undefined }): RunMode | undefined {
  const chosen: { flag: string; mode: RunMode }[] = [];
  if (values.mode !== undefined) {
    const mode = values.mode.replaceAll('-', '_') as RunMode;
    if (!RUN_MODES.includes(mode)) throw new UsageError(`--mode must be one of ${RUN_MODES.join(', ')}, not ${JSON.stringify(values.mode)}`);
    chosen.push({ flag: `--mode ${values.mode}`, mode });
  }
  if (values['approve-all'] === true) chosen.push({ flag: '--approve-all', mode: 'approve_all' });
  if (values.strict === true) chosen.push({ flag: '--strict', mode: 'strict' });
  if (values['auto-deny'] === true) chosen.push({ flag: '--auto-deny', mode: 'auto_deny' });
  const modes = new Set(chosen.map((entry) => entry.mode));
  if (modes.size > 1) throw new UsageError(`choose one of --approve-all, --strict and --auto-deny (or one --mode), not ${chosen.map((entry) => entry.flag).join(' and ')}`);
  return chosen[0]?.mode;
}
