/**
 * The one place errors become HTTP answers: an ApiError is its status and
 * `{"error": message, ...details}`; an unknown path is 404 `no route GET /x`;
 * a known path with another method is 405 with `Allow`; a store that cannot
 * reach its database is 503 with `Retry-After`; anything else thrown
 * is logged (with its stack) and answered 500 `internal error`, never with
 * the stack.
 */
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError } from '../run-service.ts';
import { StoreError } from '../../store/sqlite-store-error.ts';
import type { Logger } from '../log.ts';
import { allowedMethods } from './route-table.ts';
import type { ServerEnv } from './server-env.ts';

/**
 * Hono's `onError`.
 *
 * @example
 * app.onError(errorResponse({ logger }));
 */
export function errorResponse(options: { logger: Logger }): ErrorHandler<ServerEnv> {
  return (error, c) => {
    if (error instanceof ApiError) {
      // `error` first, and never replaced by a detail of the same name.
      const { error: _shadowed, ...details } = error.details;
      return c.json({ error: error.message, ...details }, statusOf(error.status));
    }
    if (error instanceof HTTPException && error.status < 500) return c.json({ error: error.message === '' ? 'bad request' : error.message }, error.status);
    if (error instanceof StoreError && error.code === 'STORE_UNAVAILABLE') {
      // The database is down or restarting: nothing was decided or written; the client may retry.
      options.logger.warn('store unavailable', { method: c.req.method, path: c.req.path, error: error.message });
      c.header('Retry-After', '5');
      return c.json({ error: 'the store is unavailable (its database cannot be reached); nothing was changed, try again shortly' }, 503);
    }
    options.logger.error('internal error', { method: c.req.method, path: c.req.path, principal: c.get('principal')?.name, error });
    return c.json({ error: 'internal error' }, 500);
  };
}

/**
 * Hono's `notFound`: 405 for a path that has other methods, else 404.
 *
 * @example
 * app.notFound(routeNotFound());
 */
export function routeNotFound(): NotFoundHandler<ServerEnv> {
  return (c) => {
    const methods = allowedMethods(c.req.path);
    if (methods.length > 0) {
      c.header('Allow', methods.join(', '));
      return c.json({ error: `method ${c.req.method} not allowed on ${c.req.path}: use ${methods.join(', ')}` }, 405);
    }
    return c.json({ error: `no route ${c.req.method} ${visiblePath(c)}` }, 404);
  };
}

/** A status an ApiError may carry; anything odd is a server bug, answered as 500 by Hono's type rules. */
function statusOf(status: number): ContentfulStatusCode {
  return (status >= 400 && status <= 599 ? status : 500) as ContentfulStatusCode;
}

/** The path as the client wrote it, shortened: it goes back into a JSON answer. */
function visiblePath(c: Context<ServerEnv>): string {
  const path = c.req.path;
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}
