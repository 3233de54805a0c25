/**
 * Reads a request's JSON body, or answers why not: 415 unless it is
 * `application/json`, 413 past the size limit (counted as it arrives, not
 * taken from Content-Length on trust), 400 for bytes that are not UTF-8 or
 * text that is not JSON, or JSON nested deeper than any request needs
 * (which would otherwise overflow the stack of whatever walks it later and
 * answer 500), naming the problem.
 */
import type { Context } from 'hono';
import { ApiError } from '../run-service.ts';
import { bodyReader, requestHeader, type BodyReader } from './node-request.ts';
import type { ServerEnv } from './server-env.ts';

/** The default body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** How deeply arrays and objects may nest in a request body (edited arguments included). */
export const MAX_JSON_DEPTH = 64;

/**
 * The parsed body, also kept for `verbose_logging`. With `optional`, a
 * request without a body reads as `{}` (a cancel needs none).
 *
 * @example
 * const body = await readJsonBody({ context: c, maxBytes: DEFAULT_MAX_BODY_BYTES });
 */
export async function readJsonBody(options: { context: Context<ServerEnv>; maxBytes: number; optional?: boolean }): Promise<unknown> {
  const { context, maxBytes } = options;
  const length = requestHeader(context, 'content-length');
  const hasBody = requestHeader(context, 'transfer-encoding') !== undefined || (length !== undefined && length !== '0');
  if (!hasBody && options.optional === true) return {};
  const type = requestHeader(context, 'content-type');
  const mediaType = type?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new ApiError(415, `request body must be JSON: send Content-Type: application/json${type === undefined ? ' (none was sent)' : ` (got ${JSON.stringify(type)})`}`);
  }
  const reader = hasBody ? bodyReader(context) : undefined;
  if (length !== undefined && Number(length) > maxBytes) {
    if (reader !== undefined) await drain(reader, maxBytes);
    throw tooLarge(maxBytes);
  }
  const bytes = reader === undefined ? new Uint8Array(0) : await readLimited(reader, maxBytes);
  if (bytes.length === 0) throw new ApiError(400, 'request body is empty: send a JSON object');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError(400, 'request body is not valid UTF-8');
  }
  const depth = jsonDepthOver(text, MAX_JSON_DEPTH);
  if (depth !== undefined) {
    throw new ApiError(400, `request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`, { limit: MAX_JSON_DEPTH });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, `malformed JSON in request body: ${(error as Error).message}`);
  }
  context.set('requestBody', parsed);
  return parsed;
}

/**
 * A request's body as UTF-8 text of the given media type, at most
 * `maxBytes` (counted as it arrives): what a signature is checked over
 * (Slack signs the raw form body). 415, 413 and 400 as `readJsonBody`.
 *
 * @example
 * const raw = await readTextBody({ context: c, maxBytes: 64 * 1024, mediaType: 'application/x-www-form-urlencoded' });
 */
export async function readTextBody(options: { context: Context<ServerEnv>; maxBytes: number; mediaType: string }): Promise<string> {
  const { context, maxBytes } = options;
  const type = requestHeader(context, 'content-type');
  if (type?.split(';')[0]?.trim().toLowerCase() !== options.mediaType) {
    throw new ApiError(415, `request body must be ${options.mediaType}${type === undefined ? ' (no Content-Type was sent)' : ` (got ${JSON.stringify(type)})`}`);
  }
  const length = requestHeader(context, 'content-length');
  const reader = bodyReader(context);
  if (reader === undefined) throw new ApiError(400, 'request body is empty');
  if (length !== undefined && Number(length) > maxBytes) {
    await drain(reader, maxBytes);
    throw tooLarge(maxBytes);
  }
  const bytes = await readLimited(reader, maxBytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError(400, 'request body is not valid UTF-8');
  }
}

/**
 * Whether `text` opens more than `limit` arrays or objects at once (brackets
 * inside strings do not count): the depth first reached past the limit, or
 * undefined. A scan of the text, so nothing recursive ever sees a deep body.
 *
 * @example
 * jsonDepthOver('[[1]]', 1) // 2
 * jsonDepthOver('{"a":"[[["}', 1) // undefined
 */
export function jsonDepthOver(text: string, limit: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++; // a backslash escapes the next character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return depth;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return undefined;
}

async function readLimited(reader: BodyReader, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await reader.read(); chunk !== undefined; chunk = await reader.read()) {
    size += chunk.length;
    if (size > maxBytes) {
      await drain(reader, maxBytes);
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  const result = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    result.set(chunk, offset);
    offset += chunk.length;
  }
  return result;
}

/**
 * Reads and drops the rest of an oversized body (up to 16 times the limit),
 * so that a client still sending it reads the 413 rather than a reset
 * connection (fetch reports "other side closed" otherwise). Past that, the
 * connection is cut.
 */
async function drain(reader: BodyReader, maxBytes: number): Promise<void> {
  let dropped = 0;
  try {
    for (let chunk = await reader.read(); chunk !== undefined; chunk = await reader.read()) {
      dropped += chunk.length;
      if (dropped > maxBytes * 16) break;
    }
    if (dropped <= maxBytes * 16) return;
  } catch {
    return;
  }
  await reader.cancel();
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, `request body is larger than the limit of ${maxBytes} bytes`, { limit: maxBytes });
}
