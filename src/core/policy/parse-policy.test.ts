import { describe, expect, it, vi } from 'vitest';
import { PolicyError, type PolicyIssue } from '../errors/policy-error.ts';
import { createGate } from '../gate.ts';
import { normalizePolicy } from './normalize-policy.ts';
import { parsePolicy } from './parse-policy.ts';
import type { Policy } from './policy.ts';

const FILE = 'toolgate.yaml';

function load(text: string, source = FILE): Policy {
  return parsePolicy({ text, source });
}

function loadError(text: string, source = FILE): PolicyError {
  let thrown: unknown;
  try {
    parsePolicy({ text, source });
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'the policy should be rejected with a PolicyError').toBeInstanceOf(PolicyError);
  return thrown as PolicyError;
}

/**
 * Asserts one issue is located and explained: file, line and column in the
 * message, the key path, what was expected and what was found.
 */
function expectLocated(error: PolicyError, expected: { path: string; line: number; column?: number; expected?: RegExp; found?: RegExp; message?: RegExp }): PolicyIssue {
  const issue = error.issues.find((candidate) => candidate.path === expected.path);
  expect(issue, `an issue at ${expected.path} among ${JSON.stringify(error.issues)}`).toBeDefined();
  expect(issue!.line).toBe(expected.line);
  expect(issue!.column).toBeTypeOf('number');
  if (expected.column !== undefined) expect(issue!.column).toBe(expected.column);
  expect(issue!.expected, 'the issue says what was expected').toBeTypeOf('string');
  expect(issue!.found, 'the issue says what was found').toBeTypeOf('string');
  if (expected.expected) expect(issue!.expected).toMatch(expected.expected);
  if (expected.found) expect(issue!.found).toMatch(expected.found);
  if (expected.message) expect(issue!.message).toMatch(expected.message);
  expect(error.file).toBe(FILE);
  const location = `${error.file}:${expected.line}:${issue!.column}: ${expected.path}:`;
  expect(error.message).toContain(location);
  expect(error.message).toContain(`expected ${issue!.expected}`);
  expect(error.message).toContain(`found ${issue!.found}`);
  return issue!;
}

