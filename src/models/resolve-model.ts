import type { LanguageModelV4 } from '@ai-sdk/provider';
import { chooseModel } from './choose-model.ts';
import { ModelConfigError } from './errors/model-config-error.ts';
import { loadScript } from './load-script.ts';
import { createScriptedModel } from './scripted-model.ts';

export const MODEL_PROVIDERS = ['script', 'openai', 'anthropic', 'openai-compatible'] as const;

// Passed explicitly: left out, the providers would read OPENAI_BASE_URL and
// ANTHROPIC_BASE_URL from process.env rather than from the `env` given.
const OPENAI_DEFAULT_URL = 'https://api.openai.com/v1';
const ANTHROPIC_DEFAULT_URL = 'https://api.anthropic.com/v1';

export interface ResolveModelOptions {
  /** `provider:model`, e.g. `openai:gpt-4o`; absent: chosen from `env` by `chooseModel` (`TOOLGATE_MODEL`, else a provider key). */
  id?: string;
  /** Read for keys and URLs instead of `process.env`, so nothing is read behind the caller's back. */
  env: NodeJS.ProcessEnv;
  /** Script files resolve against it. */
  cwd: string;
  /** The `--base-url` flag: the server to talk to, for any HTTP provider. */
  baseUrl?: string;
  signal?: AbortSignal;
}

/**
 * Turns a model id into an AI SDK language model:
 *
 * | id | needs |
 * |---|---|
 * | `script:demo`, `script:FILE` | nothing (offline, the scripted model) |
 * | `openai:<model>` | `OPENAI_API_KEY`; optional `OPENAI_BASE_URL` |
 * | `anthropic:<model>` | `ANTHROPIC_API_KEY`; optional `ANTHROPIC_BASE_URL` |
 * | `openai-compatible:<model>` | a base URL: `--base-url`, `TOOLGATE_BASE_URL` or `OPENAI_COMPATIBLE_BASE_URL` (Ollama: http://localhost:11434/v1); optional `OPENAI_COMPATIBLE_API_KEY` |
 *
 * `--base-url` overrides the server of every HTTP provider; the generic
 * `TOOLGATE_BASE_URL` applies to `openai-compatible` only, so an OpenAI or
 * Anthropic key is never sent to a server chosen for another provider.
 * Throws `ModelConfigError` (`MODEL_CONFIG_INVALID`) naming the variable or
 * flag to set. No network is used here: keys are checked when a call is made.
 * Only the chosen provider's SDK is loaded (each is imported on first use).
 *
 * @example
 * const model = await resolveModel({ id: 'openai-compatible:llama3.2', env: process.env, cwd: process.cwd(), baseUrl: 'http://localhost:11434/v1' });
 */
export async function resolveModel(options: ResolveModelOptions): Promise<LanguageModelV4> {
  return (await resolveModelConnection(options)).model;
}

/** A model and where it is served from, to name in error messages. */
export interface ModelConnection {
  model: LanguageModelV4;
  /** `openai`, `anthropic`, `openai-compatible` or `script`. */
  provider: string;
  /** The model's name at its provider, e.g. `gpt-4o`. */
  modelId: string;
  /** The server's base URL; undefined for scripts. */
  baseUrl: string | undefined;
}

/**
 * `resolveModel`, also returning the provider and base URL, so that a failed
 * call can say which server it tried (`modelCallErrorFrom`).
 *
 * @example
 * const { model, baseUrl } = await resolveModelConnection({ id: 'openai-compatible:llama3.2', env: {}, cwd: '.', baseUrl: 'http://localhost:11434/v1' });
 */
