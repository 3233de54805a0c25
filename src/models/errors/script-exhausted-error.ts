import { ToolgateError } from '../../core/errors/toolgate-error.ts';

/**
 * The scripted model was asked for a turn its script has no step for. Thrown
 * only with `onExhausted: 'throw'` (tests that must notice a script running
 * short); by default the model answers `(script finished)` instead.
 */
export class ScriptExhaustedError extends ToolgateError {
  readonly script: string;
  /** The turn (1-based) that found no step. */
  readonly turn: number;

  constructor(options: { script: string; turn: number; steps: number }) {
    super({
      code: 'SCRIPT_EXHAUSTED',
      message: `script "${options.script}" has no step left for turn ${options.turn} (${options.steps} steps, the rest were played or skipped): add steps, or stop the run earlier`,
    });
    this.name = 'ScriptExhaustedError';
    this.script = options.script;
    this.turn = options.turn;
  }
}
