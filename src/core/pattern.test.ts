import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PolicyError } from './errors/policy-error.ts';
import { compilePattern, firstMatch } from './pattern.ts';
import { parsePolicy } from './policy/parse-policy.ts';

/** Escapes ASCII punctuation so `source` is read literally by RE2. */
function literal(source: string): string {
  return source.replace(/[!-/:-@[-`{-~]/g, (character) => `\\${character}`);
}

function loadError(text: string, source = 'policy.yaml'): PolicyError {
  try {
    parsePolicy({ text, source });
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyError);
    return error as PolicyError;
  }
  throw new Error('expected the policy to be rejected');
}

describe('patterns match the whole input', () => {
  it.each([
    ['git', 'git', true],
    ['git', 'gitx', false],
    ['git', 'xgit', false],
    ['git', 'git ', false],
    ['git', 'Git', false],
    ['read_.*', 'read_file', true],
    ['read_.*', 'read_', true],
    ['read_.*', 'unread_file', false],
    ['read_.*', 'xread_file', false],
    ['.*delete.*', 'delete', true],
    ['.*delete.*', 'bulk_delete_files', true],
    ['a|ab', 'ab', true],
    ['a|ab', 'abc', false],
    ['(read|write)_file', 'read_file', true],
    ['(read|write)_file', 'read_files', false],
    ['send-email', 'send-email', true],
    ['send-email', 'send-emails', false],
    ['(?i)delete', 'DeLeTe', true],
    ['delete', 'DELETE', false],
    ['', '', true],
    ['', 'a', false],
  ])('%j against %j is %s', (source, input, expected) => {
    expect(compilePattern(source).test(input)).toBe(expected);
  });

  it('a literal pattern matches exactly itself (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-composite' }), fc.string({ minLength: 1 }), (text, extra) => {
        const pattern = compilePattern(literal(text));
        expect(pattern.test(text)).toBe(true);
        expect(pattern.test(text + extra)).toBe(false);
        expect(pattern.test(extra + text)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('a prefix pattern never matches in the middle of a name (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z_]{1,8}$/), fc.stringMatching(/^[a-z_]{0,8}$/), fc.stringMatching(/^[a-z_]{1,8}$/), (prefix, rest, before) => {
        const pattern = compilePattern(`${prefix}.*`);
        expect(pattern.test(prefix + rest)).toBe(true);
        expect(pattern.test(before + prefix + rest)).toBe((before + prefix + rest).startsWith(prefix));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the source it was compiled from', () => {
    expect(compilePattern('read_.*').source).toBe('read_.*');
    expect(compilePattern('git').source).toBe('git');
  });
});

describe('patterns: DOTALL, a newline cannot dodge a pattern', () => {
  const deny = compilePattern('.*delete.*');
  it.each(['x\ndelete', 'delete\nx', '\n\ndelete\r\n', 'a\r\ndelete', 'bulk\u2028delete\u2029x', 'x\u0085delete', '\ndelete\n'])(
    '.*delete.* matches %j',
    (input) => {
      expect(deny.test(input)).toBe(true);
    },
  );

  it('matches any string containing the word, whatever surrounds it (property, full Unicode)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (before, after) => {
        expect(deny.test(`${before}delete${after}`)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('anchors stay whole-input even with newlines: ^ and $ do not match at line breaks', () => {
    expect(compilePattern('git').test('git\n')).toBe(false);
    expect(compilePattern('git').test('\ngit')).toBe(false);
    expect(compilePattern('^git$').test('git\nrm -rf /')).toBe(false);
    expect(compilePattern('git.*').test('git\nrm -rf /')).toBe(true);
  });
});

describe('patterns run in linear time (no catastrophic backtracking)', () => {
  const input = 'a'.repeat(50_000);
  it.each([
    ['(a+)+$', `${input}!`],
    ['(a|aa)*b', input],
    ['(a*)*b', input],
    ['(.*a){25}x', input],
    ['(x+x+)+y', 'x'.repeat(50_000)],
    ['(a|a)*c', input],
  ])('%j against a 50,000-character input finishes quickly', (source, text) => {
    const pattern = compilePattern(source);
    const started = performance.now();
    const result = pattern.test(text);
    const elapsed = performance.now() - started;
    expect(result).toBe(false);
    // Linear time takes milliseconds; backtracking would take longer than the universe. The bound allows a loaded machine.
    expect(elapsed).toBeLessThan(10_000);
  });

  it('still matches correctly on the long input', () => {
    expect(compilePattern('(a|aa)*').test(input)).toBe(true);
    expect(compilePattern('(a+)+').test(input)).toBe(true);
  });
});

describe('invalid patterns', () => {
  it.each(['(', '(a)\\1', '(?=a)', '(?<=a)b', 'a{2,1}', '[z-a]', '\\', '*', '(?P<n>a)(?P=n)'])('%j is a SyntaxError naming the pattern', (source) => {
    expect(() => compilePattern(source)).toThrow(SyntaxError);
    expect(() => compilePattern(source)).toThrow(JSON.stringify(source));
  });

  it('is a load error naming file, line, column and key path in filter.deny', () => {
    const error = loadError('filter:\n  deny:\n    - ".*delete.*"\n    - "(rm"\n');
    expect(error.code).toBe('POLICY_INVALID');
    expect(error.issues).toHaveLength(1);
    const issue = error.issues[0]!;
    expect(issue.path).toBe('filter.deny[1]');
    expect(issue.line).toBe(4);
    expect(issue.column).toBeGreaterThan(0);
    expect(issue.expected).toMatch(/RE2 pattern/);
    expect(issue.found).toBe('"(rm"');
    expect(error.message).toContain('policy.yaml:4:');
    expect(error.message).toContain('filter.deny[1]');
  });

  it('is a load error in ask_when, in filter.allow objects and in argument rules', () => {
    const askWhen = loadError('ask_when: ["ok", "a{2,1}"]\n');
    expect(askWhen.issues.map((issue) => issue.path)).toEqual(['ask_when[1]']);
    expect(askWhen.issues[0]!.line).toBe(1);

    const allow = loadError('filter:\n  allow:\n    - pattern: "[z-a]"\n      examples: { match: [x] }\n');
    expect(allow.issues.map((issue) => issue.path)).toEqual(['filter.allow[0].pattern']);
    expect(allow.issues[0]!.line).toBe(3);

    const argument = loadError('tools:\n  shell:\n    rules:\n      - args: { command: "(?=rm)" }\n        decision: block\n');
    expect(argument.issues.map((issue) => issue.path)).toEqual(['tools.shell.rules[0].args.command']);
    expect(argument.issues[0]!.line).toBe(4);
    expect(argument.message).toMatch(/policy\.yaml:4:\d+: tools\.shell\.rules\[0\]\.args\.command:/);
  });

  it('reports every invalid pattern, not just the first', () => {
    const error = loadError('ask_when: ["("]\nfilter:\n  deny: ["*"]\n');
    expect(error.issues.map((issue) => issue.path)).toEqual(['ask_when[0]', 'filter.deny[0]']);
  });
});

describe('firstMatch', () => {
  it('returns the index of the first matching entry, or -1', () => {
    const entries = ['read_.*', '.*file', 'write_file'].map((source) => ({ pattern: compilePattern(source) }));
    expect(firstMatch(entries, 'read_file')).toBe(0);
    expect(firstMatch(entries, 'write_file')).toBe(1);
    expect(firstMatch(entries, 'shell')).toBe(-1);
    expect(firstMatch([], 'x')).toBe(-1);
  });
});
