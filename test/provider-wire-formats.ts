/**
 * The three wire formats toolgate's providers speak, as their servers stream
 * them, built from one description of a model turn. The event shapes follow
 * recorded traffic of each API (ids, sequence numbers, usage, pings,
 * arguments split across deltas), so that the AI SDK's real parsers run on
 * them: OpenAI chat completions (`openai-compatible:`: Ollama, vLLM, LM
 * Studio), the OpenAI Responses API (what `openai:` calls in AI SDK 7) and
 * Anthropic messages.
 */
import type { SseEvent, WireReply } from './provider-wire-server.ts';

export interface WireToolCall {
  id: string;
  name: string;
  /** The arguments; a string is sent as it is (a model that writes broken JSON). */
  args: Record<string, unknown> | string;
  /** OpenAI Responses only: the tool's namespace (Codex offers each MCP server's tools as `mcp__<server>`). */
  namespace?: string;
}

function argumentText(call: WireToolCall): string {
  return typeof call.args === 'string' ? call.args : JSON.stringify(call.args);
}

export interface WireTurn {
  text?: string;
  toolCalls?: WireToolCall[];
  /** After the text, the server reports an error in the stream (as each API does), and the stream ends. */
  streamError?: { message: string; type: string };
}

export interface WireFormat {
  /** The provider part of the model id. */
  provider: 'openai-compatible' | 'openai' | 'anthropic';
  /** The endpoint the provider posts to, under the base URL. */
  path: string;
  /** The environment that gives this provider its key and the loopback server. */
  env(baseUrl: string): Record<string, string>;
  turn(turn: WireTurn): WireReply;
  /** The same turn as the API answers a request that does not stream (what `generateText` asks for): the JSON body. */
  answer(turn: WireTurn): Record<string, unknown>;
  /** Whether a request's body holds the result of a tool call (the conversation has come back from a call). */
  holdsToolResult(body: Record<string, unknown>): boolean;
  /** The server refusing the request, with the API's own error body. */
  httpError(status: number, message: string): WireReply;
}

/** Splits text the way servers stream it: a few characters per delta. */
function pieces(text: string, size = 7): string[] {
  const parts: string[] = [];
  for (let index = 0; index < text.length; index += size) parts.push(text.slice(index, index + size));
  return parts.length === 0 ? [''] : parts;
}

const CREATED = 1_764_000_000;

export const openAIChat: WireFormat = {
  provider: 'openai-compatible',
  path: '/v1/chat/completions',
  env: (baseUrl) => ({ TOOLGATE_BASE_URL: baseUrl }),
  turn(turn) {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      data: { id: 'chatcmpl-872', object: 'chat.completion.chunk', created: CREATED, model: 'llama3.2', system_fingerprint: 'fp_ollama', choices: [{ index: 0, delta, finish_reason: finish }] },
    });
    const events: SseEvent[] = [chunk({ role: 'assistant', content: '' })];
    for (const part of turn.text === undefined ? [] : pieces(turn.text)) events.push(chunk({ content: part }));
    if (turn.streamError !== undefined) {
      events.push({ data: { error: { message: turn.streamError.message, type: turn.streamError.type, param: null, code: null } } });
      return { kind: 'sse', events };
    }
    (turn.toolCalls ?? []).forEach((call, index) => {
      events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      for (const part of pieces(argumentText(call))) events.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    });
    events.push(chunk({}, turn.toolCalls === undefined ? 'stop' : 'tool_calls'));
    events.push({ data: { id: 'chatcmpl-872', object: 'chat.completion.chunk', created: CREATED, model: 'llama3.2', choices: [], usage: { prompt_tokens: 412, completion_tokens: 31, total_tokens: 443 } } });
    events.push({ data: '[DONE]' });
    return { kind: 'sse', events };
  },
  answer(turn) {
    const calls = (turn.toolCalls ?? []).map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: argumentText(call) } }));
    const message = { role: 'assistant', content: turn.text ?? null, ...(calls.length === 0 ? {} : { tool_calls: calls }) };
    return {
      id: 'chatcmpl-872',
      object: 'chat.completion',
      created: CREATED,
      model: 'llama3.2',
      system_fingerprint: 'fp_ollama',
      choices: [{ index: 0, message, finish_reason: calls.length === 0 ? 'stop' : 'tool_calls' }],
      usage: { prompt_tokens: 412, completion_tokens: 31, total_tokens: 443 },
    };
  },
  holdsToolResult: (body) => listOf(body.messages).some((message) => message.role === 'tool'),
  httpError: (status, message) => ({ kind: 'json', status, body: { error: { message, type: status === 401 ? 'invalid_request_error' : 'server_error', param: null, code: status === 401 ? 'invalid_api_key' : null } } }),
};

function listOf(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null) : [];
}

