/**
 * A model provider on loopback for end-to-end tests: a real node:http server
 * on 127.0.0.1 that answers each POST with the next reply of a recorded
 * exchange (server-sent events, or an HTTP error), and keeps every request
 * it received so that a test can assert on what the model was sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One server-sent event: `event:` (Anthropic, OpenAI Responses) is optional; `data` is JSON, or a literal such as `[DONE]`. */
export interface SseEvent {
  event?: string;
  data: unknown;
}

export type WireReply =
  /** A streamed answer; `hangUp` destroys the socket after the events instead of ending the response cleanly. */
  | { kind: 'sse'; events: SseEvent[]; hangUp?: boolean }
  | { kind: 'json'; status: number; body: unknown };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** The raw body, to search for text anywhere in what the model was sent. */
  text: string;
}

export interface WireServer {
  /** `http://127.0.0.1:PORT/v1`, the base URL to give the provider. */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * Starts the server. A request past the end of `replies` gets HTTP 500 (and
 * the test sees the run fail), so an exchange never silently loops.
 *
 * @example
 * const server = await startWireServer({ replies: [openAIChat.turn({ text: 'hi' })] });
 */
export async function startWireServer(options: { replies: WireReply[] }): Promise<WireServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // Recorded as text only.
      }
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body, text });
      const reply = options.replies[requests.length - 1];
      if (reply === undefined) {
        response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `the recorded exchange has no reply #${requests.length}` } }));
        return;
      }
      send(response, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A base URL on loopback where nothing listens: a port that was free a moment ago. */
export async function unusedBaseUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

function send(response: ServerResponse, reply: WireReply): void {
  if (reply.kind === 'json') {
    response.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const text = reply.events
    .map((event) => `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n\n`)
    .join('');
  if (reply.hangUp !== true) {
    response.end(text);
    return;
  }
  // The events reach the client first; then the connection drops without the stream's end.
  response.write(text, () => setTimeout(() => response.socket?.destroy(), 50));
}
