/**
 * Bearer-token authentication and the role check of every route but the
 * public ones (`/healthz`, the inbox page and its files). The token is looked
 * up in the store on every request: a revoked token fails on its next
 * request, also while the server runs. There is no cookie and no token in a
 * URL: a browser never sends credentials on its own.
 */
import type { MiddlewareHandler } from 'hono';
import type { ToolgateStore } from '../../store/store.ts';
import { principalForToken } from '../tokens.ts';
import { isPublicRoute, matchApiRoute } from './route-table.ts';
import type { ServerEnv } from './server-env.ts';
import { requestHeader } from './node-request.ts';
import { HOOK_HOSTS, hookRefusal } from './hook-routes.ts';

const BEARER = /^Bearer +([^\s]+) *$/i;

/**
 * The middleware: 401 without a valid token (`WWW-Authenticate: Bearer`),
 * 403 naming the roles needed when the token's role may not call the route.
 *
 * @example
 * app.use('*', authenticate({ store, adminTokenHash }));
 */
export function authenticate(options: { store: ToolgateStore; adminTokenHash: string }): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const request = { method: c.req.method, path: c.req.path };
    if (isPublicRoute(request)) return next();
    const header = requestHeader(c, 'authorization');
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    // An agent host's hook reads only a 200 with its JSON: anything else lets the call go on (Claude Code's http hook), so it is refused in that form.
    const hook = request.method === 'POST' && request.path.startsWith('/hooks/');
    // ...in the host's own dialect, where the path names one (Gemini CLI reads only its own).
    const named = request.path.slice('/hooks/'.length);
    const hookRefused = (reason: string) => hookRefusal(reason, Object.hasOwn(HOOK_HOSTS, named) ? HOOK_HOSTS[named] : undefined);
    if (token === undefined) {
      c.header('WWW-Authenticate', 'Bearer');
      return hook ? c.json(hookRefused('missing bearer token (give the hook a token: Authorization: Bearer ...)'), 200) : c.json({ error: 'missing bearer token' }, 401);
    }
    const principal = await principalForToken({ token, store: options.store, adminTokenHash: options.adminTokenHash });
    if (principal === undefined) {
      c.header('WWW-Authenticate', 'Bearer error="invalid_token"');
      return hook ? c.json(hookRefused('invalid or revoked token'), 200) : c.json({ error: 'invalid or revoked token' }, 401);
    }
    c.set('principal', principal);
    // An event stream outlives this check: it asks again, so a token revoked meanwhile stops it.
    c.set('stillAuthenticated', async () => {
      const now = await principalForToken({ token, store: options.store, adminTokenHash: options.adminTokenHash }).catch(() => undefined);
      return now !== undefined && now.name === principal.name && now.role === principal.role;
    });
    const route = matchApiRoute(request);
    if (route !== undefined && !route.roles.includes(principal.role)) {
      if (hook) return c.json(hookRefused(`token ${JSON.stringify(principal.name)} has the ${principal.role} role; a hook needs a submitter's token`), 200);
      const needed = route.roles.length === 1 ? `the ${route.roles[0]} role` : `one of the roles ${route.roles.join(', ')}`;
      return c.json(
        { error: `${route.method} ${route.path} needs ${needed}; token ${JSON.stringify(principal.name)} has the ${principal.role} role`, required_roles: route.roles, role: principal.role },
        403,
      );
    }
    return next();
  };
}
