/**
 * What keeps a web page on another site from talking to the server through
 * a person's browser. No CORS headers are ever sent, so a cross-site page
 * cannot read a response; and before anything else:
 * - `Host` must be one the server answers to: a page on evil.example whose
 *   name was re-pointed at 127.0.0.1 (DNS rebinding) sends `Host:
 *   evil.example:8787` and gets 421;
 * - an `Origin`, when sent (browsers send it on every POST, and on
 *   cross-origin requests), must be this server: http(s)://<allowed host>;
 * - `Sec-Fetch-Site` (sent by current browsers), when present, must say the
 *   request came from this origin or from the person (`none`).
 * Tokens travel only in `Authorization`, never in cookies, so a request a
 * browser sends on its own carries no credentials anyway.
 */
import type { MiddlewareHandler } from 'hono';
import type { ServerEnv } from './server-env.ts';
import { requestHeader } from './node-request.ts';

/**
 * The `Host` values of a server bound to `host`:`port`: that, and for a
 * loopback address the other loopback names. A server bound to 0.0.0.0 (or
 * a name) must list the names its clients use.
 *
 * @example
 * defaultAllowedHosts({ host: '127.0.0.1', port: 8787 }) // ['127.0.0.1:8787', 'localhost:8787', '[::1]:8787']
 */
export function defaultAllowedHosts(options: { host: string; port: number }): string[] {
  const host = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  const names = LOOPBACK_NAMES.has(host) ? ['127.0.0.1', 'localhost', '[::1]'] : [];
  return [...new Set([host, ...names])].map((name) => `${name}:${options.port}`.toLowerCase());
}

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** `/decide/TOKEN`, the page a one-tap link opens (not its view or its POST). */
const LINK_PAGE = /^\/decide\/[A-Za-z0-9_.-]+$/;

/**
 * The middleware. `allowedHosts` (`host:port`, as clients send `Host`) is
 * read at every request, so a caller that learns its port only after
 * listening (port 0) can fill it in then.
 *
 * @example
 * app.use('*', browserGuard({ allowedHosts }));
 */
export function browserGuard(options: { allowedHosts: readonly string[] }): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const allowed = new Set(options.allowedHosts.map((host) => host.toLowerCase()));
    const host = requestHeader(c, 'host')?.toLowerCase();
    if (host === undefined || !allowed.has(host)) {
      return c.json({ error: `host ${JSON.stringify(host ?? '')} is not one this server answers to (a DNS rebinding attempt, or a name missing from the server's allowed hosts)` }, 421);
    }
    const origin = requestHeader(c, 'origin');
    if (origin !== undefined && !isAllowedOrigin(origin, allowed)) {
      return c.json({ error: `cross-origin request refused: origin ${JSON.stringify(origin)} is not this server` }, 403);
    }
    const site = requestHeader(c, 'sec-fetch-site');
    // A one-tap link's page is opened from a mail or a chat (cross-site): it is static and decides nothing; its POST comes from the page itself.
    const linkPage = (c.req.method === 'GET' || c.req.method === 'HEAD') && LINK_PAGE.test(c.req.path);
    if (site !== undefined && site !== 'same-origin' && site !== 'none' && !linkPage) {
      return c.json({ error: `cross-site request refused (Sec-Fetch-Site: ${site})` }, 403);
    }
    await next();
  };
}

function isAllowedOrigin(origin: string, allowed: ReadonlySet<string>): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (sandboxed frames, file: pages) and anything else unparsable
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.origin.toLowerCase() !== origin.toLowerCase().replace(/\/$/, '')) return false; // an origin has no path, user or query
  return allowed.has(url.host.toLowerCase());
}
