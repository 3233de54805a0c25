/**
 * Reading a request's headers and body straight from Node's
 * `IncomingMessage` when the app is served by `@hono/node-server` (which
 * hands it over as `c.env.incoming`). Asking Hono for a header or the body
 * makes the adapter build a whole web `Request` (undici `Headers`, a
 * `ReadableStream` over the socket), which costs more than the approval the
 * request carries. Values are the same as the web `Request` gives: every
 * occurrence of a header, joined by ", ". Apps mounted elsewhere (no
 * `incoming`) read the web `Request` as before.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

function incomingOf(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return typeof incoming === 'object' && incoming !== null && 'rawHeaders' in incoming ? (incoming as IncomingMessage) : undefined;
}

/**
 * A request header (any case), or undefined when it was not sent.
 *
 * @example
 * const host = requestHeader(c, 'host');
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = incomingOf(c);
  if (incoming === undefined) return c.req.header(name);
  const raw = incoming.rawHeaders;
  let value: string | undefined;
  for (let index = 0; index < raw.length; index += 2) {
    if (raw[index]!.length !== name.length || raw[index]!.toLowerCase() !== name) continue;
    value = value === undefined ? raw[index + 1]! : `${value}, ${raw[index + 1]!}`;
  }
  return value;
}

/** A request body, read a chunk at a time. */
export interface BodyReader {
  /** The next chunk, or undefined at the end. */
  read(): Promise<Uint8Array | undefined>;
  /** Stops reading: the rest is not wanted (the connection may be cut). */
  cancel(): Promise<void>;
}

/**
 * The request's body as it arrives, or undefined when the request has none.
 *
 * @example
 * const reader = bodyReader(c);
 * for (let chunk = await reader?.read(); chunk !== undefined; chunk = await reader!.read()) size += chunk.length;
 */
export function bodyReader(c: Context): BodyReader | undefined {
  const incoming = incomingOf(c);
  if (incoming === undefined) {
    const body = c.req.raw.body;
    if (body === null) return undefined;
    const reader = body.getReader();
    return {
      read: async () => (await reader.read()).value,
      cancel: () => reader.cancel().catch(() => {}),
    };
  }
  const chunks = incoming[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return {
    read: async () => {
      const next = await chunks.next();
      return next.done === true ? undefined : next.value;
    },
    cancel: async () => {
      incoming.destroy();
    },
  };
}
