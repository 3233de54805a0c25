import { describe, expect, it } from 'vitest';
import { chooseModel } from './choose-model.ts';
import { ModelConfigError } from './errors/model-config-error.ts';
import { ModelNotChosenError } from './errors/model-not-chosen-error.ts';

describe('chooseModel', () => {
  it('--model wins, and says nothing', () => {
    expect(chooseModel({ flag: 'openai:gpt-4.1', env: { TOOLGATE_MODEL: 'anthropic:x', OPENAI_API_KEY: 'k' }, demo: false })).toEqual({ id: 'openai:gpt-4.1', source: 'flag', notice: undefined });
  });

  it('then TOOLGATE_MODEL, said in the notice', () => {
    const choice = chooseModel({ env: { TOOLGATE_MODEL: ' openai-compatible:llama3.2 ', ANTHROPIC_API_KEY: 'k' }, demo: false });
    expect(choice).toMatchObject({ id: 'openai-compatible:llama3.2', source: 'TOOLGATE_MODEL' });
    expect(choice.notice).toBe('model: openai-compatible:llama3.2 (from TOOLGATE_MODEL)\n');
  });

  it('then the provider whose key is set, saying which key picked it', () => {
    const openai = chooseModel({ env: { OPENAI_API_KEY: 'sk-1' }, demo: false });
    expect(openai).toMatchObject({ id: 'openai:gpt-4o', source: 'OPENAI_API_KEY' });
    expect(openai.notice).toContain('OPENAI_API_KEY is set');
    expect(openai.notice).toContain('--model');
    const anthropic = chooseModel({ env: { ANTHROPIC_API_KEY: 'sk-ant', OPENAI_API_KEY: '  ' }, demo: false });
    expect(anthropic).toMatchObject({ id: 'anthropic:claude-sonnet-4-5', source: 'ANTHROPIC_API_KEY' });
    const both = chooseModel({ env: { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' }, demo: false });
    expect(both.id).toBe('openai:gpt-4o');
    expect(both.notice).toContain('ANTHROPIC_API_KEY is set too: --model anthropic:claude-sonnet-4-5 takes it');
  });

  it('with nothing set, stops and lists every way to choose (never the demo)', () => {
    let caught: unknown;
    try {
      chooseModel({ env: { TOOLGATE_MODEL: '', TOOLGATE_BASE_URL: 'http://localhost:11434/v1' }, demo: false });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ModelNotChosenError);
    const message = (caught as ModelNotChosenError).message;
    expect((caught as ModelNotChosenError).code).toBe('MODEL_NOT_CHOSEN');
    for (const way of ['--model', 'TOOLGATE_MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'openai-compatible:', '--base-url', 'toolgate run --demo']) expect(message).toContain(way);
  });

  it('the demo script runs only with --demo, however it is named', () => {
    expect(chooseModel({ env: { OPENAI_API_KEY: 'k' }, demo: true })).toEqual({ id: 'script:demo', source: 'demo', notice: undefined });
    expect(chooseModel({ flag: 'openai-compatible:m', env: {}, demo: true }).id).toBe('openai-compatible:m');
    for (const id of ['script:demo', 'script: demo', 'script:script:demo']) {
      expect(() => chooseModel({ flag: id, env: {}, demo: false })).toThrow(ModelConfigError);
      expect(() => chooseModel({ env: { TOOLGATE_MODEL: id }, demo: false })).toThrow(/toolgate run --demo \(it came from TOOLGATE_MODEL\)/);
    }
    // A script file of one's own is the user's choice.
    expect(chooseModel({ flag: 'script:./demo.yaml', env: {}, demo: false }).id).toBe('script:./demo.yaml');
  });
});
