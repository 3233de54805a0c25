import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli-support.ts';
import { parseRunArguments } from './run-arguments.ts';

describe('parseRunArguments', () => {
  it('reads --help as help', () => {
    expect(parseRunArguments(['-h'])).toBe('help');
  });

  it('reads the task and the options, 30 steps unless told', () => {
    expect(parseRunArguments(['fix the tests', '--model', 'openai:gpt-4o', '--base-url', 'http://localhost:11434/v1', '--session', 's1', '--strict'])).toEqual({
      task: 'fix the tests',
      policy: undefined,
      model: 'openai:gpt-4o',
      baseUrl: 'http://localhost:11434/v1',
      session: 's1',
      mode: 'strict',
      maxSteps: 30,
      demo: false,
      debug: false,
    });
    expect(parseRunArguments(['--demo', '--max-steps', '5'])).toMatchObject({ task: undefined, demo: true, maxSteps: 5 });
  });

  it('refuses options that are out of range or do not go together', () => {
    expect(() => parseRunArguments(['--max-steps', '0'])).toThrow(UsageError);
    expect(() => parseRunArguments(['--max-steps', '2.5'])).toThrow(/positive integer/);
    expect(() => parseRunArguments(['one', 'two'])).toThrow(/one argument/);
    expect(() => parseRunArguments(['--demo', '--policy', 'toolgate.yaml'])).toThrow(/leave out --policy/);
  });
});
