/**
 * The web inbox's page (`GET /` and `GET /login`) and its files
 * (`/assets/*`), from the build's asset map. They need no token: they are
 * the same static files for everyone and hold no data; the page then calls
 * the API with the token the login URL gave it. The strict CSP
 * (security-headers) applies to them as to everything.
 */
import type { Context, Hono } from 'hono';
import type { ServerEnv } from './server-env.ts';

/** One file of the inbox: what `webAssets()` (src/server/web) maps each URL path to. */
export interface WebAsset {
  body: Buffer | string;
  contentType: string;
}

export type WebAssets = ReadonlyMap<string, WebAsset>;

/**
 * Registers the inbox routes on `app`. `/login` is the page itself unless
 * the assets hold a page of that name. Without assets (a build without the
 * inbox) they answer 404 saying so.
 *
 * @example
 * registerWebRoutes({ app, web: webAssets() });
 */
export function registerWebRoutes(options: { app: Hono<ServerEnv>; web: WebAssets | undefined }): void {
  const { app, web } = options;
  const serve = (c: Context<ServerEnv>, paths: readonly string[]) => {
    if (web === undefined) return c.json({ error: 'the web inbox is not part of this build' }, 404);
    const asset = paths.map((path) => web.get(path)).find((candidate) => candidate !== undefined);
    if (asset === undefined) return c.json({ error: `no route GET ${c.req.path.slice(0, 200)}` }, 404);
    const body = typeof asset.body === 'string' ? asset.body : new Uint8Array(asset.body);
    return c.body(body, 200, { 'Content-Type': asset.contentType });
  };
  app.get('/', (c) => serve(c, ['/', '/index.html']));
  app.get('/login', (c) => serve(c, ['/login', '/', '/index.html']));
  app.get('/assets/*', (c) => serve(c, [c.req.path]));
  // A one-tap link's page: the same static file for every token (it reads its token from the address).
  app.get('/decide/:token', (c) => serve(c, ['/decide']));
}
