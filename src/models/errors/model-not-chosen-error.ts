import { ToolgateError } from '../../core/errors/toolgate-error.ts';

/**
 * `toolgate run` was given no model: no `--model`, no `TOOLGATE_MODEL` and
 * no provider key in the environment. The message lists every way to choose
 * one; toolgate never falls back to the demo script in a real directory.
 */
export class ModelNotChosenError extends ToolgateError {
  constructor(options: { message: string }) {
    super({ code: 'MODEL_NOT_CHOSEN', message: options.message });
    this.name = 'ModelNotChosenError';
  }
}
