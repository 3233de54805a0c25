/**
 * Every model answer of a run, recorded before any call in it runs (issue
 * 32). The server drives a run through a model wrapped here: each model call
 * of the run has a number (`seq`, counted over the whole run, across pauses),
 * and its answer is sealed into the store's `steps` before the AI SDK sees
 * it. The calls in an answer get toolgate's own ids, `tg_<seq>_<position>`,
 * whatever ids the model gave (random, reused, empty, hostile): the model's
 * id is kept as an attribute only.
 *
 * Recovery drives the run again from its last sealed state, as engines that
 * replay a journal do (Temporal's workflow history): every model call whose
 * answer is recorded gets that answer back instead of asking the model, so
 * the run takes the same steps with the same ids, and the ledger — which
 * knows each call by that id — returns what a call that ran gave, reports one
 * that started and never ended as interrupted, and runs none twice. The model
 * is asked only from the first step with no recorded answer on.
 */
import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import type { LanguageModel } from 'ai';
import { wrapLanguageModel } from 'ai';
import type { Sealer } from '../seal.ts';
import type { ToolgateStore } from '../../store/store.ts';

/** The longest model id kept (an attribute, for people reading the history): the rest is cut. */
const MODEL_ID_KEPT = 200;

type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelV4Middleware['wrapGenerate']>>>;

/** A recorded step as the store keeps it (sealed). */
interface StepBody {
  v: 1;
  /** The answer as the AI SDK got it, ids rewritten; binary data as base64. */
  answer: unknown;
  /** Each call of the answer: toolgate's id, the model's. */
  calls: Array<{ id: string; modelId: string; tool: string }>;
}

export interface StepRecorder {
  /** The model, wrapped: answers recorded (or replayed) and ids made toolgate's. */
  model: LanguageModel;
  /** The seq the next model call of the run gets: sealed into a pause, so the run goes on counting after it. */
  next(): number;
  /** The model's own id of one of toolgate's call ids, when this drive saw it. */
  modelIdOf(toolCallId: string): string | undefined;
}

/**
 * Wraps `model` for one drive of run `runId`, whose next model call is
 * `fromSeq`; `recorded` are the steps the store holds from `fromSeq` on (a
 * recovery), answered from the record in order.
 *
 * @example
 * const recorder = createStepRecorder({ model, store, sealer, runId, fromSeq: 1, recorded: [] });
 * await generateText({ model: recorder.model, messages, ...gated });
 */
export function createStepRecorder(options: {
  model: LanguageModel;
  store: ToolgateStore;
  sealer: Sealer;
  runId: string;
  fromSeq: number;
  recorded: ReadonlyArray<{ seq: number; body: string }>;
}): StepRecorder {
  const { store, sealer, runId } = options;
  const replay = new Map(options.recorded.map((step) => [step.seq, step.body]));
  const modelIds = new Map<string, string>();
  let seq = options.fromSeq;
  const middleware: LanguageModelV4Middleware = {
    specificationVersion: 'v4',
    // The SDK calls this again for the same step when it retries a failed model call: the step's
    // number moves on only once its answer is replayed or recorded, so a retry keeps it.
    async wrapGenerate({ doGenerate }) {
      const at = seq;
      const sealed = replay.get(at);
      if (sealed !== undefined) {
        const body = openStep(sealer, sealed, runId, at);
        for (const call of body.calls) modelIds.set(call.id, call.modelId);
        seq = at + 1;
        return decodeAnswer(body.answer);
      }
      // Recorded answers after this one and none for it: the record has a gap, and asking the model here could repeat calls.
      if (recordedAfter(at)) throw new Error(`step ${at} of run ${runId} has no recorded answer but later steps do; the run is not driven on from a record with a gap`);
      const answer = await doGenerate();
      const { rewritten, calls } = withOwnIds(answer, at);
      const body: StepBody = { v: 1, answer: encodeAnswer(rewritten), calls };
      // Before the AI SDK sees the answer, so before any call in it runs; a second record of this step means another drive has the run.
      const added = await store.recordStep({ runId, seq: at, body: sealer.seal(JSON.stringify(body)) });
      if (!added) throw new Error(`step ${at} of run ${runId} was recorded by another drive of the run; this one stops`);
      for (const call of calls) modelIds.set(call.id, call.modelId);
      seq = at + 1;
      return rewritten;
    },
    // The server drives runs with generateText; a streamed step would not be recorded, so it is refused rather than run unrecorded.
    wrapStream() {
      return Promise.reject(new Error(`run ${runId}: a streamed model call is not recorded, so it is not made (drive runs with generateText)`));
    },
  };
  const recordedAfter = (at: number): boolean => options.recorded.some((step) => step.seq > at);
  return {
    model: wrapLanguageModel({ model: options.model as Parameters<typeof wrapLanguageModel>[0]['model'], middleware }),
    next: () => seq,
    modelIdOf: (toolCallId) => modelIds.get(toolCallId),
  };
}

