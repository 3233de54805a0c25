import { stepCountIs, type StopCondition, type Tool, type ToolSet } from 'ai';
import type { Approver } from '../../core/approver.ts';
import { ToolgateError } from '../../core/errors/toolgate-error.ts';
import type { Gate } from '../../core/gate.ts';
import { blocksOutright, type ToolRule } from '../../core/policy/policy.ts';
import type { GateContext } from '../../core/types.ts';
import type { BuiltinTool } from '../../tools/builtin-tool.ts';
import type { CallLedger } from './call-ledger.ts';
import { createCallRecords } from './call-records.ts';
import { declarationOf } from './declaration-of.ts';
import { createGateToolApproval } from './gate-tool-approval.ts';
import { attachState, type GatedTools, type GatedToolsState, type ResolveMode } from './gated-tools-state.ts';
import { randomSecret, SECRET_BYTES } from './random-secret.ts';
import { runApprover } from './run-approver.ts';
import { wrapTool } from './wrap-tool.ts';

export interface GateToolsOptions<TOOLS extends ToolSet> {
  /** An AI SDK tool set, toolgate's built-in tools (`createFsTools(...)`), or a record mixing both. */
  tools: TOOLS | readonly BuiltinTool[];
  /** The gate every call goes through. Tools it does not know are registered with it. */
  gate: Gate;
  /** Who calls: session decisions are scoped by `sessionId` + `chatId`. */
  context: GateContext;
  /**
   * `blocking`: a person is asked inline and the run goes on (seed 002).
   * `deferred`: asks pause the run with approval requests; `resumeRun` continues it (seed 004).
   * Deferred runs ask nobody inline, so they refuse a gate that has an approver of its own.
   */
  resolve: ResolveMode;
  /**
   * Blocking runs: who is asked. Defaults to the gate's own approver
   * (`createGate({ approver })`); giving a different one here as well is
   * refused, as is any approver in a deferred run: an approver is never
   * silently ignored. With neither, asks are denied (nobody could be asked).
   */
  approver?: Approver;
  /**
   * The HMAC key that signs approval requests (at least 32 bytes). Random per
   * gated set by default; give one (the same in every process) to resume a
   * deferred run elsewhere. Keep it on the server: never in the run state.
   */
  secret?: string | Uint8Array;
  /** The run's own stop conditions; default `stepCountIs(20)`. A denial that stops the run is added. */
  stopWhen?: StopCondition<any, any> | Array<StopCondition<any, any>>;
  /** Cancels pending approvals (blocking runs). */
  signal?: AbortSignal;
  /**
   * Records each call as executing before it runs, so that no approved call
   * runs twice — also when the same run state is resumed in two processes,
   * or again after a crash (a call that started before is reported
   * `interrupted`). The server's store implements it.
   */
  ledger?: CallLedger;
}

/** Secrets shorter than this are refused: a guessable key would let anyone sign approvals. */
const MINIMUM_SECRET_BYTES = SECRET_BYTES;

/**
 * Gates an AI SDK tool set: every call the model makes goes through the
 * gate (as the SDK's own `toolApproval`), tools the policy hides or blocks
 * outright never reach the model's tool list, approvals are always signed,
 * and every `execute` refuses anything the gate did not authorize for that
 * exact tool call id and arguments. Spread the result into `generateText`,
 * `streamText` or `new ToolLoopAgent(...)`; put step limits in `stopWhen`
 * here rather than there, so a stopping denial still ends the run.
 *
 * Who is asked is settled here, once: in a blocking run, the `approver`
 * given here or else the gate's own (two different ones are refused); a
 * deferred run asks nobody and refuses an approver. Throws `ToolgateError`
 * (code `USAGE`) for such a mix-up, before the model is called.
 *
 * @example
 * const gated = gateTools({ tools: { send_email, read_file }, gate, context: { sessionId }, resolve: 'blocking', approver });
 * const result = await generateText({ model, prompt: 'Email the report to Ann', ...gated });
 * if (runOutcome({ gated, content: result.content }).status === 'stopped') console.log('stopped by a denial');
 */
