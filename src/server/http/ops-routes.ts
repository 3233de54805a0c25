/**
 * `GET /healthz` (no token: `{"status":"ok"}`, with `"recovering":true`
 * while the server drives on the runs its last stop left under way) and
 * `GET /metrics` (Prometheus text, admin only).
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
export function registerOpsRoutes(options: { app: Hono<ServerEnv>; service: RunService; recovering?: () => boolean }): void {
  const { app, service, recovering } = options;
  // It answers while recovering: every endpoint works then, and a run being recovered shows as running.
  app.get('/healthz', (c) => c.json(recovering?.() === true ? { status: 'ok', recovering: true } : { status: 'ok' }));
  app.get('/metrics', async (c) => {
    noQuery(c);
    return c.body(await service.metrics(), 200, { 'Content-Type': METRICS_CONTENT_TYPE });
  });
}