/** The answer with toolgate's ids on the calls the client runs (a provider-executed call keeps its own: nothing here runs it). */
function withOwnIds(answer: GenerateResult, at: number): { rewritten: GenerateResult; calls: StepBody['calls'] } {
  const calls: StepBody['calls'] = [];
  const content = answer.content.map((part) => {
    if (part.type !== 'tool-call' || part.providerExecuted === true) return part;
    const id = `tg_${at}_${calls.length + 1}`;
    calls.push({ id, modelId: keptModelId(part.toolCallId), tool: part.toolName });
    return { ...part, toolCallId: id };
  });
  return { rewritten: { ...answer, content }, calls };
}

/**
 * The model's id as an attribute: a string, cut to MODEL_ID_KEPT characters,
 * with control and format characters (escape sequences, NUL, line and
 * paragraph separators, bidi overrides) written as `\u` escapes, so that
 * whatever the model sent reads as text in the history, a terminal or a log.
 */
function keptModelId(id: unknown): string {
  const characters = Array.from(typeof id === 'string' ? id : String(id));
  const cut = characters.length > MODEL_ID_KEPT ? `${characters.slice(0, MODEL_ID_KEPT).join('')}…` : characters.join('');
  // Lone surrogates too (\p{Cs}): they are not text, and some JSON readers refuse them.
  return cut.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu, (character) => `\\u{${character.codePointAt(0)!.toString(16)}}`);
}

function openStep(sealer: Sealer, sealed: string, runId: string, seq: number): StepBody {
  let body: StepBody;
  try {
    body = JSON.parse(sealer.unseal(sealed)) as StepBody;
  } catch (error) {
    throw new Error(`step ${seq} of run ${runId} could not be opened (sealed under another server secret, or damaged): ${error instanceof Error ? error.message : String(error)}`);
  }
  if (body?.v !== 1 || !Array.isArray(body.calls)) throw new Error(`step ${seq} of run ${runId} has an unknown shape`);
  return body;
}

/**
 * The answer as JSON can keep it: what the AI SDK reads of it (content,
 * finish reason, usage, provider metadata, warnings, the response's id,
 * model and time); request and response bodies and headers are left out.
 * Binary data (`Uint8Array`, `Buffer`) becomes `{ $bytes: base64 }`; so that
 * no object of the provider's reads as that, every key that starts with `$`
 * gets one more `$`, which decoding takes off.
 */
function encodeAnswer(answer: GenerateResult): unknown {
  const timestamp = answer.response?.timestamp;
  const response =
    answer.response === undefined
      ? undefined
      : { id: answer.response.id, modelId: answer.response.modelId, ...(timestamp instanceof Date && Number.isFinite(timestamp.getTime()) ? { timestamp: timestamp.toISOString() } : {}) };
  const kept = {
    content: answer.content,
    finishReason: answer.finishReason,
    usage: answer.usage,
    warnings: answer.warnings,
    ...(answer.providerMetadata === undefined ? {} : { providerMetadata: answer.providerMetadata }),
    ...(answer.structuredOutputText === undefined ? {} : { structuredOutputText: answer.structuredOutputText }),
    ...(response === undefined ? {} : { response }),
  };
  // A walk of its own, not JSON.stringify's replacer: Buffer's toJSON runs before a replacer sees it.
  const encode = (value: unknown): unknown => {
    if (value instanceof Uint8Array) return { $bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
    if (value instanceof Date) return Number.isFinite(value.getTime()) ? value.toISOString() : null;
    if (value instanceof URL) return value.href;
    if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : encode(item)));
    if (typeof value !== 'object' || value === null) return typeof value === 'bigint' ? String(value) : value;
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined && typeof item !== 'function');
    return Object.fromEntries(entries.map(([key, item]) => [key.startsWith('$') ? `$${key}` : key, encode(item)]));
  };
  return encode(kept);
}

function decodeAnswer(encoded: unknown): GenerateResult {
  const revive = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(revive);
    if (typeof value !== 'object' || value === null) return value;
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && keys[0] === '$bytes' && typeof record.$bytes === 'string') return new Uint8Array(Buffer.from(record.$bytes, 'base64'));
    return Object.fromEntries(keys.map((key) => [key.startsWith('$$') ? key.slice(1) : key, revive(record[key])]));
  };
  const answer = revive(encoded) as GenerateResult & { response?: { timestamp?: unknown } };
  if (answer.response !== undefined && typeof answer.response.timestamp === 'string') answer.response = { ...answer.response, timestamp: new Date(answer.response.timestamp) };
  return answer;
}
