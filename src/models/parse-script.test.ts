import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { editFileSchema } from '../tools/fs/edit-file-tool.ts';
import { readFileSchema } from '../tools/fs/read-file-tool.ts';
import { writeFileSchema } from '../tools/fs/write-file-tool.ts';
import { shellSchema } from '../tools/shell/create-shell-tool.ts';
import { ScriptError, type ScriptIssue } from './errors/script-error.ts';
import { builtinScriptPath, loadScript } from './load-script.ts';
import { parseScript } from './parse-script.ts';

const FILE = 'script.yaml';

function scriptError(text: string): ScriptError {
  let thrown: unknown;
  try {
    parseScript({ text, source: FILE });
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'the script should be rejected with a ScriptError').toBeInstanceOf(ScriptError);
  return thrown as ScriptError;
}

/** One issue, located: file, line and column in the message, the key path, expected and found. */
function expectLocated(error: ScriptError, expected: { path: string; line: number; column?: number; expected?: RegExp; found?: RegExp; message?: RegExp }): ScriptIssue {
  const issue = error.issues.find((candidate) => candidate.path === expected.path);
  expect(issue, `an issue at ${expected.path} among ${JSON.stringify(error.issues)}`).toBeDefined();
  expect(issue!.line).toBe(expected.line);
  if (expected.column !== undefined) expect(issue!.column).toBe(expected.column);
  if (expected.expected) expect(issue!.expected).toMatch(expected.expected);
  if (expected.found) expect(issue!.found).toMatch(expected.found);
  if (expected.message) expect(issue!.message).toMatch(expected.message);
  expect(error.code).toBe('SCRIPT_INVALID');
  expect(error.message).toContain(`${FILE}:${expected.line}:${issue!.column}: ${expected.path}:`);
  return issue!;
}

describe('valid scripts', () => {
  it('reads steps, conditions and tool calls', () => {
    const script = parseScript({
      source: FILE,
      text: [
        'name: demo',
        'steps:',
        '  - text: "I\'ll read the notes first."',
        '    tool_calls: [{ tool: read_file, args: { path: ws/notes.txt } }]',
        '  - when: { last_result: denied, tool: read_file, contains: "not allowed" }',
        '    text: "Understood, I won\'t."',
        '  - when: otherwise',
        '    tool_calls: [{ tool: list_dir }]',
        '',
      ].join('\n'),
    });
    expect(script.name).toBe('demo');
    expect(script.source).toBe(FILE);
    expect(script.steps).toEqual([
      { text: "I'll read the notes first.", toolCalls: [{ tool: 'read_file', args: { path: 'ws/notes.txt' } }], location: `${FILE}:3` },
      { when: { lastResult: 'denied', tool: 'read_file', contains: 'not allowed' }, text: "Understood, I won't.", toolCalls: [], location: `${FILE}:5` },
      { when: 'otherwise', toolCalls: [{ tool: 'list_dir', args: {} }], location: `${FILE}:7` },
    ]);
  });

  it('reads JSON, and names a nameless script after its file', () => {
    const script = parseScript({ text: '{"steps": [{"text": "hello"}]}', source: '/tmp/greeting.json' });
    expect(script.name).toBe('greeting');
    expect(script.steps[0]!.text).toBe('hello');
    expect(parseScript({ text: 'steps: [{ text: hi }]' }).name).toBe('script');
  });
});

