/**
 * What the server's Hono app keeps per request: the authenticated caller, a
 * way to check its token again, and (for `verbose_logging`) the parsed
 * request body.
 */
import type { Principal } from '../run-service.ts';

export interface ServerEnv {
  Variables: {
    principal: Principal | undefined;
    /** Whether the request's token still names that principal (not revoked since): long-lived responses ask again. */
    stillAuthenticated: (() => Promise<boolean>) | undefined;
    requestBody: unknown;
  };
}
