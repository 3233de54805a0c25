import type { Readable, Writable } from 'node:stream';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createJsonLineReader } from './json-line-reader.ts';

/**
 * The server side of MCP's stdio framing for the gateway: the SDK's
 * `StdioServerTransport`, reading with `createJsonLineReader` (no second
 * schema check of every message), and closing when its input ends — the
 * client going away is how a stdio server learns to stop.
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
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#closed) {
        reject(new Error('the client has gone'));
        return;
      }
      if (this.#output.write(serializeMessage(message))) resolve();
      else this.#output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#onData);
    this.#input.off('error', this.#onError);
    this.#input.off('end', this.#onEnd);
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#reader.clear();
    this.onclose?.();
  }
}