export function gateTools<TOOLS extends ToolSet>(options: GateToolsOptions<TOOLS>): GatedTools<TOOLS> {
  const { gate } = options;
  if (options.resolve !== 'blocking' && options.resolve !== 'deferred') {
    throw new ToolgateError({ code: 'USAGE', message: `resolve must be 'blocking' or 'deferred', got ${JSON.stringify(options.resolve)}` });
  }
  if (typeof options.context?.sessionId !== 'string') throw new ToolgateError({ code: 'USAGE', message: 'context.sessionId is required: session approvals are scoped by it' });
  const state: GatedToolsState = {
    gate,
    context: options.context,
    resolve: options.resolve,
    approver: runApprover({ resolve: options.resolve, gate, approver: options.approver }),
    signal: options.signal,
    secret: checkedSecret(options.secret),
    records: createCallRecords(),
    ledger: options.ledger,
    stoppedBy: undefined,
  };
  const tools: Record<string, Tool> = {};
  for (const [name, entry] of toolEntries(options.tools)) {
    if (!gate.isVisible(name) || blocks(gate.policy.tools.get(name))) continue;
    const builtin = isBuiltinTool(entry);
    if (!builtin && (entry as { type?: unknown }).type === 'provider' && (entry as { isProviderExecuted?: unknown }).isProviderExecuted === true) {
      throw new ToolgateError({ code: 'USAGE', message: `${name} is executed by the provider, where toolgate cannot stop it; remove it from the gated tools` });
    }
    const registered = gate.tool(name);
    if (registered === undefined) {
      const declaration = builtin ? (entry as BuiltinTool) : declarationOf({ name, tool: entry as Tool, redactKeys: gate.policy.redact.keys });
      declarationSources.set(declaration, entry);
      gate.register(declaration);
    } else if (!builtin && declarationSources.get(registered) !== entry && (entry as Tool).needsApproval !== undefined) {
      // The gate would judge this tool by another declaration and its own needsApproval would be lost.
      throw new ToolgateError({
        code: 'USAGE',
        message: `the gate already knows another tool named ${name}, so this tool's own needsApproval would be ignored; use one gate per tool set, or declare the approval once, on the gate`,
      });
    } else if (builtin && registered !== entry) {
      // A built-in tool's own checks (its zones, its rules) must be the ones the gate runs.
      throw new ToolgateError({ code: 'USAGE', message: `the gate already knows another tool named ${name}; give gateTools the same tool objects the gate was created with` });
    }
    // Otherwise the gate's registration wins for AI SDK tools: it may declare richer approval semantics.
    tools[name] = wrapTool({ name, tool: entry, builtin, state });
  }
  const own = options.stopWhen === undefined ? [stepCountIs(20)] : Array.isArray(options.stopWhen) ? options.stopWhen : [options.stopWhen];
  // One condition, not one more in the list: the SDK awaits every condition of the list after every step.
  const stopOnDenialOrOwn: StopCondition<any, any> = (stepOptions) => {
    if (state.stoppedBy !== undefined) return true;
    if (own.length === 1) return own[0]!(stepOptions);
    return Promise.all(own.map((condition) => condition(stepOptions))).then((results) => results.some(Boolean));
  };
  const gated: GatedTools<TOOLS> = {
    tools: tools as TOOLS,
    toolApproval: createGateToolApproval(state),
    experimental_toolApprovalSecret: state.secret,
    stopWhen: [stopOnDenialOrOwn],
  };
  attachState(gated, state);
  return gated;
}

/** Which tool object each declaration registered by `gateTools` came from. */
const declarationSources = new WeakMap<object, unknown>();

function toolEntries(tools: ToolSet | readonly BuiltinTool[]): [string, Tool | BuiltinTool][] {
  if (Array.isArray(tools)) return (tools as readonly BuiltinTool[]).map((tool) => [tool.name, tool]);
  if (typeof tools !== 'object' || tools === null) throw new ToolgateError({ code: 'USAGE', message: 'tools must be an AI SDK tool set or a list of toolgate tools' });
  const entries = Object.entries(tools as ToolSet) as [string, Tool | BuiltinTool][];
  for (const [name, tool] of entries) {
    if (isBuiltinTool(tool) && tool.name !== name) {
      throw new ToolgateError({ code: 'USAGE', message: `the built-in tool ${tool.name} is listed as ${name}; list it under its own name so the gate judges the tool that runs` });
    }
  }
  return entries;
}

function isBuiltinTool(tool: unknown): tool is BuiltinTool {
  return typeof tool === 'object' && tool !== null && typeof (tool as BuiltinTool).name === 'string' && typeof (tool as BuiltinTool).checkApproval === 'function';
}


function checkedSecret(secret: string | Uint8Array | undefined): string | Uint8Array {
  if (secret === undefined) return randomSecret();
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret).length : secret instanceof Uint8Array ? secret.length : 0;
  if (bytes < MINIMUM_SECRET_BYTES) {
    throw new ToolgateError({ code: 'USAGE', message: `the approval secret must be a string or Uint8Array of at least ${MINIMUM_SECRET_BYTES} bytes (e.g. \`openssl rand -base64 32\`)` });
  }
  return secret;
}

/** A tool-level `block` with no argument rule that could decide otherwise: the model never sees it. */
function blocks(rule: ToolRule | undefined): boolean {
  return rule !== undefined && blocksOutright(rule);
}