export const openAIResponses: WireFormat = {
  provider: 'openai',
  path: '/v1/responses',
  env: (baseUrl) => ({ OPENAI_API_KEY: 'sk-test-wire', OPENAI_BASE_URL: baseUrl }),
  turn(turn) {
    let sequence = 0;
    const event = (type: string, fields: Record<string, unknown>): SseEvent => ({ event: type, data: { type, sequence_number: sequence++, ...fields } });
    const response = { id: 'resp_68c1', object: 'response', created_at: CREATED, status: 'in_progress', model: 'gpt-4o-2024-08-06', output: [], service_tier: 'default' };
    const events: SseEvent[] = [event('response.created', { response }), event('response.in_progress', { response })];
    let outputIndex = 0;
    if (turn.text !== undefined) {
      const item = { type: 'message', id: 'msg_68c1', status: 'in_progress', role: 'assistant', content: [] };
      events.push(event('response.output_item.added', { output_index: outputIndex, item }));
      events.push(event('response.content_part.added', { item_id: item.id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
      for (const part of pieces(turn.text)) events.push(event('response.output_text.delta', { item_id: item.id, output_index: outputIndex, content_index: 0, delta: part, logprobs: [] }));
      if (turn.streamError !== undefined) {
        events.push(event('error', { code: turn.streamError.type, message: turn.streamError.message, param: null }));
        return { kind: 'sse', events };
      }
      events.push(event('response.output_text.done', { item_id: item.id, output_index: outputIndex, content_index: 0, text: turn.text, logprobs: [] }));
      events.push(event('response.output_item.done', { output_index: outputIndex, item: { ...item, status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] } }));
      outputIndex++;
    }
    for (const call of turn.toolCalls ?? []) {
      const item = { type: 'function_call', id: `fc_${call.id}`, call_id: call.id, name: call.name, ...(call.namespace === undefined ? {} : { namespace: call.namespace }), arguments: '', status: 'in_progress' };
      events.push(event('response.output_item.added', { output_index: outputIndex, item }));
      const args = argumentText(call);
      for (const part of pieces(args)) events.push(event('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta: part }));
      events.push(event('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, arguments: args }));
      events.push(event('response.output_item.done', { output_index: outputIndex, item: { ...item, arguments: args, status: 'completed' } }));
      outputIndex++;
    }
    events.push(
      event('response.completed', {
        response: { ...response, status: 'completed', incomplete_details: null, usage: { input_tokens: 412, input_tokens_details: { cached_tokens: 0 }, output_tokens: 31, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 443 } },
      }),
    );
    return { kind: 'sse', events };
  },
  answer(turn) {
    const output: unknown[] = [];
    if (turn.text !== undefined) output.push({ type: 'message', id: 'msg_68c1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: turn.text, annotations: [] }] });
    (turn.toolCalls ?? []).forEach((call, index) => output.push({ type: 'function_call', id: `fc_68c1_${index}`, call_id: call.id, name: call.name, arguments: argumentText(call), status: 'completed' }));
    return {
      id: 'resp_68c1',
      object: 'response',
      created_at: CREATED,
      status: 'completed',
      model: 'gpt-4o-2024-08-06',
      output,
      incomplete_details: null,
      service_tier: 'default',
      usage: { input_tokens: 412, input_tokens_details: { cached_tokens: 0 }, output_tokens: 31, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 443 },
    };
  },
  holdsToolResult: (body) => listOf(body.input).some((item) => item.type === 'function_call_output'),
  httpError: (status, message) => ({ kind: 'json', status, body: { error: { message, type: 'invalid_request_error', param: null, code: status === 401 ? 'invalid_api_key' : null } } }),
};

export const anthropicMessages: WireFormat = {
  provider: 'anthropic',
  path: '/v1/messages',
  env: (baseUrl) => ({ ANTHROPIC_API_KEY: 'sk-ant-test-wire', ANTHROPIC_BASE_URL: baseUrl }),
  turn(turn) {
    const event = (type: string, fields: Record<string, unknown>): SseEvent => ({ event: type, data: { type, ...fields } });
    const events: SseEvent[] = [
      event('message_start', {
        message: { id: 'msg_01XF', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 412, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } },
      }),
      event('ping', {}),
    ];
    let index = 0;
    if (turn.text !== undefined) {
      events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const part of pieces(turn.text)) events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: part } }));
      if (turn.streamError !== undefined) {
        events.push(event('error', { error: { type: turn.streamError.type, message: turn.streamError.message } }));
        return { kind: 'sse', events };
      }
      events.push(event('content_block_stop', { index }));
      index++;
    }
    for (const call of turn.toolCalls ?? []) {
      events.push(event('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }));
      events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }));
      for (const part of pieces(argumentText(call))) events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } }));
      events.push(event('content_block_stop', { index }));
      index++;
    }
    events.push(event('message_delta', { delta: { stop_reason: turn.toolCalls === undefined ? 'end_turn' : 'tool_use', stop_sequence: null }, usage: { output_tokens: 31 } }));
    events.push(event('message_stop', {}));
    return { kind: 'sse', events };
  },
  answer(turn) {
    const content: unknown[] = [];
    if (turn.text !== undefined) content.push({ type: 'text', text: turn.text });
    for (const call of turn.toolCalls ?? []) content.push({ type: 'tool_use', id: call.id, name: call.name, input: typeof call.args === 'string' ? JSON.parse(call.args) : call.args });
    return {
      id: 'msg_01XF',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content,
      stop_reason: turn.toolCalls === undefined ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 412, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 31 },
    };
  },
  holdsToolResult: (body) => listOf(body.messages).some((message) => listOf(message.content).some((block) => block.type === 'tool_result')),
  httpError: (status, message) => ({ kind: 'json', status, body: { type: 'error', error: { type: status === 401 ? 'authentication_error' : 'api_error', message } } }),
};

export const WIRE_FORMATS = [openAIChat, openAIResponses, anthropicMessages] as const;
