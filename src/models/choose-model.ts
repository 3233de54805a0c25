import { ModelConfigError } from './errors/model-config-error.ts';
import { ModelNotChosenError } from './errors/model-not-chosen-error.ts';
import { isBuiltinScript } from './load-script.ts';

/** The model taken when only `OPENAI_API_KEY` says which provider to use. */
export const OPENAI_KEY_MODEL = 'openai:gpt-4o';
/** The model taken when only `ANTHROPIC_API_KEY` says which provider to use. */
export const ANTHROPIC_KEY_MODEL = 'anthropic:claude-sonnet-4-5';
/** The offline demo script: only ever with `--demo`, in its own workspace. */
export const DEMO_MODEL = 'script:demo';

/** Where the model id came from, in the order they are consulted. */
export type ModelSource = 'flag' | 'demo' | 'TOOLGATE_MODEL' | 'OPENAI_API_KEY' | 'ANTHROPIC_API_KEY';

export interface ModelChoice {
  /** `provider:model`, for `resolveModel`. */
  id: string;
  source: ModelSource;
  /** A line saying which model was taken and why, when nobody named it on the command line; else undefined. */
  notice: string | undefined;
}

export interface ChooseModelOptions {
  /** The `--model` flag. */
  flag?: string | undefined;
  env: NodeJS.ProcessEnv;
  /** `--demo`: a fresh temporary workspace, where the demo script may run. */
  demo: boolean;
}

const HOW_TO_CHOOSE = [
  'choose one with --model (or TOOLGATE_MODEL):',
  '  --model openai:gpt-4o                     needs OPENAI_API_KEY',
  '  --model anthropic:claude-sonnet-4-5       needs ANTHROPIC_API_KEY',
  '  --model openai-compatible:llama3.2 --base-url http://localhost:11434/v1   a local server (Ollama, vLLM, LM Studio)',
  'Setting OPENAI_API_KEY or ANTHROPIC_API_KEY alone picks that provider. To try toolgate without a model: toolgate run --demo (or toolgate serve --demo)',
].join('\n');

/**
 * Which model `toolgate run` uses: `--model`, else `TOOLGATE_MODEL`, else
 * the provider whose key is in the environment (`OPENAI_API_KEY`, then
 * `ANTHROPIC_API_KEY`), said in `notice`. With none of them it throws
 * `ModelNotChosenError` saying how to choose: a run never falls back to the
 * demo script, which writes files and asks to delete them. The demo script
 * runs only with `demo: true` (it is `--demo`'s default); named anywhere
 * else it is a `ModelConfigError`.
 *
 * @example
 * chooseModel({ env: { ANTHROPIC_API_KEY: 'sk-ant-…' }, demo: false });
 * // { id: 'anthropic:claude-sonnet-4-5', source: 'ANTHROPIC_API_KEY', notice: 'model: anthropic:claude-sonnet-4-5 (ANTHROPIC_API_KEY is set; …)' }
 */
export function chooseModel(options: ChooseModelOptions): ModelChoice {
  const flag = nonEmpty(options.flag);
  if (options.demo) {
    return flag === undefined ? { id: DEMO_MODEL, source: 'demo', notice: undefined } : { id: flag, source: 'flag', notice: undefined };
  }
  if (flag !== undefined) return { id: refuseDemoScript(flag, '--model'), source: 'flag', notice: undefined };
  const fromEnv = nonEmpty(options.env.TOOLGATE_MODEL);
  if (fromEnv !== undefined) {
    return { id: refuseDemoScript(fromEnv, 'TOOLGATE_MODEL'), source: 'TOOLGATE_MODEL', notice: `model: ${fromEnv} (from TOOLGATE_MODEL)\n` };
  }
  const openai = nonEmpty(options.env.OPENAI_API_KEY) !== undefined;
  const anthropic = nonEmpty(options.env.ANTHROPIC_API_KEY) !== undefined;
  if (openai || anthropic) {
    const [id, source] = openai ? ([OPENAI_KEY_MODEL, 'OPENAI_API_KEY'] as const) : ([ANTHROPIC_KEY_MODEL, 'ANTHROPIC_API_KEY'] as const);
    const both = openai && anthropic ? `; ANTHROPIC_API_KEY is set too: --model ${ANTHROPIC_KEY_MODEL} takes it` : '';
    return { id, source, notice: `model: ${id} (${source} is set${both}; choose another with --model or TOOLGATE_MODEL)\n` };
  }
  throw new ModelNotChosenError({ message: `no model to run; ${HOW_TO_CHOOSE}` });
}

/** The demo script writes ws/notes.txt and asks to delete ws: never in the user's own directory. */
function refuseDemoScript(id: string, setting: string): string {
  const separator = id.indexOf(':');
  const provider = id.slice(0, separator).trim();
  const name = id.slice(separator + 1).trim();
  if (separator !== -1 && provider === 'script' && isBuiltinScript(name.startsWith('script:') ? name.slice('script:'.length) : name)) {
    throw new ModelConfigError({
      modelId: id,
      message: `the demo script runs only in its own temporary workspace: toolgate run --demo (it came from ${setting})`,
      settings: [setting],
    });
  }
  return id;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