describe('valid policies', () => {
  it('an empty file is a valid empty policy', () => {
    for (const text of ['', '\n', '   \n\n', '# only a comment\n', '---\n']) {
      const policy = load(text);
      expect(policy.tools.size).toBe(0);
      expect(policy.mode).toBeUndefined();
      expect(policy.onDeny).toBe('continue');
      expect(policy.askAlways).toBe(false);
      expect(policy.filter.allow).toBeUndefined();
      expect(policy.filter.deny).toEqual([]);
      expect(policy.unknownTools.decision).toBe('ask');
      expect(policy.source).toBe(FILE);
    }
  });

  it('reads the outline of DESIGN.md', () => {
    const policy = load(
      [
        'mode: strict',
        'on_deny: stop',
        'approval_timeout: 30s',
        'check_timeout: 500ms',
        'tools:',
        '  read_file: allow',
        '  send_email: { decision: ask, description: "Send an email" }',
        '  format_disk: { decision: block, reason: "Never" }',
        'filter:',
        '  allow: ["read_.*", "list_.*", "write_file", "shell"]',
        '  deny: [".*delete.*"]',
        'ask_when: [".*write.*", ".*exec.*"]',
        'redact: { keys: [Password, secret] }',
        '',
      ].join('\n'),
    );
    expect(policy.mode).toBe('strict');
    expect(policy.onDeny).toBe('stop');
    expect(policy.approvalTimeoutMs).toBe(30_000);
    expect(policy.checkTimeoutMs).toBe(500);
    expect(policy.tools.get('read_file')?.decision).toBe('allow');
    expect(policy.tools.get('send_email')).toMatchObject({ decision: 'ask', description: 'Send an email', label: 'tools.send_email' });
    expect(policy.tools.get('format_disk')).toMatchObject({ decision: 'block', reason: 'Never' });
    expect(policy.filter.allow?.map((entry) => entry.label)).toEqual(['filter.allow[0]', 'filter.allow[1]', 'filter.allow[2]', 'filter.allow[3]']);
    expect(policy.filter.deny[0]?.pattern.test('bulk_delete')).toBe(true);
    expect(policy.askWhen.map((entry) => entry.pattern.source)).toEqual(['.*write.*', '.*exec.*']);
    expect([...policy.redact.keys]).toEqual(['password', 'secret']);
  });

  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1.5s', 1_500],
    ['2', 2_000],
    ['0', 0],
  ])('reads the duration %s as %d ms', (text, ms) => {
    expect(load(`approval_timeout: ${text}\n`).approvalTimeoutMs).toBe(ms);
  });

  it('reads a JSON file (JSON is YAML) with the same meaning', () => {
    const policy = load('{\n  "mode": "auto_deny",\n  "tools": { "read_file": "allow", "rm": { "blocked": true } }\n}\n', 'toolgate.json');
    expect(policy.mode).toBe('auto_deny');
    expect(policy.source).toBe('toolgate.json');
    expect(policy.tools.get('read_file')?.decision).toBe('allow');
    expect(policy.tools.get('rm')?.decision).toBe('block');
  });

  it('keeps argument rules in file order (first match wins later)', () => {
    const policy = load(
      'tools:\n  send_email:\n    decision: ask\n    rules:\n      - { args: { to: ".*@corp\\\\.example" }, decision: allow }\n      - { args: { to: ".*" }, decision: block, reason: outside }\n',
    );
    const rule = policy.tools.get('send_email')!;
    expect(rule.rules.map((entry) => entry.decision)).toEqual(['allow', 'block']);
    expect(rule.rules.map((entry) => entry.label)).toEqual(['tools.send_email.rules[0]', 'tools.send_email.rules[1]']);
    expect(rule.rules[1]!.reason).toBe('outside');
  });

  it('treats a tool named __proto__ as data: its rule is kept (or the policy is refused), never silently dropped', () => {
    let policy: Policy | undefined;
    try {
      policy = load('tools:\n  __proto__: block\n  constructor: block\n');
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyError);
      return;
    }
    expect(policy.tools.get('constructor')?.decision).toBe('block');
    expect(policy.tools.get('__proto__')?.decision).toBe('block');
  });

  it('an argument condition on a key named __proto__ is kept (or refused), never dropped into an unconditional rule', async () => {
    // Dropping the only condition would turn this rule into "allow every call",
    // overriding the tool-level block.
    const text = 'tools:\n  t:\n    decision: block\n    rules:\n      - { args: { __proto__: "x" }, decision: allow }\n';
    let policy: Policy | undefined;
    try {
      policy = load(text);
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyError);
      return;
    }
    expect(policy.tools.get('t')!.rules[0]!.conditions.map((condition) => condition.path)).toEqual(['__proto__']);
    const gate = createGate({ policy, tools: [{ name: 't' }] });
    const result = await gate.authorize({ tool: 't', args: { anything: 1 }, callId: 'c' }, { sessionId: 's' });
    expect(result.decision).toBe('block');
  });
});

