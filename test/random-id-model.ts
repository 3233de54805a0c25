/**
 * A model server on loopback that behaves like the real providers: every
 * tool call gets a fresh random id (OpenAI, Anthropic and most
 * OpenAI-compatible servers do), and it answers from the conversation it is
 * sent, not from a count of requests, so that a run driven again after a
 * crash asks it exactly as a real model would be asked. It speaks the wire
 * formats of `provider-wire-formats.ts`, in JSON (what `generateText` asks
 * for), to the AI SDK's real providers.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openAIChat, type WireFormat, type WireTurn } from './provider-wire-formats.ts';

/** A request the model server received: whether the conversation held a tool result yet, and its raw text. */
export interface ModelRequest {
  hasToolResult: boolean;
  text: string;
}

export interface RandomIdModel {
  format: WireFormat;
  baseUrl: string;
  requests: ModelRequest[];
  /** Ids the model gave, in order. */
  ids: string[];
  /** While set, a request that holds a tool result is left waiting (the model "thinks"), until the server goes away. */
  holdAfterResult: boolean;
  /** While set, a request it is true of is left waiting too, until `answerHeld`. */
  hold: ((request: ModelRequest) => boolean) | undefined;
  /** Resolves at the next request that is being held. */
  nextHeld(): Promise<void>;
  /** Answers the requests `hold` held, as it would have at once. */
  answerHeld(): void;
  close(): Promise<void>;
}

/**
 * A model on loopback in `format` (JSON, as the API answers a request that
 * does not stream): asked with no tool result in the conversation, it calls
 * the shell once per command under fresh random ids (hostile ones when
 * `hostileId` gives them); asked with a result, it answers with text
 * (`answers.interrupted` when the conversation says a call was interrupted).
 *
 * @example
 * const model = await startRandomIdModel({ commands: ['echo ran >> calls.log'] });
 * await startServerProcess({ project, model: `openai-compatible:llama3.2`, env: model.format.env(model.baseUrl) });
 */
export async function startRandomIdModel(options: { format?: WireFormat; commands: string[]; hostileId?: () => string; answers?: { done: string; interrupted: string } }): Promise<RandomIdModel> {
  const format = options.format ?? openAIChat;
  const answers = options.answers ?? { done: 'Appended the line.', interrupted: 'The call was interrupted.' };
  const requests: ModelRequest[] = [];
  const ids: string[] = [];
  let onHeld: (() => void) | undefined;
  const state: { holdAfterResult: boolean; hold: ((request: ModelRequest) => boolean) | undefined } = { holdAfterResult: false, hold: undefined };
  const held: Array<() => void> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const hasToolResult = format.holdsToolResult(JSON.parse(text) as Record<string, unknown>);
      requests.push({ hasToolResult, text });
      if (hasToolResult && state.holdAfterResult) {
        onHeld?.();
        return;
      }
      if (state.hold?.({ hasToolResult, text }) === true) {
        held.push(() => answer(hasToolResult, text, response));
        onHeld?.();
        return;
      }
      answer(hasToolResult, text, response);
    });
  });
  function answer(hasToolResult: boolean, text: string, response: ServerResponse): void {
    let turn: WireTurn;
    if (hasToolResult) turn = { text: text.includes('interrupted') ? answers.interrupted : answers.done };
    else {
      const calls = options.commands.map((command) => {
        const id = options.hostileId?.() ?? `call_${randomBytes(12).toString('base64url')}`;
        ids.push(id);
        return { id, name: 'shell', args: { command } };
      });
      turn = { toolCalls: calls };
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(format.answer(turn)));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    format,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    ids,
    get holdAfterResult() {
      return state.holdAfterResult;
    },
    set holdAfterResult(value: boolean) {
      state.holdAfterResult = value;
    },
    get hold() {
      return state.hold;
    },
    set hold(value: ((request: ModelRequest) => boolean) | undefined) {
      state.hold = value;
    },
    nextHeld: () => new Promise<void>((resolve) => (onHeld = resolve)),
    answerHeld: () => {
      for (const send of held.splice(0)) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The model id each wire format's provider is asked for. */
const MODEL_OF: Record<WireFormat['provider'], string> = { 'openai-compatible': 'llama3.2', openai: 'gpt-4o', anthropic: 'claude-sonnet-4-5' };

/**
 * What `startServerProcess` needs to drive its runs with `model`: the model
 * id (`provider:name`) and the environment that points the provider at it.
 *
 * @example
 * const server = await startServerProcess({ project, ...servedBy(model) });
 */
export function servedBy(model: RandomIdModel): { model: string; env: Record<string, string> } {
  return { model: `${model.format.provider}:${MODEL_OF[model.format.provider]}`, env: model.format.env(model.baseUrl) };
}
