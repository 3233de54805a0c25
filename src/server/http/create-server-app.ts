/**
 * The HTTP side of `toolgate serve`: a Hono app whose routes map one to one
 * onto the RunService. In order, every request passes: security headers
 * (outermost, so every answer has them), logging and tracing, the browser
 * guard (Host, Origin), authentication and roles, then its route; errors
 * become JSON in one place (error-responses).
 */
import { registerAskRoutes } from './ask-routes.ts';
import { registerLinkRoutes } from './link-routes.ts';
import { registerHookRoutes } from './hook-routes.ts';
import { Hono } from 'hono';
import type { RunService } from '../run-service.ts';
import type { ToolgateStore } from '../../store/store.ts';
import type { Logger } from '../log.ts';
import { authenticate } from './authenticate.ts';
import { browserGuard } from './browser-guard.ts';
import { errorResponse, routeNotFound } from './error-responses.ts';
import { DEFAULT_HEARTBEAT_MS, registerEventRoutes } from './event-routes.ts';
import { registerOpsRoutes } from './ops-routes.ts';
import { DEFAULT_MAX_BODY_BYTES } from './read-json-body.ts';
import { requestLogging } from './request-logging.ts';
import { registerRunRoutes } from './run-routes.ts';
import { securityHeaders } from './security-headers.ts';
import type { ServerEnv } from './server-env.ts';
import { registerWebRoutes, type WebAssets } from './web-routes.ts';

export interface ServerAppOptions {
  service: RunService;
  store: ToolgateStore;
  /** SHA-256 (hex) of the admin token (`hashToken`). */
  adminTokenHash: string;
  /**
   * The `Host` values the server answers to (`host:port`, see
   * `defaultAllowedHosts`). Read at every request: with port 0, push the
   * real ones once `startHttpServer` has returned.
   */
  allowedHosts: string[];
  logger: Logger;
  /** SSE heartbeat interval (default 15 s). */
  heartbeatMs?: number;
  /** Request body limit (default 1 MiB). */
  maxBodyBytes?: number;
  /** The web inbox's files (`webAssets()`); without them `/` says the inbox is not built. */
  web?: WebAssets;
  /** Whether the server is still driving on what its last stop left under way (`/healthz` says so). */
  recovering?: () => boolean;
}

/**
 * The app; serve it with `startHttpServer`.
 *
 * @example
 * const allowedHosts: string[] = [];
 * const app = createServerApp({ service, store, adminTokenHash: hashToken(adminToken), allowedHosts, logger, web: webAssets() });
 * const server = await startHttpServer({ app, host: '127.0.0.1', port: 0 });
 * allowedHosts.push(...defaultAllowedHosts({ host: '127.0.0.1', port: server.port }));
 */
export function createServerApp(options: ServerAppOptions): Hono<ServerEnv> {
  const { service, store, logger } = options;
  const app = new Hono<ServerEnv>();
  app.use('*', securityHeaders());
  app.use('*', requestLogging({ logger }));
  app.use('*', browserGuard({ allowedHosts: options.allowedHosts }));
  app.use('*', authenticate({ store, adminTokenHash: options.adminTokenHash }));
  registerOpsRoutes({ app, service, ...(options.recovering === undefined ? {} : { recovering: options.recovering }) });
  registerWebRoutes({ app, web: options.web });
  registerRunRoutes({ app, service, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, logger });
  registerHookRoutes({ app, service, logger });
  registerAskRoutes({ app, service });
  registerLinkRoutes({ app, service });
  registerEventRoutes({ app, service, store, heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS, logger });
  app.notFound(routeNotFound());
  app.onError(errorResponse({ logger }));
  return app;
}
