import { describe, expect, it } from 'vitest';
import { renderDecisionLine } from './render-decision-line.ts';

describe('renderDecisionLine', () => {
  it.each([
    [{ approved: true, scope: 'once' }, '✓ approved once\n'],
    [{ approved: true, scope: 'session' }, '✓ approved for this session\n'],
    [{ approved: true, scope: 'always' }, '✓ approved always\n'],
    [{ approved: true, scope: 'once', args: { path: 'b' } }, '✓ approved once with edited arguments\n'],
    [{ approved: false, scope: 'once' }, '✗ denied\n'],
    [{ approved: false, scope: 'once', reason: 'too risky' }, '✗ denied: too risky\n'],
    [{ approved: false, scope: 'once', reason: 'interrupted', stop: true }, '✗ denied: interrupted (the run stops)\n'],
    [{ approved: false, scope: 'once', reason: 'nobody here', automatic: true }, '✗ denied automatically: nobody here\n'],
    ['timed out', '✗ timed out\n'],
    ['cancelled', '✗ cancelled\n'],
  ] as const)('%o → %j', (outcome, line) => {
    expect(renderDecisionLine({ outcome, color: false })).toBe(line);
  });

  it('names the subject', () => {
    expect(renderDecisionLine({ outcome: { approved: false, scope: 'once', reason: 'no' }, subject: 'shell', color: false })).toBe('✗ denied — shell: no\n');
    expect(renderDecisionLine({ outcome: 'timed out', subject: 'pay', color: false })).toBe('✗ timed out — pay\n');
  });

  it('escapes whatever the subject, reason or note hide', () => {
    const line = renderDecisionLine({
      outcome: { approved: false, scope: 'once', reason: 'ok\r\x1b[2Kfine\u202e\nnext' },
      subject: 'tool\x1b]52;c;aGk=\x07',
      color: false,
    });
    expect(line).toBe('✗ denied — tool\\x1b]52;c;aGk=\\x07: ok\\r\\x1b[2Kfine\\u202e\\nnext\n');
    expect(renderDecisionLine({ outcome: { approved: true, scope: 'once', note: '\x9b31m' }, color: false })).toBe('✓ approved once: \\x9b31m\n');
  });

  it('colours only the mark, and only when asked', () => {
    const coloured = renderDecisionLine({ outcome: { approved: true, scope: 'once' }, color: true });
    expect(coloured).toMatch(/^\x1b\[[0-9;]*m.*✓.*\x1b\[[0-9;]*m approved once\n$/u);
    expect(renderDecisionLine({ outcome: { approved: true, scope: 'once' }, color: false })).not.toContain('\x1b');
  });
});
