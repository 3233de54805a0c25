/** Models by id. No network: only construction and configuration errors are tested. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ModelConfigError } from './errors/model-config-error.ts';
import { ScriptError } from './errors/script-error.ts';
import { ModelNotChosenError } from './errors/model-not-chosen-error.ts';
import { resolveModel, resolveModelConnection, type ResolveModelOptions } from './resolve-model.ts';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(tmpdir(), 'toolgate-models-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

function resolve(options: Partial<ResolveModelOptions>): Promise<LanguageModelV4> {
  return resolveModel({ env: {}, cwd, ...options });
}

async function configError(options: Partial<ResolveModelOptions>): Promise<ModelConfigError> {
  const error = await resolve(options).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ModelConfigError);
  expect((error as ModelConfigError).code).toBe('MODEL_CONFIG_INVALID');
  return error as ModelConfigError;
}

/** The URL a provider model would call, read from its configuration (no request is made). */
function endpoint(model: LanguageModelV4, requestPath: string): string {
  const config = (model as unknown as { config: { url?: (options: { path: string; modelId: string }) => string; baseURL?: string } }).config;
  return config.url !== undefined ? config.url({ path: requestPath, modelId: model.modelId }) : `${config.baseURL}${requestPath}`;
}

describe('without an id', () => {
  it('takes TOOLGATE_MODEL, else a provider key, and never the demo script', async () => {
    const fromEnv = await resolve({ env: { TOOLGATE_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'key' } });
    expect(fromEnv.modelId).toBe('claude-sonnet-4-5');
    const fromKey = await resolve({ env: { OPENAI_API_KEY: 'sk-test' } });
    expect([fromKey.provider, fromKey.modelId]).toEqual(['openai.responses', 'gpt-4o']);
    await expect(resolve({})).rejects.toBeInstanceOf(ModelNotChosenError);
  });

  it('names the provider and server it resolved to', async () => {
    const connection = await resolveModelConnection({ id: 'openai-compatible:llama3.2', env: {}, cwd, baseUrl: 'http://127.0.0.1:11434/v1/' });
    expect([connection.provider, connection.modelId, connection.baseUrl]).toEqual(['openai-compatible', 'llama3.2', 'http://127.0.0.1:11434/v1']);
    const anthropic = await resolveModelConnection({ id: 'anthropic:claude-sonnet-4-5', env: { ANTHROPIC_API_KEY: 'key' }, cwd });
    expect(anthropic.baseUrl).toBe('https://api.anthropic.com/v1');
  });
});

