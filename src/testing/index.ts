/**
 * `toolgate/testing`: test doubles for code built on toolgate — a real AI
 * SDK model that replays a script, and an approver that answers from a list.
 */
export { createScriptedModel, SCRIPT_FINISHED_TEXT } from '../models/scripted-model.ts';
export type { ScriptedModelOptions } from '../models/scripted-model.ts';
export { parseScript } from '../models/parse-script.ts';
export { loadScript } from '../models/load-script.ts';
export { selectStep } from '../models/select-step.ts';
export type { SeenToolResult, StepSelection } from '../models/select-step.ts';
export type { Script, ScriptCondition, ScriptStep, ScriptToolCall } from '../models/script-schema.ts';
export { ScriptError } from '../models/errors/script-error.ts';
export type { ScriptIssue } from '../models/errors/script-error.ts';
export { ScriptExhaustedError } from '../models/errors/script-exhausted-error.ts';
export { createScriptedApprover, OUT_OF_ANSWERS_REASON } from './scripted-approver.ts';
export type { ScriptedAnswer, ScriptedAnswerContext, ScriptedAnswerFunction, ScriptedApprover, ScriptedApproverCall } from './scripted-approver.ts';