describe('seed-000 aliases', () => {
  it('preApproved: true is allow, preApproved: false is ask', () => {
    const policy = load('tools:\n  a: { preApproved: true }\n  b: { preApproved: false }\n  c: preApproved\n');
    expect(policy.tools.get('a')?.decision).toBe('allow');
    expect(policy.tools.get('b')?.decision).toBe('ask');
    expect(policy.tools.get('c')?.decision).toBe('allow');
  });

  it('blocked: true is block, and blockReason is its reason', () => {
    const policy = load('tools:\n  a: { blocked: true, blockReason: "Destroys data" }\n  b: blocked\n  c: { decision: blocked }\n');
    expect(policy.tools.get('a')).toMatchObject({ decision: 'block', reason: 'Destroys data' });
    expect(policy.tools.get('b')?.decision).toBe('block');
    expect(policy.tools.get('c')?.decision).toBe('block');
  });

  it('agreeing aliases are fine', () => {
    expect(load('tools:\n  a: { decision: block, blocked: true }\n').tools.get('a')?.decision).toBe('block');
    expect(load('tools:\n  a: { decision: allow, preApproved: true }\n').tools.get('a')?.decision).toBe('allow');
  });

  it.each([
    ['decision: allow, blocked: true', 'decision', 'blocked'],
    ['preApproved: true, blocked: true', 'preApproved', 'blocked'],
    ['decision: block, preApproved: true', 'decision', 'preApproved'],
    ['decision: ask, preApproved: true', 'decision', 'preApproved'],
  ])('contradictory aliases (%s) are a load error, never a silent pick', (entry, first, second) => {
    const error = loadError(`tools:\n  send_email: { ${entry} }\n`);
    expect(error.code).toBe('POLICY_INVALID');
    const issue = error.issues[0]!;
    expect(issue.path).toBe('tools.send_email');
    expect(issue.line).toBe(2);
    expect(issue.column).toBeTypeOf('number');
    expect(issue.message).toMatch(/contradict/);
    expect(issue.message).toContain(first);
    expect(issue.message).toContain(second);
    expect(issue.expected).toBeTypeOf('string');
  });

  it('a contradiction names what was found (the contradiction itself, not "nothing")', () => {
    const error = loadError('tools:\n  send_email: { decision: allow, blocked: true }\n');
    const issue = error.issues[0]!;
    expect(issue.found, 'the issue says what was found').toBeTypeOf('string');
    expect(issue.found).toMatch(/allow|blocked/);
    expect(error.message).not.toMatch(/found nothing/);
  });
});

