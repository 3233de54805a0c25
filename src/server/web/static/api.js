/**
 * The inbox's side of the HTTP API: the token (from the login URL's
 * fragment, kept in sessionStorage, never in a cookie), fetch with
 * `Authorization: Bearer`, JSON errors as messages, and an event stream read
 * with fetch that reconnects with `Last-Event-ID` after a drop.
 */
import { createSseParser } from './sse-parser.js';

const TOKEN_KEY = 'toolgate-token';

/**
 * Takes the token from `#token=...` (the login URL), keeps it for this tab
 * and removes it from the address bar; returns the token to use, or null.
 */
export function takeToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromUrl = fragment.get('token');
  if (fromUrl !== null && fromUrl !== '') {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    history.replaceState(null, '', '/');
  } else if (location.pathname === '/login') {
    history.replaceState(null, '', `/${location.hash}`);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

export function storeToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

function token() {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/** An answer the server refused: its status and its `{"error": ...}` text. */
export class ApiFailure extends Error {
  constructor(status, message, body) {
    super(message);
    this.name = 'ApiFailure';
    this.status = status;
    this.body = body;
  }
}

/** Called when the token is refused (401): the page asks for another. */
let onUnauthorized = () => {};
export function whenUnauthorized(callback) {
  onUnauthorized = callback;
}

/**
 * A JSON request to the API; resolves to the parsed body, rejects with an ApiFailure.
 *
 * @example
 * const { approvals } = await api('GET', '/approvals');
 */
export async function api(method, path, body) {
  const headers = { Authorization: `Bearer ${token()}`, Accept: 'application/json' };
  const init = { method, headers, cache: 'no-store', credentials: 'omit' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiFailure(0, `the server cannot be reached (${error instanceof Error ? error.message : String(error)})`, null);
  }
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (response.status === 401) onUnauthorized();
  if (!response.ok) {
    const message = parsed !== null && typeof parsed.error === 'string' ? parsed.error : `${response.status} ${response.statusText}`;
    throw new ApiFailure(response.status, message, parsed);
  }
  return parsed;
}

/**
 * Follows an SSE endpoint until `signal` aborts: each event's parsed
 * `{type, data}` goes to `onEvent`; after a drop it reconnects (with a
 * growing pause) sending `Last-Event-ID`, so nothing is missed or repeated.
 * `onState` hears 'connecting', 'live', 'reconnecting' and 'refused'.
 *
 * @example
 * followEvents({ path: '/events', onEvent: handle, onState: showState, signal: controller.signal });
 */
export async function followEvents({ path, onEvent, onState, onOpen, signal }) {
  let lastId = '';
  let pause = 500;
  while (!signal.aborted) {
    onState(lastId === '' ? 'connecting' : 'reconnecting');
    try {
      const headers = { Authorization: `Bearer ${token()}`, Accept: 'text/event-stream' };
      if (lastId !== '') headers['Last-Event-ID'] = lastId;
      const response = await fetch(path, { headers, signal, cache: 'no-store', credentials: 'omit' });
      if (response.status === 401) {
        onUnauthorized();
        onState('refused');
        return;
      }
      if (!response.ok || response.body === null) throw new Error(`status ${response.status}`);
      onState('live');
      pause = 500;
      if (onOpen !== undefined) onOpen();
      const parser = createSseParser((event) => {
        lastId = event.id;
        let message;
        try {
          message = JSON.parse(event.data);
        } catch {
          return;
        }
        if (message !== null && typeof message === 'object' && typeof message.type === 'string') onEvent(message, event.id);
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.push(value);
      }
    } catch (error) {
      if (signal.aborted) return;
      void error;
    }
    if (signal.aborted) return;
    onState('reconnecting');
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 10_000);
  }
}