export async function resolveModelConnection(options: ResolveModelOptions): Promise<ModelConnection> {
  const id = options.id ?? chooseModel({ env: options.env, demo: false }).id;
  const separator = id.indexOf(':');
  const provider = separator === -1 ? '' : id.slice(0, separator);
  const name = separator === -1 ? '' : id.slice(separator + 1).trim();
  if (separator === -1 || !(MODEL_PROVIDERS as readonly string[]).includes(provider)) {
    throw new ModelConfigError({
      modelId: id,
      message: `${separator === -1 ? 'a model id is provider:model' : `unknown provider "${provider}"`}; use one of ${MODEL_PROVIDERS.map((known) => `${known}:…`).join(', ')} (e.g. openai:gpt-4o, anthropic:claude-sonnet-4-5, openai-compatible:llama3.2, script:demo), set with --model or TOOLGATE_MODEL`,
      settings: ['--model', 'TOOLGATE_MODEL'],
    });
  }
  if (name === '') {
    throw new ModelConfigError({ modelId: id, message: `no model after "${provider}:"; write ${provider}:<model>, e.g. ${exampleFor(provider)}`, settings: ['--model', 'TOOLGATE_MODEL'] });
  }
  switch (provider) {
    case 'script':
      return { provider, modelId: name, baseUrl: undefined, model: createScriptedModel({ script: await loadScript(name, { cwd: options.cwd, ...(options.signal === undefined ? {} : { signal: options.signal }) }) }) };
    case 'openai': {
      const apiKey = requireSetting({ id, env: options.env, variable: 'OPENAI_API_KEY', purpose: 'an OpenAI API key' });
      const baseURL = optionalUrl({ id, candidates: [['--base-url', options.baseUrl], ['OPENAI_BASE_URL', options.env.OPENAI_BASE_URL]] }) ?? OPENAI_DEFAULT_URL;
      const { createOpenAI } = await import('@ai-sdk/openai');
      return { provider, modelId: name, baseUrl: baseURL, model: createOpenAI({ apiKey, baseURL })(name) };
    }
    case 'anthropic': {
      const apiKey = requireSetting({ id, env: options.env, variable: 'ANTHROPIC_API_KEY', purpose: 'an Anthropic API key' });
      const baseURL = optionalUrl({ id, candidates: [['--base-url', options.baseUrl], ['ANTHROPIC_BASE_URL', options.env.ANTHROPIC_BASE_URL]] }) ?? ANTHROPIC_DEFAULT_URL;
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return { provider, modelId: name, baseUrl: baseURL, model: createAnthropic({ apiKey, baseURL })(name) };
    }
    default: {
      const baseURL = optionalUrl({
        id,
        candidates: [
          ['--base-url', options.baseUrl],
          ['TOOLGATE_BASE_URL', options.env.TOOLGATE_BASE_URL],
          ['OPENAI_COMPATIBLE_BASE_URL', options.env.OPENAI_COMPATIBLE_BASE_URL],
        ],
      });
      if (baseURL === undefined) {
        throw new ModelConfigError({
          modelId: id,
          message:
            'an OpenAI-compatible server needs its base URL: pass --base-url or set TOOLGATE_BASE_URL (or OPENAI_COMPATIBLE_BASE_URL), e.g. http://localhost:11434/v1 for Ollama, http://localhost:8000/v1 for vLLM, http://localhost:1234/v1 for LM Studio',
          settings: ['--base-url', 'TOOLGATE_BASE_URL', 'OPENAI_COMPATIBLE_BASE_URL'],
        });
      }
      const apiKey = nonEmpty(options.env.OPENAI_COMPATIBLE_API_KEY) ?? nonEmpty(options.env.TOOLGATE_API_KEY);
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return { provider, modelId: name, baseUrl: baseURL, model: createOpenAICompatible({ name: 'openai-compatible', baseURL, ...(apiKey === undefined ? {} : { apiKey }) })(name) };
    }
  }
}

function requireSetting(options: { id: string; env: NodeJS.ProcessEnv; variable: string; purpose: string }): string {
  const value = nonEmpty(options.env[options.variable]);
  if (value !== undefined) return value;
  throw new ModelConfigError({
    modelId: options.id,
    message: `${options.purpose} is needed: set ${options.variable} (or choose another model with --model, e.g. script:demo to run offline)`,
    settings: [options.variable],
  });
}

/** The first candidate that is set, checked to be an http(s) URL; the error names where the bad value came from. */
function optionalUrl(options: { id: string; candidates: readonly (readonly [string, string | undefined])[] }): string | undefined {
  for (const [setting, raw] of options.candidates) {
    const value = nonEmpty(raw);
    if (value === undefined) continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new ModelConfigError({ modelId: options.id, message: `${setting} is not an http(s) URL: ${JSON.stringify(value)}; fix ${setting}, e.g. http://localhost:11434/v1`, settings: [setting] });
    }
    return value.replace(/\/+$/, '');
  }
  return undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function exampleFor(provider: string): string {
  if (provider === 'openai') return 'openai:gpt-4o';
  if (provider === 'anthropic') return 'anthropic:claude-sonnet-4-5';
  if (provider === 'openai-compatible') return 'openai-compatible:llama3.2';
  return 'script:demo';
}