describe('every error names file, line, column, key path, expected and found', () => {
  it('unknown top-level key, with did-you-mean', () => {
    const error = loadError('mode: interactive\ntool:\n  read_file: allow\n');
    const issue = expectLocated(error, { path: 'tool', line: 2, column: 1, expected: /tools/, found: /tool/ });
    expect(issue.message).toContain('did you mean "tools"');
  });

  it('unknown nested keys, with did-you-mean, at the key itself', () => {
    const error = loadError('tools:\n  send_email:\n    decison: ask\nfilter:\n  denny: [x]\nunknown_tools: { decison: allow }\n');
    expect(expectLocated(error, { path: 'tools.send_email.decison', line: 3, column: 5, expected: /decision/ }).message).toContain('did you mean "decision"');
    expect(expectLocated(error, { path: 'filter.denny', line: 5, column: 3, expected: /deny/ }).message).toContain('did you mean "deny"');
    expect(expectLocated(error, { path: 'unknown_tools.decison', line: 6 }).message).toContain('did you mean "decision"');
    // In file order.
    expect(error.issues.map((issue) => issue.line)).toEqual([3, 5, 6]);
    expect(error.message).toMatch(/^invalid policy, 3 errors:/);
  });

  it('an unknown key with nothing close suggests nothing but lists the keys allowed', () => {
    const error = loadError('zzzzzzzz: 1\n');
    const issue = expectLocated(error, { path: 'zzzzzzzz', line: 1, expected: /mode/ });
    expect(issue.message).not.toContain('did you mean');
  });

  it('unknown key inside an argument rule and inside a pattern object', () => {
    const error = loadError('tools:\n  x:\n    rules:\n      - { args: { a: b }, decision: ask, reasn: typo }\nask_when:\n  - { pattern: x, exampels: { match: [x] } }\n');
    expect(expectLocated(error, { path: 'tools.x.rules[0].reasn', line: 4 }).message).toContain('did you mean "reason"');
    expect(expectLocated(error, { path: 'ask_when[0].exampels', line: 6 }).message).toContain('did you mean "examples"');
  });

  it('wrong types', () => {
    const error = loadError('ask_always: "yes"\nfilter:\n  deny: ".*delete.*"\nredact:\n  keys: [1, 2]\n');
    expectLocated(error, { path: 'ask_always', line: 1, expected: /boolean/, found: /"yes"/ });
    expectLocated(error, { path: 'filter.deny', line: 3, expected: /array/, found: /delete/ });
    expectLocated(error, { path: 'redact.keys[0]', line: 5, expected: /string/, found: /1/ });
  });

  it('a list where a mapping belongs, at the root', () => {
    const error = loadError('- read_file\n- write_file\n');
    const issue = error.issues[0]!;
    expect(issue.line).toBe(1);
    expect(issue.expected).toMatch(/object/);
    expect(issue.found).toMatch(/list/);
    expect(error.message).toContain(`${FILE}:1:1`);
  });

  it('bad enums', () => {
    const error = loadError('mode: sometimes\non_deny: halt\ntools:\n  a: maybe\n  b: { decision: perhaps }\n');
    expectLocated(error, { path: 'mode', line: 1, column: 7, expected: /interactive.*approve_all.*strict.*auto_deny/, found: /"sometimes"/ });
    expectLocated(error, { path: 'on_deny', line: 2, expected: /continue.*stop/, found: /"halt"/ });
    expectLocated(error, { path: 'tools.a', line: 4, expected: /allow.*ask.*block/, found: /"maybe"/ });
    expectLocated(error, { path: 'tools.b.decision', line: 5, expected: /allow.*ask.*block/, found: /"perhaps"/ });
  });

  it('bad durations', () => {
    const error = loadError('approval_timeout: 5 minutes\ncheck_timeout: -1\n');
    expectLocated(error, { path: 'approval_timeout', line: 1, column: 19, expected: /duration/, found: /5 minutes/ });
    expectLocated(error, { path: 'check_timeout', line: 2, found: /-1/ });
    expect(loadError('approval_timeout: 10 years\n').issues[0]!.path).toBe('approval_timeout');
    expect(loadError('approval_timeout: "ms"\n').issues[0]!.path).toBe('approval_timeout');
  });

  it('an invalid argument path', () => {
    const error = loadError('tools:\n  x:\n    rules:\n      - args: { "a..b": "x" }\n        decision: ask\n');
    expectLocated(error, { path: 'tools.x.rules[0].args["a..b"]', line: 4, expected: /names joined/, found: /a\.\.b/ });
  });

  it('errors in a JSON file carry JSON line numbers', () => {
    const text = '{\n  "tools": {\n    "read_file": "alow"\n  },\n  "modee": "strict"\n}\n';
    const error = loadError(text, 'toolgate.json');
    expect(error.file).toBe('toolgate.json');
    expect(error.issues.map((issue) => [issue.path, issue.line])).toEqual([
      ['tools.read_file', 3],
      ['modee', 5],
    ]);
    expect(error.message).toContain('toolgate.json:3:');
    expect(error.message).toContain('did you mean "mode"');
  });

  it('normalizePolicy gives the same issues without lines for an object built in code', () => {
    let thrown: unknown;
    try {
      normalizePolicy({ tools: { a: 'maybe' }, tool: {} }, { source: 'inline-test' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PolicyError);
    const error = thrown as PolicyError;
    expect(error.file).toBe('inline-test');
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(['tool', 'tools.a']);
    expect(error.message).toContain('inline-test');
  });
});

describe('YAML-level errors', () => {
  it('duplicate keys are load errors at the second key (YAML, JSON, top level)', () => {
    const nested = loadError('tools:\n  read_file: allow\n  read_file: block\n');
    expect(nested.code).toBe('POLICY_INVALID');
    expect(nested.issues[0]!.line).toBe(3);
    expect(nested.issues[0]!.column).toBe(3);
    expect(nested.message).toContain(`${FILE}:3:3`);
    expect(nested.message).toMatch(/unique|duplicate/i);

    const json = loadError('{"tools": {"rm": "block", "rm": "allow"}}', 'toolgate.json');
    expect(json.issues[0]!.line).toBe(1);
    expect(json.message).toContain('toolgate.json:1:');

    const top = loadError('mode: strict\nmode: approve_all\n');
    expect(top.issues[0]!.line).toBe(2);
  });

  it('a duplicate-key error names the duplicated key and its key path', () => {
    // Which key, and where in the document: a person must not have to guess.
    const nested = loadError('tools:\n  read_file: allow\n  read_file: block\n');
    expect(nested.issues[0]!.path).toBe('tools.read_file');
    expect(nested.message).toContain('tools.read_file');
    const json = loadError('{"tools": {"rm": "block", "rm": "allow"}}', 'toolgate.json');
    expect(json.issues[0]!.path).toBe('tools.rm');
    const top = loadError('mode: strict\nmode: approve_all\n');
    expect(top.issues[0]!.path).toBe('mode');
  });

  it('keys that differ only in type are duplicates: every key is used as text, so the later one would win unseen', () => {
    const number = loadError('tools:\n  1: block\n  "1": allow\n');
    expectLocated(number, { path: 'tools["1"]', line: 3, column: 3, found: /"1" again/, message: /1 and "1" are the same key/ });
    const boolean = loadError('tools:\n  true: block\n  "true": allow\n');
    expectLocated(boolean, { path: 'tools.true', line: 3, column: 3, message: /true and "true" are the same key/ });
    // `~` is null, which becomes the empty key, as `""` does.
    const empty = loadError('tools:\n  ~: block\n  "": allow\n');
    expectLocated(empty, { path: 'tools[""]', line: 3, column: 3, message: /~ and "" are the same key/ });
    const float = loadError('tools:\n  1.0: block\n  "1": allow\n');
    expectLocated(float, { path: 'tools["1"]', line: 3, column: 3 });
    // JSON is read by the same parser; a bare number key in a .json file is the same duplicate.
    const json = loadError('{"tools": {1: "block", "1": "allow"}}', 'toolgate.json');
    expect(json.issues[0]!.path).toBe('tools["1"]');
    expect(json.message).toContain('toolgate.json:1:');
  });

  it('keys written alike are one duplicate, without a note about types', () => {
    const error = loadError('tools:\n  "1": block\n  "1": allow\n');
    expect(error.issues[0]!.message).not.toContain('read as text');
  });

  it('keys that become different text stay apart', () => {
    const policy = load('tools:\n  1: block\n  "2": allow\n  "true": ask\n  &name rm: block\n');
    expect([...policy.tools.keys()].sort()).toEqual(['1', '2', 'rm', 'true']);
  });

  it('a collection as a key is refused at its line, not turned into text with a warning', () => {
    const emitWarning = vi.spyOn(process, 'emitWarning');
    try {
      const error = loadError('tools:\n  ? [shell]\n  : allow\n');
      expectLocated(error, { path: 'tools["[\\"shell\\"]"]', line: 2, column: 5, expected: /plain or quoted key/, found: /collection \["shell"\]/ });
      expect(loadError('tools:\n  ? { a: 1 }\n  : allow\n').issues[0]!.found).toMatch(/collection/);
      expect(emitWarning).not.toHaveBeenCalled();
    } finally {
      emitWarning.mockRestore();
    }
  });

  it('a collection key cannot stand in for the literal key it would print as', () => {
    const error = loadError('tools:\n  ? [shell]\n  : allow\n  "[ shell ]": block\n');
    expect(error.issues.map((issue) => issue.line)).toEqual([2]);
  });

  it('an alias as a key is refused: it would repeat the anchored key without the file showing a duplicate', () => {
    const error = loadError('tools:\n  &name rm: block\n  *name : allow\n');
    expectLocated(error, { path: 'tools["*name"]', line: 3, column: 3, found: /alias \*name/ });
  });

  it('non-scalar keys are reported together with duplicate keys', () => {
    const error = loadError('tools:\n  1: block\n  "1": allow\n  ? [shell]\n  : allow\n');
    expect(error.issues.map((issue) => issue.line)).toEqual([3, 4]);
  });

  it('YAML syntax errors name the file, line and column', () => {
    const error = loadError('tools:\n  read_file: allow\n  write_file: [ask\nmode: strict\n');
    expect(error.code).toBe('POLICY_INVALID');
    expect(error.issues.length).toBeGreaterThan(0);
    for (const issue of error.issues) {
      expect(issue.line).toBeTypeOf('number');
      expect(issue.column).toBeTypeOf('number');
      expect(issue.message.length).toBeGreaterThan(0);
      expect(issue.message).not.toContain('\n');
    }
    expect(error.message).toMatch(new RegExp(`${FILE.replace('.', '\\.')}:\\d+:\\d+:`));
  });

  it('a JSON syntax error names the file, line and column', () => {
    const error = loadError('{\n  "tools": {"a": "allow"\n', 'toolgate.json');
    expect(error.issues[0]!.line).toBeTypeOf('number');
    expect(error.message).toMatch(/toolgate\.json:\d+:\d+:/);
  });

  it('tabs as indentation and several documents are errors', () => {
    expect(loadError('tools:\n\tread_file: allow\n').issues[0]!.line).toBeTypeOf('number');
    expect(loadError('mode: strict\n---\nmode: auto_deny\n').issues[0]!.line).toBe(2);
  });

  it('an alias bomb is a PolicyError naming the file, not a crash', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
      '',
    ].join('\n');
    const error = loadError(bomb);
    expect(error.message).toContain(FILE);
  });
});

