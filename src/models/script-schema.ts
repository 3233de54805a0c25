import { z } from 'zod';

/**
 * The scripted model's script file, as written (YAML or JSON). Every object
 * is strict: an unknown key is an error, because a typo such as `tool_call:`
 * would otherwise silently drop a step's tool calls. The matching semantics
 * are documented on `selectStep`.
 */

/** What the previous turn's tool results must show for a conditional step to play. */
export const resultKinds = ['denied', 'error', 'succeeded', 'none'] as const;
export type ResultKind = (typeof resultKinds)[number];

const condition = z.strictObject({
  last_result: z
    .enum(resultKinds)
    .optional()
    .describe('denied: a tool call was not allowed to run (a denial or a block); error: a tool failed; succeeded: a tool ran; none: the previous turn made no tool call.'),
  tool: z.string().min(1).optional().describe('The result must come from this tool.'),
  contains: z.string().min(1).optional().describe('The result (its text, JSON, error or denial reason) must contain this text, case-sensitively.'),
});

const toolCall = z.strictObject({
  tool: z.string().min(1).describe('The tool to call, e.g. read_file.'),
  args: z.record(z.string(), z.unknown()).optional().describe('The tool input, a mapping; `{}` when absent.'),
});

const step = z.strictObject({
  when: z
    .union([z.literal('otherwise'), condition])
    .optional()
    .describe('Play this step only if the previous turn\'s tool results match. Consecutive steps with `when` are alternatives: the first that matches plays. `otherwise` matches always and ends the group.'),
  text: z.string().optional().describe('What the model says in this turn.'),
  tool_calls: z.array(toolCall).optional().describe('The tool calls the model makes in this turn.'),
});

export const scriptSchema = z.strictObject({
  name: z.string().min(1).optional().describe('The script\'s name (the model id); the file name when absent.'),
  description: z.string().optional(),
  steps: z.array(step).min(1).describe('One step per model turn, in order.'),
});

export type ScriptDocument = z.infer<typeof scriptSchema>;

/** The keys allowed at each level, for "did you mean" suggestions. */
export const scriptKeys = {
  script: Object.keys(scriptSchema.shape),
  step: Object.keys(step.shape),
  condition: Object.keys(condition.shape),
  toolCall: Object.keys(toolCall.shape),
} as const;

/** A condition on the previous turn's tool results. Every given field must hold for one and the same result. */
export interface ScriptCondition {
  lastResult?: ResultKind;
  tool?: string;
  contains?: string;
}

export interface ScriptToolCall {
  tool: string;
  args: Record<string, unknown>;
}

export interface ScriptStep {
  /** Absent: the step always plays when reached. */
  when?: ScriptCondition | 'otherwise';
  text?: string;
  toolCalls: ScriptToolCall[];
  /** Where the step is written, for messages: `demo.yaml:12`. */
  location?: string;
}

/** A parsed, validated script: what `createScriptedModel` replays. */
export interface Script {
  name: string;
  description?: string;
  steps: ScriptStep[];
  /** The file (or label) it was read from. */
  source: string;
}
