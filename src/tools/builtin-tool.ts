import type { z } from 'zod';
import type { ToolDeclaration } from '../core/tool-declaration.ts';
import type { Presentation } from '../core/types.ts';

/** What a built-in tool's `execute` receives besides its arguments. */
export interface ToolExecutionOptions {
  signal?: AbortSignal;
  /**
   * The presentation the person approved, when one was shown (absent when a
   * rule, memory or a mode decided). Tools use it to refuse to run something
   * other than what was shown: a file that changed since its diff was shown.
   */
  approvedPresentation?: Presentation;
  /**
   * How the gate let this call through: by the policy alone (`allow`), or
   * approved for `payload` (a person, memory or a mode). Tools re-check it at
   * execution, so a path swapped after the check cannot slip past an ask.
   */
  authorization?: { decision: 'allow' | 'approved'; payload?: unknown };
}

/**
 * A tool toolgate ships: a declaration the gate understands (its own
 * `checkApproval`), a strict zod input schema (unknown arguments are
 * rejected), and `execute`. The same object works as a Vercel AI SDK tool
 * (`description`, `inputSchema`, `execute`).
 */
export interface BuiltinTool<Args = any, Result = unknown> extends ToolDeclaration {
  name: string;
  description: string;
  inputSchema: z.ZodType<Args>;
  checkApproval: NonNullable<ToolDeclaration['checkApproval']>;
  execute: (args: Args, options?: ToolExecutionOptions) => Promise<Result>;
}