describe('YAML 1.2 core schema only: the file means what it shows', () => {
  it('a merge key is a load error at the key, even where it would only add a stricter decision', () => {
    const text = 'templates:\n  strict: &strict { decision: block }\ntools:\n  send_email:\n    <<: *strict\n    decision: allow\n';
    const error = loadError(text);
    expectLocated(error, { path: 'tools.send_email["<<"]', line: 5, column: 5, found: /<</, message: /merge key/ });
  });

  it('a merge key where any name is a key (a tool named "<<") is refused, not read as a tool', () => {
    const error = loadError('base: &base { read_file: allow }\ntools:\n  <<: *base\n');
    expectLocated(error, { path: 'tools["<<"]', line: 3, column: 3, message: /merge key/ });
    expect(() => load('tools:\n  "<<": allow\n')).toThrow(/merge key/);
  });

  it('%YAML 1.1 is refused at line 1 (yes/no would become booleans, << would merge)', () => {
    const error = loadError('%YAML 1.1\n---\nmode: strict\ntools:\n  read_file: allow\n');
    expect(error.issues).toEqual([expect.objectContaining({ path: '', line: 1, column: 1, found: '%YAML 1.1', message: expect.stringMatching(/YAML 1\.2/) })]);
    expect(error.message).toContain(`${FILE}:1:1:`);
    expect(load('%YAML 1.2\n---\nmode: strict\n').mode).toBe('strict');
  });

  it.each([
    ['!!binary', 'tools:\n  read_file: !!binary YWxsb3c=\n', 'tools.read_file', 2],
    ['!!set', 'filter:\n  allow: !!set { read_file, shell }\n', 'filter.allow', 2],
    ['!!omap', 'tools: !!omap\n  - read_file: allow\n', 'tools', 2],
    ['!!timestamp', 'tools:\n  read_file:\n    decision: ask\n    description: !!timestamp 2001-12-14\n', 'tools.read_file.description', 4],
    ['a custom tag', 'tools:\n  read_file: !allow block\n', 'tools.read_file', 2],
    ['a verbatim tag', 'tools:\n  read_file: !<tag:example.com,2000:decision> allow\n', 'tools.read_file', 2],
  ])('%s is a load error at the tagged value', (_name, text, path, line) => {
    const error = loadError(text);
    expectLocated(error, { path, line, message: /core schema/ });
  });

  it('core-schema tags and plain anchors still load, with the meaning they show', () => {
    const policy = load('tools:\n  read_file: !!str allow\n  edit_file: &ask ask\n  write_file: *ask\n');
    expect(policy.document.tools).toEqual({ read_file: 'allow', edit_file: 'ask', write_file: 'ask' });
  });

  it('yes, no, on and off are strings, as YAML 1.2 reads them, so a decision of yes is refused rather than read as true', () => {
    const error = loadError('tools:\n  read_file: yes\n');
    expect(error.issues.some((issue) => issue.path === 'tools.read_file')).toBe(true);
  });
});

