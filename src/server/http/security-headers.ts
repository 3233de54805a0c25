/**
 * Headers on every response: a Content-Security-Policy without inline script
 * or anything from elsewhere (a tool argument rendered as HTML by mistake
 * still cannot run), no sniffing, no referrer, no caching of API answers,
 * and no framing. Never any Access-Control-* header: no CORS.
 */
import type { MiddlewareHandler } from 'hono';
import type { ServerEnv } from './server-env.ts';

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Content-Security-Policy', CONTENT_SECURITY_POLICY],
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Frame-Options', 'DENY'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Cache-Control', 'no-store'],
];

/**
 * The middleware; it runs outermost, so error answers get the headers too.
 *
 * @example
 * app.use('*', securityHeaders());
 */
export function securityHeaders(): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    for (const [name, value] of HEADERS) headers.set(name, value);
    for (const name of [...headers.keys()]) if (name.toLowerCase().startsWith('access-control-')) headers.delete(name);
  };
}
