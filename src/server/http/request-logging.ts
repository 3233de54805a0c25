/**
 * One log line per request (`method`, `path`, `status`, `ms`, `principal`;
 * with `verbose_logging` the request body, redacted) and, when tracing is
 * enabled, one span named after the route (`GET /runs/:id`, ids left out).
 * Headers are never logged: the token travels in one.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../log.ts';
import { withSpan } from '../tracing.ts';
import { routeName } from './route-table.ts';
import type { ServerEnv } from './server-env.ts';

/**
 * The middleware; it runs outside everything but the security headers, so
 * refused requests are logged and traced too.
 *
 * @example
 * app.use('*', requestLogging({ logger }));
 */
export function requestLogging(options: { logger: Logger }): MiddlewareHandler<ServerEnv> {
  const { logger } = options;
  return async (c, next) => {
    const started = performance.now();
    const method = c.req.method;
    const path = c.req.path;
    const route = routeName({ method, path });
    await withSpan(`${method} ${route}`, { 'http.request.method': method, 'http.route': route, 'url.path': path }, async (span) => {
      await next();
      const status = c.res.status;
      span?.setAttribute('http.response.status_code', status);
      const principal = c.get('principal')?.name;
      if (principal !== undefined) span?.setAttribute('toolgate.principal', principal);
      if (status >= 500) span?.setStatus({ code: SpanStatusCode.ERROR });
    });
    const status = c.res.status;
    const fields: Record<string, unknown> = { method, path, status, ms: Math.round((performance.now() - started) * 100) / 100, principal: c.get('principal')?.name ?? null };
    if (logger.verbose) {
      const body = c.get('requestBody');
      if (body !== undefined) fields.body = body;
    }
    if (status >= 500) logger.error('request', fields);
    else logger.info('request', fields);
  };
}
