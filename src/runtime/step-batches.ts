/**
 * Seed 001's batches for an agent run: the calls one model step makes go
 * through the gate together, so asks sharing a `groupId` reach a person as
 * one batch (`approver.askGroup`) instead of one prompt after another.
 *
 * The AI SDK asks about each tool call on its own, in order, as the call
 * streams in: while it waits for the first answer the model's later calls
 * are not even read. So the model is wrapped to hold a step's tool calls back
 * until the model has finished the step; then every call of the step is
 * known before the first one is asked about. The gate is wrapped too: asked
 * about a call of a step with several calls, it finds the calls that ask
 * with the same `groupId` and decides them with `gate.authorizeAll`, once,
 * then hands each its own authorization. Everything else goes to the gate
 * unchanged, so a step with one call, or calls without a group, costs nothing.
 */
import { asSchema, wrapLanguageModel, type LanguageModel, type LanguageModelMiddleware, type ToolSet } from 'ai';
import { sameArguments } from '../adapters/ai-sdk/call-records.ts';
import type { Gate } from '../core/gate.ts';
import type { Authorization, GateContext, ToolCall } from '../core/types.ts';

export interface StepBatches {
  /** The model with each step's tool calls held back until the step is complete. */
  model: LanguageModel;
  /** The gate, deciding calls that share a `groupId` in one step as one batch. */
  gate: Gate;
}

/** One step's tool calls, as the SDK will parse them, and the batches found among them. */
interface Step {
  calls: ToolCall[];
  /** groupId of every call that belongs to a batch of two or more asks; found on the first ask. */
  batches?: Promise<Map<string, ToolCall[]>>;
  /** Each batch's authorizations by call id, decided once. */
  decided: Map<string, Promise<Map<string, Authorization>>>;
}

/** Stream parts of a language model, as far as this module reads them. */
interface StreamPart {
  type: string;
  toolCallId?: string;
  toolName?: string;
  input?: string;
  providerExecuted?: boolean;
}

/**
 * Wraps a model and a gate so that one step's calls sharing a `groupId` are
 * decided together. A model given by id (a string) is left as it is, and
 * then calls are decided one by one.
 *
 * @example
 * const batches = createStepBatches({ model, gate, tools: () => gated.tools });
 * streamText({ model: batches.model, ...gateTools({ tools, gate: batches.gate, ... }) });
 */
export function createStepBatches(options: {
  model: LanguageModel;
  gate: Gate;
  /** The tools the model is given (read when a step ends: the gated set is made after the gate it uses). */
  tools: () => ToolSet;
}): StepBatches {
  const { gate } = options;
  let current: Step | undefined;

  async function parsedCall(part: StreamPart): Promise<ToolCall | undefined> {
    const tool = Object.hasOwn(options.tools(), part.toolName!) ? options.tools()[part.toolName!] : undefined;
    if (tool === undefined || typeof part.toolCallId !== 'string') return undefined;
    try {
      // The SDK's own parsing: empty input is {}, then the tool's schema (its defaults and transforms included).
      const text = typeof part.input === 'string' ? part.input : '';
      const value: unknown = text.trim() === '' ? {} : JSON.parse(text);
      const schema = asSchema(tool.inputSchema);
      const result = schema.validate === undefined ? { success: true as const, value } : await schema.validate(value);
      return result.success ? { tool: part.toolName!, args: result.value, callId: part.toolCallId } : undefined;
    } catch {
      // The SDK will reject it as invalid input; it is never asked about.
      return undefined;
    }
  }

  const middleware: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    wrapStream: async ({ doStream }) => {
      const { stream, ...rest } = await doStream();
      const held: StreamPart[] = [];
      const release = async (controller: TransformStreamDefaultController<unknown>) => {
        if (held.length === 0) return;
        const parts = held.splice(0);
        const calls = (await Promise.all(parts.map(parsedCall))).filter((call): call is ToolCall => call !== undefined);
        // Two calls with one id could not be told apart when each is handed its decision: such a step is asked call by call.
        const unique = new Set(parts.map((part) => part.toolCallId)).size === parts.length;
        current = { calls: unique ? calls : [], decided: new Map() };
        for (const part of parts) controller.enqueue(part);
      };
      return {
        ...rest,
        stream: stream.pipeThrough(
          new TransformStream<any, any>({
            async transform(part: StreamPart, controller) {
              // Provider-executed calls are never asked about: they pass as they come.
              if (part.type === 'tool-call' && part.providerExecuted !== true) {
                held.push(part);
                return;
              }
              if (part.type === 'finish') await release(controller);
              controller.enqueue(part);
            },
            async flush(controller) {
              await release(controller);
            },
          }),
        ),
      };
    },
  };

  /** The calls of the step that ask with a `groupId` shared by at least one other call. */
  async function findBatches(step: Step, context: GateContext): Promise<Map<string, ToolCall[]>> {
    const byGroup = new Map<string, ToolCall[]>();
    for (const call of step.calls) {
      const verdict = await gate.evaluate(call, context);
      const groupId = verdict.kind === 'ask' ? verdict.request.groupId : undefined;
      if (groupId === undefined) continue;
      byGroup.set(groupId, [...(byGroup.get(groupId) ?? []), call]);
    }
    for (const [groupId, calls] of byGroup) if (calls.length < 2) byGroup.delete(groupId);
    return byGroup;
  }

  const batchingGate: Gate = {
    get policy() {
      return gate.policy;
    },
    get approver() {
      return gate.approver;
    },
    evaluate: (call, context) => gate.evaluate(call, context),
    authorizeAll: (calls, context, authorizeOptions) => gate.authorizeAll(calls, context, authorizeOptions),
    isVisible: (name, aliases) => gate.isVisible(name, aliases),
    alwaysChoices: (call, request) => gate.alwaysChoices(call, request),
    register: (tool) => gate.register(tool),
    unregister: (name) => gate.unregister(name),
    tool: (name) => gate.tool(name),
    authorize: async (call, context, authorizeOptions) => {
      const step = current;
      const planned = step?.calls.find((candidate) => candidate.callId === call?.callId);
      // A deferred run's resume (personDecides) or a call this step did not announce goes the usual way.
      if (step === undefined || planned === undefined || step.calls.length < 2 || authorizeOptions?.personDecides === true) {
        return gate.authorize(call, context, authorizeOptions);
      }
      try {
        step.batches ??= findBatches(step, context);
        const batches = await step.batches;
        const entry = [...batches].find(([, calls]) => calls.includes(planned));
        if (entry === undefined) return await gate.authorize(call, context, authorizeOptions);
        const [groupId, calls] = entry;
        let decided = step.decided.get(groupId);
        if (decided === undefined) {
          decided = gate.authorizeAll(calls, context, authorizeOptions).then((results) => new Map(calls.map((batchCall, index) => [batchCall.callId, results[index]!])));
          step.decided.set(groupId, decided);
        }
        const authorization = (await decided).get(planned.callId);
        // Only what the person was shown is decided by the batch: any other call is asked about on its own.
        if (authorization === undefined || call.tool !== planned.tool || !sameArguments(call.args, planned.args)) {
          return await gate.authorize(call, context, authorizeOptions);
        }
        return authorization;
      } catch {
        // The batch could not be formed: the call is decided on its own, as without batches.
        return gate.authorize(call, context, authorizeOptions);
      }
    },
  };

  const model = typeof options.model === 'string' ? options.model : wrapLanguageModel({ model: options.model as never, middleware });
  return { model, gate: batchingGate };
}