describe('rule examples', () => {
  it('passing examples on ask_when, filter patterns and argument rules load', () => {
    const policy = load(
      [
        'ask_when:',
        '  - pattern: ".*write.*"',
        '    examples: { match: [write_file, overwrite], not_match: [read_file] }',
        'filter:',
        '  deny:',
        '    - pattern: ".*delete.*"',
        '      examples: { match: [delete_file], not_match: [list_dir] }',
        'tools:',
        '  send_email:',
        '    rules:',
        '      - args: { to: ".*@evil\\\\.example" }',
        '        decision: block',
        '        examples:',
        '          match: [{ to: "x@evil.example" }]',
        '          not_match: [{ to: "x@good.example" }, { cc: "x@evil.example" }]',
        '',
      ].join('\n'),
    );
    expect(policy.askWhen[0]!.pattern.test('write_file')).toBe(true);
    expect(policy.tools.get('send_email')!.rules[0]!.decision).toBe('block');
  });

  it('a failing match example on ask_when is POLICY_EXAMPLE_FAILED at the example', () => {
    const error = loadError('ask_when:\n  - pattern: "write_.*"\n    examples:\n      match: [write_file, overwrite]\n');
    expect(error.code).toBe('POLICY_EXAMPLE_FAILED');
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]!.path).toBe('ask_when[0].examples.match[1]');
    expect(error.issues[0]!.line).toBe(4);
    expect(error.issues[0]!.message).toContain('overwrite');
    expect(error.message).toContain(`${FILE}:4:`);
  });

  it('a failing not_match example on a filter pattern is POLICY_EXAMPLE_FAILED', () => {
    const error = loadError('filter:\n  allow:\n    - pattern: "read_.*"\n      examples: { not_match: [unread_file, read_file] }\n');
    expect(error.code).toBe('POLICY_EXAMPLE_FAILED');
    expect(error.issues.map((issue) => issue.path)).toEqual(['filter.allow[0].examples.not_match[1]']);
    expect(error.issues[0]!.line).toBe(4);
  });

  it('failing examples on an argument rule are POLICY_EXAMPLE_FAILED', () => {
    const error = loadError(
      [
        'tools:',
        '  send_email:',
        '    rules:',
        '      - args: { to: ".*@evil\\\\.example" }',
        '        decision: block',
        '        examples:',
        '          match: [{ to: "x@good.example" }]',
        '          not_match: [{ to: "y@evil.example" }]',
        '',
      ].join('\n'),
    );
    expect(error.code).toBe('POLICY_EXAMPLE_FAILED');
    expect(error.issues.map((issue) => [issue.path, issue.line])).toEqual([
      ['tools.send_email.rules[0].examples.match[0]', 7],
      ['tools.send_email.rules[0].examples.not_match[0]', 8],
    ]);
  });

  it('an example failure together with an invalid pattern is POLICY_INVALID listing both', () => {
    const error = loadError('ask_when:\n  - { pattern: "a", examples: { match: [b] } }\n  - "("\n');
    expect(error.code).toBe('POLICY_INVALID');
    expect(error.issues.map((issue) => issue.path)).toEqual(['ask_when[0].examples.match[0]', 'ask_when[1]']);
  });

  it('examples must be lists of strings (or argument objects)', () => {
    const error = loadError('ask_when:\n  - { pattern: "a", examples: { match: "a" } }\n');
    expect(error.code).toBe('POLICY_INVALID');
    expect(error.issues[0]!.path).toBe('ask_when[0].examples.match');
  });
});
