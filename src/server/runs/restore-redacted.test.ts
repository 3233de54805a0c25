import { describe, expect, it } from 'vitest';
import { restoreRedacted } from './approve-run.ts';

describe('restoreRedacted', () => {
  it('keeps the original value where an edit kept the [REDACTED] marker, and the edit everywhere else', () => {
    const original = { url: 'https://a.example', headers: { authorization: 'Bearer s3cret' }, list: ['x', 'hidden'] };
    const edited = { url: 'https://b.example', headers: { authorization: '[REDACTED]' }, list: ['y', '[REDACTED]'] };
    expect(restoreRedacted(edited, original)).toEqual({ url: 'https://b.example', headers: { authorization: 'Bearer s3cret' }, list: ['y', 'hidden'] });
  });

  it('leaves a marker with no original value behind it as typed, and never reads inherited properties', () => {
    expect(restoreRedacted({ token: '[REDACTED]' }, {})).toEqual({ token: '[REDACTED]' });
    expect(restoreRedacted({ toString: '[REDACTED]' }, {})).toEqual({ toString: '[REDACTED]' });
    expect(restoreRedacted('[REDACTED]', undefined)).toBe('[REDACTED]');
  });
});
