import type { LanguageModelV4Message, LanguageModelV4Prompt, LanguageModelV4ToolResultOutput } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { parseScript } from './parse-script.ts';
import { conditionHolds, selectStep, splitTurns, type SeenToolResult } from './select-step.ts';

const user: LanguageModelV4Message = { role: 'user', content: [{ type: 'text', text: 'go' }] };
const assistant: LanguageModelV4Message = { role: 'assistant', content: [{ type: 'text', text: '...' }] };

function results(...outputs: [tool: string, output: LanguageModelV4ToolResultOutput][]): LanguageModelV4Message {
  return { role: 'tool', content: outputs.map(([toolName, output], index) => ({ type: 'tool-result', toolCallId: `c${index}`, toolName, output })) };
}

/** The 1-based step the script plays for a prompt, or `undefined` when exhausted. */
function played(scriptText: string, prompt: LanguageModelV4Prompt): number | undefined {
  const selection = selectStep({ script: parseScript({ text: scriptText }), prompt });
  return selection.stepIndex === undefined ? undefined : selection.stepIndex + 1;
}

describe('reading the prompt', () => {
  it('sorts results by kind and renders them as text for `contains`', () => {
    const prompt: LanguageModelV4Prompt = [
      user,
      assistant,
      results(
        ['shell', { type: 'execution-denied', reason: 'not now' }],
        ['boom', { type: 'error-text', value: 'Error: kaboom' }],
        ['read_file', { type: 'json', value: { content: 'hello' } }],
        ['echo', { type: 'text', value: 'hi' }],
        ['strict', { type: 'error-json', value: { code: 'E' } }],
        ['silent', { type: 'execution-denied' }],
      ),
    ];
    const turns = splitTurns(prompt);
    expect(turns).toHaveLength(2);
    expect(turns[1]!.map(({ tool, kind, text }) => [tool, kind, text])).toEqual([
      ['shell', 'denied', 'not now'],
      ['boom', 'error', 'Error: kaboom'],
      ['read_file', 'succeeded', '{"content":"hello"}'],
      ['echo', 'succeeded', 'hi'],
      ['strict', 'error', '{"code":"E"}'],
      ['silent', 'denied', ''],
    ]);
  });

  it('counts turns by assistant messages; results belong to the turn after them', () => {
    const prompt = [user, assistant, results(['a', { type: 'text', value: '1' }]), user, assistant, results(['b', { type: 'text', value: '2' }]), results(['c', { type: 'text', value: '3' }])];
    expect(splitTurns(prompt).map((turn) => turn.map((result) => result.tool))).toEqual([[], ['a'], ['b', 'c']]);
    expect(selectStep({ script: parseScript({ text: 'steps: [{ text: x }]' }), prompt }).turn).toBe(3);
  });
});

describe('conditions', () => {
  const seen: SeenToolResult[] = [
    { tool: 'shell', toolCallId: 'c1', kind: 'denied', text: 'blocked by policy' },
    { tool: 'read_file', toolCallId: 'c2', kind: 'succeeded', text: 'notes' },
  ];

  it('every field must hold for one and the same result', () => {
    expect(conditionHolds({ lastResult: 'denied' }, seen)).toBe(true);
    expect(conditionHolds({ lastResult: 'denied', tool: 'shell' }, seen)).toBe(true);
    expect(conditionHolds({ lastResult: 'denied', tool: 'read_file' }, seen)).toBe(false);
    expect(conditionHolds({ tool: 'read_file', contains: 'notes' }, seen)).toBe(true);
    expect(conditionHolds({ tool: 'read_file', contains: 'policy' }, seen)).toBe(false);
    expect(conditionHolds({ contains: 'Blocked' }, seen), 'contains is case-sensitive').toBe(false);
    expect(conditionHolds({ lastResult: 'error' }, seen)).toBe(false);
  });

  it('`none` holds only without results; `otherwise` always', () => {
    expect(conditionHolds({ lastResult: 'none' }, [])).toBe(true);
    expect(conditionHolds({ lastResult: 'none' }, seen)).toBe(false);
    expect(conditionHolds({ lastResult: 'succeeded' }, [])).toBe(false);
    expect(conditionHolds('otherwise', [])).toBe(true);
  });
});

describe('choosing the step', () => {
  const branching = [
    'steps:',
    '  - tool_calls: [{ tool: shell }]', // 1
    '  - when: { last_result: denied }', // 2
    '    text: adapt',
    '    tool_calls: [{ tool: write_file }]',
    '  - when: { last_result: succeeded }', // 3: a sibling, never played after 2
    '    text: installed',
    '    tool_calls: [{ tool: write_file }]',
    '  - when: otherwise', // 4
    '    text: something else',
    '    tool_calls: [{ tool: write_file }]',
    '  - text: done', // 5
  ].join('\n');

  it('plays the first matching alternative of a group, then skips its siblings', () => {
    const denied = [user, assistant, results(['shell', { type: 'execution-denied', reason: 'no' }])];
    expect(played(branching, [user])).toBe(1);
    expect(played(branching, denied)).toBe(2);
    // Step 2's own write succeeded: step 3 would match, but it is a sibling of 2.
    expect(played(branching, [...denied, assistant, results(['write_file', { type: 'json', value: { ok: true } }])])).toBe(5);
    expect(played(branching, [user, assistant, results(['shell', { type: 'text', value: 'ok' }])])).toBe(3);
    expect(played(branching, [user, assistant, results(['shell', { type: 'error-text', value: 'boom' }])])).toBe(4);
  });

  it('skips a whole group when no alternative holds', () => {
    const script = ['steps:', '  - text: first', '  - when: { last_result: denied }', '    text: adapt', '  - when: { last_result: error }', '    text: retry', '  - text: next'].join('\n');
    expect(played(script, [user, assistant, user])).toBe(4);
  });

  it('`otherwise` closes its group: a conditional step after it starts a new one', () => {
    const script = ['steps:', '  - text: first', '  - when: { last_result: denied }', '    text: a', '  - when: otherwise', '    text: b', '  - when: { last_result: none }', '    text: c', '  - text: d'].join('\n');
    expect(played(script, [user, assistant, user]), '`otherwise` (b) after no results').toBe(3);
    expect(played(script, [user, assistant, user, assistant, user])).toBe(4);
    expect(played(script, [user, assistant, user, assistant, user, assistant, user])).toBe(5);
  });

  it('is exhausted when no step is left', () => {
    const script = 'steps: [{ text: only }]';
    expect(played(script, [user])).toBe(1);
    expect(played(script, [user, assistant, user])).toBeUndefined();
    expect(played(script, [user, assistant, user, assistant, user])).toBeUndefined();
  });

  it('a first step with a condition sees no results: `none` holds', () => {
    const script = ['steps:', '  - when: { last_result: denied }', '    text: a', '  - when: { last_result: none }', '    text: b'].join('\n');
    expect(played(script, [user])).toBe(2);
  });
});
