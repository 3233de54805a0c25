/**
 * `GET /healthz` (no token: `{"status":"ok"}`) and `GET /metrics`
 * (Prometheus text, admin only).
 */
import type { Hono } from 'hono';
import type { RunService } from '../run-service.ts';
import { noQuery } from './run-routes.ts';
import type { ServerEnv } from './server-env.ts';

/** Prometheus' text exposition format. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Registers the operations routes on `app`.
 *
 * @example
 * registerOpsRoutes({ app, service });
 */
export function registerOpsRoutes(options: { app: Hono<ServerEnv>; service: RunService }): void {
  const { app, service } = options;
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/metrics', async (c) => {
    noQuery(c);
    return c.body(await service.metrics(), 200, { 'Content-Type': METRICS_CONTENT_TYPE });
  });
}
