import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { UpstreamError } from './upstream-error.ts';
import { createToolResultCheck } from './tool-result-check.ts';

const WITH_SCHEMA = { name: 'stats', inputSchema: { type: 'object' as const }, outputSchema: { type: 'object' as const, properties: { count: { type: 'number' } }, required: ['count'] } };
const PLAIN = { name: 'read', inputSchema: { type: 'object' as const } };

function verdict(result: unknown, tool = 'read'): 'ok' | 'malformed' {
  const results = createToolResultCheck({ server: 'files' });
  results.update([WITH_SCHEMA, PLAIN]);
  try {
    results.check({ tool, result: result as Record<string, unknown>, what: `the call to ${tool}` });
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(UpstreamError);
    return 'malformed';
  }
}

/** Results near the hand-checked shape (text blocks only), on both sides of it. */
const RESULTS: unknown[] = [
  { content: [{ type: 'text', text: 'hello' }] },
  { content: [] },
  { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], isError: true },
  { content: [{ type: 'text', text: 'a' }], structuredContent: { count: 1 } },
  { content: [{ type: 'text', text: 42 }] },
  { content: [{ type: 'text' }] },
  { content: [{ type: 'txt', text: 'a' }] },
  { content: [null] },
  { content: [['text']] },
  { content: 'hello' },
  { content: [{ type: 'text', text: 'a' }], isError: 'yes' },
  { content: [{ type: 'text', text: 'a' }], structuredContent: [1] },
  { content: [{ type: 'text', text: 'a' }], structuredContent: null },
  { content: [{ type: 'text', text: 'a', annotations: { audience: ['user'] } }] },
  { content: [{ type: 'text', text: 'a', annotations: { priority: 'high' } }] },
  { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] },
  { content: [{ type: 'image', data: 'AAAA' }] },
  { content: [{ type: 'text', text: 'a' }], _meta: { progressToken: {} } },
  { content: [{ type: 'text', text: 'a' }], extra: 'kept' },
  {},
];

describe('createToolResultCheck', () => {
  it('judges every result as CallToolResultSchema does, hand-checked or not', () => {
    for (const result of RESULTS) {
      expect(verdict(result), JSON.stringify(result)).toBe(CallToolResultSchema.safeParse(result).success ? 'ok' : 'malformed');
    }
  });

  it('checks structured content against the output schema on the hand-checked path too', () => {
    expect(verdict({ content: [{ type: 'text', text: '{"count":1}' }], structuredContent: { count: 1 } }, 'stats')).toBe('ok');
    expect(verdict({ content: [{ type: 'text', text: '{"count":"one"}' }], structuredContent: { count: 'one' } }, 'stats')).toBe('malformed');
    expect(verdict({ content: [{ type: 'text', text: 'no structure' }] }, 'stats')).toBe('malformed');
    // An error result need not match the schema.
    expect(verdict({ content: [{ type: 'text', text: 'failed' }], isError: true }, 'stats')).toBe('ok');
  });
});