describe('errors name file, line, column and key path', () => {
  it('an unknown key is an error, with a suggestion', () => {
    const error = scriptError(['steps:', '  - text: hi', '    tool_call: [{ tool: x }]', ''].join('\n'));
    const issue = expectLocated(error, { path: 'steps[0].tool_call', line: 3, column: 5, found: /"tool_call"/, message: /unknown key "tool_call" \(did you mean "tool_calls"\?\)/ });
    expect(issue.expected).toBe('one of when, text, tool_calls');
  });

  it('unknown keys at every level: top, condition, tool call', () => {
    const error = scriptError(
      ['nme: x', 'steps:', '  - when: { last_result: denied, tol: shell }', '    tool_calls:', '      - { tool: shell, arg: { command: ls } }', ''].join('\n'),
    );
    expectLocated(error, { path: 'nme', line: 1, column: 1, message: /did you mean "name"/ });
    expectLocated(error, { path: 'steps[0].when.tol', line: 3, column: 34, message: /did you mean "tool"/ });
    expectLocated(error, { path: 'steps[0].tool_calls[0].arg', line: 5, column: 24, message: /did you mean "args"/ });
  });

  it('a wrong condition value lists what is allowed', () => {
    const error = scriptError(['steps:', '  - text: hi', '  - when: { last_result: rejected }', '    text: ok', ''].join('\n'));
    expectLocated(error, { path: 'steps[1].when.last_result', line: 3, column: 26, expected: /"denied", "error", "succeeded", "none"/, found: /"rejected"/ });
  });

  it('`when` is `otherwise` or a mapping', () => {
    const error = scriptError(['steps:', '  - when: else', '    text: ok', ''].join('\n'));
    expectLocated(error, { path: 'steps[0].when', line: 2, column: 11, expected: /"otherwise" or a mapping/, found: /"else"/ });
  });

  it('wrong types and missing keys', () => {
    const error = scriptError(['steps:', '  - text: 42', '    tool_calls: [{ args: { a: 1 } }]', '  - tool_calls: [{ tool: x, args: [1] }]', ''].join('\n'));
    expectLocated(error, { path: 'steps[0].text', line: 2, column: 11, message: /wrong type/, expected: /string/, found: /number 42/ });
    expectLocated(error, { path: 'steps[0].tool_calls[0].tool', line: 3, column: 18, message: /missing required key/, found: /nothing/ });
    expectLocated(error, { path: 'steps[1].tool_calls[0].args', line: 4, column: 35, expected: /a mapping/, found: /a list/ });
  });

  it('a script needs steps, and each step must say or do something', () => {
    expectLocated(scriptError('name: x\n'), { path: 'steps', line: 1, message: /missing required key/ });
    expectLocated(scriptError('steps: []\n'), { path: 'steps', line: 1, column: 8, expected: /at least 1/ });
    expectLocated(scriptError(['steps:', '  - text: hi', '  - when: { last_result: error }', ''].join('\n')), {
      path: 'steps[1]',
      line: 3,
      column: 5,
      message: /neither says nor does anything/,
    });
  });

  it('contradictory or empty conditions', () => {
    const error = scriptError(['steps:', '  - when: { last_result: none, tool: shell }', '    text: a', '  - when: {}', '    text: b', ''].join('\n'));
    expectLocated(error, { path: 'steps[0].when.last_result', line: 2, message: /`none` means the previous turn made no tool call/ });
    expectLocated(error, { path: 'steps[1].when', line: 4, message: /an empty condition/ });
  });

  it('YAML syntax errors, duplicate keys and empty files', () => {
    const syntax = scriptError('steps:\n  - text: "unterminated\n');
    expect(syntax.issues[0]!.line).toBeTypeOf('number');
    expect(syntax.message).toMatch(/^invalid model script, an error:\n {2}script\.yaml:\d+:\d+: /);
    const duplicate = scriptError('steps:\n  - text: a\n    text: b\n');
    expect(duplicate.issues[0]).toMatchObject({ line: 3, message: /duplicate key/ });
    expect(scriptError('').issues[0]).toMatchObject({ path: '', message: 'the script is empty' });
  });
});

describe('loadScript', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'toolgate-script-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('reads a file relative to cwd, with or without the script: prefix', async () => {
    writeFileSync(path.join(directory, 'mine.yaml'), 'steps:\n  - text: hi\n');
    expect((await loadScript('mine.yaml', { cwd: directory })).name).toBe('mine');
    expect((await loadScript('script:mine.yaml', { cwd: directory })).source).toBe(path.join(directory, 'mine.yaml'));
  });

  it('a missing file is SCRIPT_NOT_FOUND and says what to do', async () => {
    const error = await loadScript('nope.yaml', { cwd: directory }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ScriptError);
    expect((error as ScriptError).code).toBe('SCRIPT_NOT_FOUND');
    expect((error as ScriptError).message).toContain(path.join(directory, 'nope.yaml'));
    expect((error as ScriptError).message).toContain('script:demo');
  });

  it('errors in a file carry its absolute path', async () => {
    writeFileSync(path.join(directory, 'bad.yaml'), 'steps:\n  - txt: hi\n');
    const error = (await loadScript('bad.yaml', { cwd: directory }).catch((caught: unknown) => caught)) as ScriptError;
    expect(error.message).toContain(`${path.join(directory, 'bad.yaml')}:2:5: steps[0].txt: unknown key "txt"`);
  });
});

describe('the built-in demo script', () => {
  it('loads by name and is valid', async () => {
    const demo = await loadScript('script:demo');
    expect(demo.name).toBe('demo');
    expect(demo.source).toBe(builtinScriptPath('demo'));
    expect(demo.steps.length).toBeGreaterThanOrEqual(7);
    expect(demo.steps.at(-1)!.toolCalls, 'the last step ends the run').toEqual([]);
  });

  it('calls only the built-in tools, with arguments their real schemas accept', async () => {
    const schemas: Record<string, z.ZodType> = {
      read_file: readFileSchema,
      write_file: writeFileSchema,
      edit_file: editFileSchema,
      shell: shellSchema,
      list_dir: z.strictObject({ path: z.string().min(1) }),
    };
    const demo = await loadScript('demo');
    const calls = demo.steps.flatMap((step) => step.toolCalls);
    for (const call of calls) {
      expect(Object.keys(schemas), `${call.tool} is a built-in tool`).toContain(call.tool);
      expect(schemas[call.tool]!.safeParse(call.args).success, `${call.tool} ${JSON.stringify(call.args)}`).toBe(true);
    }
    const commands = calls.filter((call) => call.tool === 'shell').map((call) => call.args.command);
    expect(commands).toEqual(expect.arrayContaining(['npm install left-pad', 'rm -rf ws']));
  });
});
