import type { AlwaysScope, ApprovalRequest, GateContext, ToolCall } from './types.ts';

/** What a tool's own check may return besides a request: a block (policy, not a choice). */
export interface BlockResult {
  kind: 'block';
  reason: string;
  /** Which part of the policy the check applied, e.g. `shell.rules[3] (match: rm)` (default `tool:checkApproval`). */
  rule?: string;
}

/** What `checkApproval` may return for a call it lets through, to say why and by which rule (`null` says neither). */
export interface AllowResult {
  kind: 'allow';
  reason: string;
  rule?: string;
}

/** A request as a tool writes it: `required` may be left out (it defaults to true); `rule`, as for a block. */
export type ApprovalRequestInit = Omit<ApprovalRequest, 'required'> & { required?: boolean; rule?: string };

/** What `checkApproval` returns: nothing to ask (`null`, or an allow saying why), a rich request, or a block. */
export type ApprovalCheckResult = ApprovalRequestInit | BlockResult | AllowResult | null | undefined;

/** The context a tool's check receives. `signal` aborts when the check times out. */
export interface ApprovalCheckContext extends GateContext {
  signal: AbortSignal;
}

/**
 * A tool as the gate sees it: a name and, optionally, its own approval
 * semantics. Any object with a `name` works (bare tools are fine); AI SDK
 * tools, MCP tools and toolgate's built-ins all fit this shape.
 */
export interface ToolDeclaration {
  name: string;
  description?: string;
  /** The Vercel AI SDK shape: a boolean or a function of the arguments. */
  needsApproval?: boolean | ((args: any, context: ApprovalCheckContext) => boolean | Promise<boolean>);
  /** A rich request (description, payload, presentation) or a block; null when nothing needs asking. */
  checkApproval?: (call: ToolCall, context: ApprovalCheckContext) => ApprovalCheckResult | Promise<ApprovalCheckResult>;
  /**
   * Extra identity for remembered approvals, e.g. an MCP server and a hash of
   * the tool's definition: when it changes, earlier approvals stop applying.
   */
  identity?: string;
  /** The MCP server that offers the tool: audit lines name it (with `identity`). */
  server?: string;
  /**
   * Other names the tool is known by (an MCP tool's name on its server when
   * clients see it namespaced): the policy's name rules judge these too, and
   * the most restrictive outcome wins.
   */
  aliases?: readonly string[];
  /**
   * Choices for what "approve always" covers beyond the request's payload
   * ("this command with any arguments in this zone"), offered to the person
   * only where `withinAlwaysScope` says this very call falls within them.
   */
  alwaysScopes?: (call: ToolCall) => AlwaysScope[] | Promise<AlwaysScope[]>;
  /**
   * Whether a call falls within a scope this tool offered, as kept. Must
   * fail closed: a `match` the tool would not offer, or a `text` or `rule`
   * other than the ones it would show for that `match`, is false.
   */
  withinAlwaysScope?: (call: ToolCall, scope: AlwaysScope) => boolean | Promise<boolean>;
  execute?: (...args: any[]) => unknown;
}

const REQUIRES_APPROVAL = Symbol.for('toolgate.requiresApproval');

export interface RequiresApprovalOptions<Args> {
  /** What the person reads; defaults to `tool(args...)`. */
  description?: (args: Args) => string;
  /** The fingerprint for "approve for session"; defaults to all arguments. Omit secrets here. */
  payload?: (args: Args) => unknown;
}

/**
 * Marks a plain function (or a tool's `execute`) as needing approval, with
 * optional description and payload functions (seed 001's decorator).
 *
 * @example
 * const sendEmail = requiresApproval(async (args: { to: string; body: string }) => send(args), {
 *   description: (args) => `Send an email to ${args.to}`,
 *   payload: (args) => ({ to: args.to }),
 * });
 */
export function requiresApproval<Function extends (...args: any[]) => unknown>(
  fn: Function,
  options: RequiresApprovalOptions<Parameters<Function>[0]> = {},
): Function {
  Object.defineProperty(fn, REQUIRES_APPROVAL, { value: options, enumerable: false });
  return fn;
}

/** The options a function was marked with by `requiresApproval`, if any. */
export function requiresApprovalOptions(value: unknown): RequiresApprovalOptions<unknown> | undefined {
  if (typeof value !== 'function' && (typeof value !== 'object' || value === null)) return undefined;
  return (value as { [REQUIRES_APPROVAL]?: RequiresApprovalOptions<unknown> })[REQUIRES_APPROVAL];
}

/** Whether a tool says anything about its own approval. */
export function declaresApproval(tool: ToolDeclaration): boolean {
  return (
    tool.needsApproval !== undefined ||
    tool.checkApproval !== undefined ||
    requiresApprovalOptions(tool) !== undefined ||
    requiresApprovalOptions(tool.execute) !== undefined
  );
}

/**
 * A block returned from `checkApproval`.
 *
 * @example
 * checkApproval: (call) => (isSystemPath(call.args.path) ? blockCall('system files are off limits') : null)
 */
export function blockCall(reason: string, options: { rule?: string | undefined } = {}): BlockResult {
  return options.rule === undefined ? { kind: 'block', reason } : { kind: 'block', reason, rule: options.rule };
}

/**
 * What `checkApproval` returns for a call it lets through when it can say
 * which rule of the policy did (`null` lets it through saying nothing).
 *
 * @example
 * checkApproval: (call) => (isScratch(call.args.path) ? allowCall('scratch files are free', { rule: 'fs.zones[1] (scratch)' }) : request(call))
 */
export function allowCall(reason: string, options: { rule?: string | undefined } = {}): AllowResult {
  return options.rule === undefined ? { kind: 'allow', reason } : { kind: 'allow', reason, rule: options.rule };
}
