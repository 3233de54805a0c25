import type { LanguageModelV4Prompt, LanguageModelV4ToolResultOutput } from '@ai-sdk/provider';
import type { ResultKind, Script, ScriptCondition, ScriptStep } from './script-schema.ts';

/** One tool result as the scripted model reads it from the prompt. */
export interface SeenToolResult {
  tool: string;
  toolCallId: string;
  /** `denied`: `execution-denied`; `error`: `error-text` / `error-json`; `succeeded`: anything else. */
  kind: Exclude<ResultKind, 'none'>;
  /** The result as text, for `contains`: the value, JSON, error or denial reason. */
  text: string;
}

/** Which step plays for a turn; `undefined` when the script has none left. */
export interface StepSelection {
  /** 1-based number of this turn: the assistant messages already in the prompt, plus one. */
  turn: number;
  /** Index into `script.steps`, or `undefined` when the script is exhausted. */
  stepIndex: number | undefined;
  step: ScriptStep | undefined;
  /** The previous turn's tool results the conditions were checked against. */
  results: SeenToolResult[];
}

/**
 * Picks the step the scripted model plays for the prompt it received.
 *
 * The model keeps no state: it replays its own choices from the prompt, so
 * the same conversation always gets the same answer, also after a restart or
 * when a run is resumed with saved messages.
 *
 * - Every assistant message in the prompt is one turn already played.
 * - A turn's *results* are the tool results in the tool messages after the
 *   previous assistant message (for the first turn: before any assistant
 *   message, usually none).
 * - A cursor starts at the first step. A step without `when` plays when the
 *   cursor reaches it. Consecutive steps with `when` form a group of
 *   alternatives (`when: otherwise` matches always and closes its group):
 *   the first member whose condition holds plays and the cursor moves past
 *   the whole group; when none holds, the whole group is skipped and the
 *   search goes on with the next step.
 * - A condition holds when one and the same result satisfies every field it
 *   gives (`last_result`, `tool`, `contains`); `last_result: none` holds when
 *   there are no results.
 * - Replaying the turns already in the prompt gives the cursor for this
 *   turn. No step left: the script is exhausted.
 *
 * @example
 * const { step, turn } = selectStep({ script, prompt: options.prompt });
 */
export function selectStep(options: { script: Script; prompt: LanguageModelV4Prompt }): StepSelection {
  const turns = splitTurns(options.prompt);
  let cursor = 0;
  // Every turn already in the prompt consumed the step it selected then.
  for (const results of turns.slice(0, -1)) cursor = pick(options.script.steps, cursor, results)?.next ?? options.script.steps.length;
  const results = turns.at(-1) ?? [];
  const picked = pick(options.script.steps, cursor, results);
  return {
    turn: turns.length,
    stepIndex: picked?.index,
    step: picked === undefined ? undefined : options.script.steps[picked.index],
    results,
  };
}

/**
 * Whether one condition holds for a turn's results.
 *
 * @example
 * conditionHolds({ lastResult: 'denied', tool: 'shell' }, splitTurns(prompt).at(-1)!);
 */
export function conditionHolds(condition: ScriptCondition | 'otherwise', results: readonly SeenToolResult[]): boolean {
  if (condition === 'otherwise') return true;
  if (condition.lastResult === 'none') return results.length === 0;
  return results.some(
    (result) =>
      (condition.lastResult === undefined || condition.lastResult === result.kind) &&
      (condition.tool === undefined || condition.tool === result.tool) &&
      (condition.contains === undefined || result.text.includes(condition.contains)),
  );
}

/**
 * The results seen before each turn: one entry per assistant message in the
 * prompt, plus one for this turn (the last entry).
 *
 * @example
 * const lastResults = splitTurns(options.prompt).at(-1)!;
 */
export function splitTurns(prompt: LanguageModelV4Prompt): SeenToolResult[][] {
  const turns: SeenToolResult[][] = [[]];
  for (const message of prompt) {
    if (message.role === 'assistant') turns.push([]);
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      turns.at(-1)!.push({ tool: part.toolName, toolCallId: part.toolCallId, ...readOutput(part.output) });
    }
  }
  return turns;
}

function pick(steps: readonly ScriptStep[], cursor: number, results: readonly SeenToolResult[]): { index: number; next: number } | undefined {
  let index = cursor;
  while (index < steps.length) {
    const step = steps[index]!;
    if (step.when === undefined) return { index, next: index + 1 };
    const end = groupEnd(steps, index);
    for (let member = index; member < end; member++) {
      if (conditionHolds(steps[member]!.when!, results)) return { index: member, next: end };
    }
    index = end;
  }
  return undefined;
}

/** The index after the group of conditional steps that starts at `start`. */
function groupEnd(steps: readonly ScriptStep[], start: number): number {
  let index = start;
  while (index < steps.length && steps[index]!.when !== undefined) {
    index++;
    if (steps[index - 1]!.when === 'otherwise') break;
  }
  return index;
}

function readOutput(output: LanguageModelV4ToolResultOutput): Pick<SeenToolResult, 'kind' | 'text'> {
  switch (output.type) {
    case 'execution-denied':
      return { kind: 'denied', text: output.reason ?? '' };
    case 'error-text':
      return { kind: 'error', text: output.value };
    case 'error-json':
      return { kind: 'error', text: JSON.stringify(output.value) ?? '' };
    case 'text':
      return { kind: 'succeeded', text: output.value };
    case 'json':
      return { kind: 'succeeded', text: JSON.stringify(output.value) ?? '' };
    case 'content':
      return { kind: 'succeeded', text: output.value.map((part) => (part.type === 'text' ? part.text : '')).join('') };
    default:
      return { kind: 'succeeded', text: '' };
  }
}
