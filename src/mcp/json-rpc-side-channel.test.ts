import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { attachSideChannel } from './json-rpc-side-channel.ts';

/** A transport that records what is sent and lets the test answer. */
function fakeTransport() {
  const sent: JSONRPCMessage[] = [];
  const seenByClient: JSONRPCMessage[] = [];
  const transport: Transport = {
    start: async () => undefined,
    close: async () => undefined,
    send: async (message) => void sent.push(message),
    onmessage: (message) => void seenByClient.push(message),
  };
  return { transport, sent, seenByClient, answer: (message: Record<string, unknown>) => transport.onmessage!({ jsonrpc: '2.0', ...message } as JSONRPCMessage) };
}

const idOf = (message: JSONRPCMessage) => (message as { id: string }).id;
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('attachSideChannel', () => {
  it('resolves with the result and leaves other messages to the Client', async () => {
    const { transport, sent, seenByClient, answer } = fakeTransport();
    const channel = attachSideChannel(transport);
    const reply = channel.request({ method: 'tools/call', params: { name: 'echo' }, timeoutMs: 60_000 });
    expect(sent).toHaveLength(1);
    answer({ id: 42, result: {} });
    answer({ id: idOf(sent[0]!), result: { content: [] } });
    await expect(reply).resolves.toEqual({ content: [] });
    expect(seenByClient).toEqual([{ jsonrpc: '2.0', id: 42, result: {} }]);
  });

  it('times each request out on its own deadline, cancelling it upstream, whatever the order', async () => {
    const { transport, sent } = fakeTransport();
    const channel = attachSideChannel(transport);
    const started = performance.now();
    const settled: string[] = [];
    const slow = channel.request({ method: 'tools/call', params: { name: 'slow' }, timeoutMs: 300 }).finally(() => settled.push('slow'));
    const fast = channel.request({ method: 'tools/call', params: { name: 'fast' }, timeoutMs: 60 }).finally(() => settled.push('fast'));
    const fastError = await fast.catch((error: unknown) => error);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(settled).toEqual(['fast']);
    expect(fastError).toBeInstanceOf(McpError);
    expect((fastError as McpError).code).toBe(ErrorCode.RequestTimeout);
    const slowError = await slow.catch((error: unknown) => error);
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    expect((slowError as McpError).code).toBe(ErrorCode.RequestTimeout);
    const cancelled = sent.filter((message) => (message as { method?: string }).method === 'notifications/cancelled');
    expect(cancelled.map((message) => (message as unknown as { params: { requestId: string } }).params.requestId)).toEqual([idOf(sent[1]!), idOf(sent[0]!)]);
  });

  it('keeps the process alive only while a request is in flight', async () => {
    const { transport, sent, answer } = fakeTransport();
    const channel = attachSideChannel(transport);
    const before = timers();
    const reply = channel.request({ method: 'tools/call', params: { name: 'echo' }, timeoutMs: 60_000 });
    expect(timers()).toBe(before + 1);
    answer({ id: idOf(sent[0]!), result: {} });
    await reply;
    expect(timers()).toBe(before);
    // A later request is guarded again by the same timer.
    const again = channel.request({ method: 'tools/call', params: { name: 'echo' }, timeoutMs: 50 });
    expect(timers()).toBe(before + 1);
    await expect(again).rejects.toMatchObject({ code: ErrorCode.RequestTimeout });
  });

  it('rejects with the abort reason and cancels upstream; a late answer is dropped', async () => {
    const { transport, sent, seenByClient, answer } = fakeTransport();
    const channel = attachSideChannel(transport);
    const controller = new AbortController();
    const reply = channel.request({ method: 'tools/call', params: { name: 'echo' }, timeoutMs: 60_000, signal: controller.signal });
    controller.abort(new Error('the client went away'));
    await expect(reply).rejects.toThrow('the client went away');
    expect(sent[1]).toMatchObject({ method: 'notifications/cancelled', params: { requestId: idOf(sent[0]!) } });
    answer({ id: idOf(sent[0]!), result: {} });
    expect(seenByClient).toEqual([]);
  });

  it('rejects every request in flight when the connection closes, and every later one', async () => {
    const { transport } = fakeTransport();
    const channel = attachSideChannel(transport);
    const reply = channel.request({ method: 'tools/call', params: { name: 'echo' }, timeoutMs: 60_000 });
    transport.onclose!();
    await expect(reply).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    await expect(channel.request({ method: 'tools/call', params: { name: 'echo' }, timeoutMs: 60_000 })).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
  });
});
