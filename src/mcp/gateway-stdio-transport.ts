import type { Readable, Writable } from 'node:stream';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createJsonLineReader } from './json-line-reader.ts';

/**
 * The server side of MCP's stdio framing for the gateway: the SDK's
 * `StdioServerTransport`, reading with `createJsonLineReader` (no second
 * schema check of every message), and closing when its input ends or its
 * output breaks — the client going away is how a stdio server learns to
 * stop, and a closed pipe (EPIPE) is that, never a crash.
 *
 * @example
 * await gateway.connect(new GatewayStdioTransport({ input: process.stdin, output: process.stdout }));
 */
export class GatewayStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #input: Readable;
  #output: Writable;
  #started = false;
  #closed = false;
  #reader = createJsonLineReader({ onMessage: (message) => this.onmessage?.(message), onError: (error) => this.onerror?.(error) });
  #onData = (chunk: Buffer) => this.#reader.append(chunk);
  #onError = (error: Error) => this.onerror?.(error);
  #onEnd = () => void this.close();
  // The client closed its end: what was being written is lost, and the session is over.
  #onOutputError = () => void this.close();

  constructor(options: { input: Readable; output: Writable }) {
    this.#input = options.input;
    this.#output = options.output;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('GatewayStdioTransport already started');
    this.#started = true;
    this.#input.on('data', this.#onData);
    this.#input.on('error', this.#onError);
    this.#input.on('end', this.#onEnd);
    this.#output.on('error', this.#onOutputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#closed) {
        reject(new Error('the client has gone'));
        return;
      }
      if (this.#output.destroyed || !this.#output.writable) {
        reject(new Error('the client has gone'));
        void this.close();
        return;
      }
      // The callback, unlike 'drain', also fires when the pipe broke: the send fails instead of hanging.
      this.#output.write(serializeMessage(message), (error) => (error === undefined || error === null ? resolve() : reject(new Error(`the client has gone (${error.message})`))));
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#onData);
    this.#input.off('error', this.#onError);
    this.#input.off('end', this.#onEnd);
    // Kept on the output: a write still in flight may yet report the broken pipe, and it must not be unhandled.
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#reader.clear();
    this.onclose?.();
  }
}
