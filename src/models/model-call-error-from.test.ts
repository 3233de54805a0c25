import { APICallError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { ToolgateError } from '../core/errors/toolgate-error.ts';
import { modelCallErrorFrom } from './model-call-error-from.ts';

const target = { provider: 'openai-compatible', modelId: 'llama3.2', baseUrl: 'http://localhost:11434/v1' };
const url = 'http://localhost:11434/v1/chat/completions';

function refused(): APICallError {
  const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' });
  return new APICallError({ message: 'Cannot connect to API: connect ECONNREFUSED 127.0.0.1:11434', url, requestBodyValues: {}, cause: new TypeError('fetch failed', { cause }), isRetryable: true });
}

describe('modelCallErrorFrom', () => {
  it('an unreachable server, after retries: the reason from the cause chain and the attempts', () => {
    const error = new RetryError({ message: 'Failed after 3 attempts', reason: 'maxRetriesExceeded', errors: [refused(), refused(), refused()] });
    const failure = modelCallErrorFrom({ error, target })!;
    expect(failure.code).toBe('MODEL_UNREACHABLE');
    expect(failure.message).toBe(`cannot reach the openai-compatible model "llama3.2" at ${url}: connection refused (ECONNREFUSED) (tried 3 times)`);
    expect(failure.hint).toContain('ollama serve');
    expect(failure.cause).toBe(error);
    expect(failure.url).toBe(url);
  });

  it('an HTTP refusal keeps only the first line of a long body, and hints by status', () => {
    const html = `<html>${'x'.repeat(1000)}</html>\n<body>more</body>`;
    const failure = modelCallErrorFrom({ error: new APICallError({ message: html, url, requestBodyValues: {}, statusCode: 502 }), target })!;
    expect(failure.code).toBe('MODEL_REQUEST_FAILED');
    expect(failure.statusCode).toBe(502);
    expect(failure.message).not.toContain('<body>');
    expect(failure.message.length).toBeLessThan(420);
    expect(failure.hint).toContain('run again later');
    const notFound = modelCallErrorFrom({ error: new APICallError({ message: 'model "llama9" not found, try pulling it first', url, requestBodyValues: {}, statusCode: 404 }), target })!;
    expect(notFound.message).toContain('answered HTTP 404: model "llama9" not found');
    expect(notFound.hint).toContain('--model');
    const anthropic = modelCallErrorFrom({ error: new APICallError({ message: 'invalid x-api-key', url, requestBodyValues: {}, statusCode: 401 }), target: { ...target, provider: 'anthropic' } })!;
    expect(anthropic.hint).toContain('ANTHROPIC_API_KEY');
  });

  it('a provider error event (a plain object) is a stream failure with its type', () => {
    const failure = modelCallErrorFrom({ error: { type: 'overloaded_error', message: 'Overloaded' }, target })!;
    expect(failure.code).toBe('MODEL_STREAM_FAILED');
    expect(failure.message).toBe('the openai-compatible model "llama3.2" at http://localhost:11434/v1 failed while answering: Overloaded (overloaded_error)');
  });

  it('is not a model failure: toolgate errors and bugs are reported as they are', () => {
    expect(modelCallErrorFrom({ error: new ToolgateError({ code: 'AUDIT_WRITE_FAILED', message: 'disk full' }), target })).toBeUndefined();
    expect(modelCallErrorFrom({ error: new TypeError("Cannot read properties of undefined (reading 'x')"), target })).toBeUndefined();
    expect(modelCallErrorFrom({ error: new RangeError('bad'), target })).toBeUndefined();
  });
});
