import { ToolgateError } from '../../core/errors/toolgate-error.ts';

/**
 * A model id that cannot be turned into a model: an unknown provider, or a
 * missing API key or base URL. The message names exactly which environment
 * variable or flag to set; `settings` lists them for programs.
 */
export class ModelConfigError extends ToolgateError {
  readonly modelId: string;
  /** The environment variables or flags that would fix it, e.g. `OPENAI_API_KEY`, `--base-url`. */
  readonly settings: readonly string[];

  constructor(options: { modelId: string; message: string; settings?: string[] }) {
    super({ code: 'MODEL_CONFIG_INVALID', message: `model "${options.modelId}": ${options.message}` });
    this.name = 'ModelConfigError';
    this.modelId = options.modelId;
    this.settings = options.settings ?? [];
  }
}
