/**
 * What the server's Hono app keeps per request: the authenticated caller and
 * (for `verbose_logging`) the parsed request body.
 */
import type { Principal } from '../run-service.ts';

export interface ServerEnv {
  Variables: {
    principal: Principal | undefined;
    requestBody: unknown;
  };
}