describe('scripts', () => {
  it('script:FILE loads a file relative to cwd', async () => {
    writeFileSync(path.join(cwd, 'flow.yaml'), 'name: flow\nsteps:\n  - text: hi\n');
    const model = await resolve({ id: 'script:flow.yaml' });
    expect([model.specificationVersion, model.provider, model.modelId]).toEqual(['v4', 'toolgate.scripted', 'flow']);
  });

  it('a missing script file is a ScriptError', async () => {
    const error = await resolve({ id: 'script:missing.yaml' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ScriptError);
    expect((error as ScriptError).code).toBe('SCRIPT_NOT_FOUND');
  });
});

describe('OpenAI', () => {
  it('needs OPENAI_API_KEY', async () => {
    const error = await configError({ id: 'openai:gpt-4o' });
    expect(error.message).toContain('set OPENAI_API_KEY');
    expect(error.settings).toEqual(['OPENAI_API_KEY']);
  });

  it('builds the model with the id, and OPENAI_BASE_URL or --base-url', async () => {
    const model = await resolve({ id: 'openai:gpt-4o', env: { OPENAI_API_KEY: 'sk-test' } });
    expect([model.provider, model.modelId]).toEqual(['openai.responses', 'gpt-4o']);
    expect(endpoint(model, '/responses')).toBe('https://api.openai.com/v1/responses');
    const proxied = await resolve({ id: 'openai:gpt-4o', env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'https://proxy.example/v1/' } });
    expect(endpoint(proxied, '/responses')).toBe('https://proxy.example/v1/responses');
    const flagged = await resolve({ id: 'openai:gpt-4o', env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'https://proxy.example/v1' }, baseUrl: 'http://flag.example/v1' });
    expect(endpoint(flagged, '/responses')).toBe('http://flag.example/v1/responses');
  });

  it('reads only the env it is given, never process.env', async () => {
    vi.stubEnv('OPENAI_BASE_URL', 'http://process-env.example/v1');
    vi.stubEnv('ANTHROPIC_BASE_URL', 'http://process-env.example/v1');
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-process');
    try {
      expect((await configError({ id: 'openai:gpt-4o' })).settings).toEqual(['OPENAI_API_KEY']);
      const openai = await resolve({ id: 'openai:gpt-4o', env: { OPENAI_API_KEY: 'sk-test' } });
      expect(endpoint(openai, '/responses')).toBe('https://api.openai.com/v1/responses');
      const anthropic = await resolve({ id: 'anthropic:claude-sonnet-4-5', env: { ANTHROPIC_API_KEY: 'key' } });
      expect(endpoint(anthropic, '/messages')).toBe('https://api.anthropic.com/v1/messages');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('TOOLGATE_BASE_URL does not redirect OpenAI (the key would go to another server)', async () => {
    const model = await resolve({ id: 'openai:gpt-4o', env: { OPENAI_API_KEY: 'sk-test', TOOLGATE_BASE_URL: 'http://localhost:11434/v1' } });
    expect(endpoint(model, '/responses')).toBe('https://api.openai.com/v1/responses');
  });
});

describe('Anthropic', () => {
  it('needs ANTHROPIC_API_KEY', async () => {
    const error = await configError({ id: 'anthropic:claude-sonnet-4-5', env: { OPENAI_API_KEY: 'not this one' } });
    expect(error.message).toContain('set ANTHROPIC_API_KEY');
  });

  it('builds the model with the id and the base URL', async () => {
    const model = await resolve({ id: 'anthropic:claude-sonnet-4-5', env: { ANTHROPIC_API_KEY: 'key' } });
    expect([model.provider, model.modelId]).toEqual(['anthropic.messages', 'claude-sonnet-4-5']);
    expect(endpoint(model, '/messages')).toBe('https://api.anthropic.com/v1/messages');
    const proxied = await resolve({ id: 'anthropic:claude-sonnet-4-5', env: { ANTHROPIC_API_KEY: 'key', ANTHROPIC_BASE_URL: 'https://gateway.example/v1' } });
    expect(endpoint(proxied, '/messages')).toBe('https://gateway.example/v1/messages');
  });
});

describe('OpenAI-compatible servers (Ollama, vLLM, LM Studio)', () => {
  it('needs a base URL and says where to set it', async () => {
    const error = await configError({ id: 'openai-compatible:llama3.2' });
    expect(error.message).toContain('--base-url');
    expect(error.message).toContain('TOOLGATE_BASE_URL');
    expect(error.message).toContain('http://localhost:11434/v1');
    expect(error.settings).toEqual(['--base-url', 'TOOLGATE_BASE_URL', 'OPENAI_COMPATIBLE_BASE_URL']);
  });

  it('takes the URL from --base-url, then TOOLGATE_BASE_URL, then OPENAI_COMPATIBLE_BASE_URL; the key is optional', async () => {
    const env = { TOOLGATE_BASE_URL: 'http://localhost:11434/v1', OPENAI_COMPATIBLE_BASE_URL: 'http://localhost:8000/v1' };
    const fromEnv = await resolve({ id: 'openai-compatible:llama3.2', env });
    expect([fromEnv.provider, fromEnv.modelId]).toEqual(['openai-compatible.chat', 'llama3.2']);
    expect(endpoint(fromEnv, '/chat/completions')).toBe('http://localhost:11434/v1/chat/completions');
    const fromSecond = await resolve({ id: 'openai-compatible:qwen', env: { OPENAI_COMPATIBLE_BASE_URL: 'http://localhost:8000/v1' } });
    expect(endpoint(fromSecond, '/chat/completions')).toBe('http://localhost:8000/v1/chat/completions');
    const fromFlag = await resolve({ id: 'openai-compatible:qwen', env, baseUrl: 'http://localhost:1234/v1/' });
    expect(endpoint(fromFlag, '/chat/completions')).toBe('http://localhost:1234/v1/chat/completions');
  });

  it('sends OPENAI_COMPATIBLE_API_KEY as a bearer token when set', async () => {
    const model = await resolve({ id: 'openai-compatible:qwen', env: { TOOLGATE_BASE_URL: 'http://localhost:8000/v1', OPENAI_COMPATIBLE_API_KEY: 'secret' } });
    const headers = (model as unknown as { config: { headers: () => Record<string, string> } }).config.headers();
    expect(headers).toMatchObject({ authorization: 'Bearer secret' });
  });

  it('a base URL that is not http(s) names its source', async () => {
    const fromFlag = await configError({ id: 'openai-compatible:x', baseUrl: 'localhost:11434' });
    expect(fromFlag.message).toContain('--base-url is not an http(s) URL');
    const fromEnv = await configError({ id: 'openai-compatible:x', env: { TOOLGATE_BASE_URL: 'not a url' } });
    expect(fromEnv.settings).toEqual(['TOOLGATE_BASE_URL']);
  });
});

describe('bad ids', () => {
  it('an unknown provider lists the known ones', async () => {
    const error = await configError({ id: 'gemini:pro' });
    expect(error.message).toContain('unknown provider "gemini"');
    expect(error.message).toContain('openai-compatible:');
    expect(error.message).toContain('--model or TOOLGATE_MODEL');
  });

  it('an id without a provider, or without a model', async () => {
    expect((await configError({ id: 'gpt-4o' })).message).toContain('a model id is provider:model');
    expect((await configError({ id: 'openai:' })).message).toContain('e.g. openai:gpt-4o');
    expect((await configError({ id: 'script:  ' })).message).toContain('e.g. script:demo');
  });
});
