/**
 * Every API route of `toolgate serve` and the roles that may call it: one
 * table that the authentication middleware (403 for a wrong role), the
 * 404/405 answers (which methods a path has) and the spans (a route's name
 * without its ids) read. The handlers are registered in the route files.
 */
import type { TokenRole } from '../../store/store.ts';

export interface ApiRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** Hono's pattern: `:name` is one path segment. */
  path: string;
  /** Who may call it; a run the caller may not see is still the service's 404. */
  roles: readonly TokenRole[];
}

const EVERYONE: readonly TokenRole[] = ['submitter', 'approver', 'admin'];

export const API_ROUTES: readonly ApiRoute[] = [
  { method: 'POST', path: '/runs', roles: ['submitter', 'admin'] },
  { method: 'GET', path: '/runs', roles: EVERYONE },
  { method: 'GET', path: '/runs/:id', roles: EVERYONE },
  { method: 'GET', path: '/runs/:id/events', roles: EVERYONE },
  { method: 'POST', path: '/runs/:id/approve', roles: ['approver', 'admin'] },
  { method: 'POST', path: '/runs/:id/cancel', roles: EVERYONE },
  { method: 'GET', path: '/events', roles: EVERYONE },
  // Who this token is: the inbox remembers the name (not the token), so a one-tap link opened in the same browser knows whose it is not.
  { method: 'GET', path: '/whoami', roles: EVERYONE },
  { method: 'GET', path: '/approvals', roles: ['approver', 'admin'] },
  // "Approve always": those who approve may see and revoke them (a revoke only takes a permission away).
  { method: 'GET', path: '/approvals/always', roles: ['approver', 'admin'] },
  { method: 'DELETE', path: '/approvals/always/:id', roles: ['approver', 'admin'] },
  // "For this session" decisions (approvals and denials): the same people, for the same reason.
  { method: 'GET', path: '/approvals/session', roles: ['approver', 'admin'] },
  // Which pending cards an approver has open, and who else has which open.
  { method: 'POST', path: '/approvals/presence', roles: ['approver', 'admin'] },
  { method: 'DELETE', path: '/approvals/session/:id', roles: ['approver', 'admin'] },
  // Where people's attention went (the inbox's attention page): everyone's decisions, so those who decide.
  { method: 'GET', path: '/insights', roles: ['approver', 'admin'] },
  { method: 'DELETE', path: '/sessions/:session/chats/:chat', roles: ['admin'] },
  { method: 'DELETE', path: '/sessions/:session', roles: ['admin'] },
  { method: 'GET', path: '/metrics', roles: ['admin'] },
  // The notifications outbox (issue 35): those who decide see which could not be delivered.
  { method: 'GET', path: '/notifications', roles: ['approver', 'admin'] },
  // An agent host's hook: a submitter's token (the agent's), or the admin's.
  { method: 'POST', path: '/hooks/:host', roles: ['submitter', 'admin'] },
  // A call another gate judged (toolgate mcp --approver server), put to a person here: a submitter's token, or the admin's.
  { method: 'POST', path: '/asks', roles: ['submitter', 'admin'] },
];

/**
 * Routes that need no token: the health check, the inbox page and its files
 * (static, no data; the page then calls the API with its token), and a
 * one-tap link's page, view and decision, where the signed link is the
 * credential (it decides one call, as one approver, once, until it expires).
 */
export const PUBLIC_ROUTES: readonly { method: 'GET' | 'POST'; path: string }[] = [
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/login' },
  { method: 'GET', path: '/assets/*' },
  { method: 'GET', path: '/decide/:token' },
  { method: 'GET', path: '/decide/:token/view' },
  { method: 'POST', path: '/decide/:token' },
  // Slack's interactivity requests: checked against the channel's signing secret instead.
  { method: 'POST', path: '/slack/interactivity/:channel' },
];

const compiled = new Map<string, RegExp>();

function patternOf(path: string): RegExp {
  let pattern = compiled.get(path);
  if (pattern === undefined) {
    const source = path
      .split('/')
      .map((segment) => (segment === '*' ? '.+' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    pattern = new RegExp(`^${source}$`);
    compiled.set(path, pattern);
  }
  return pattern;
}

/** HEAD is answered as GET (Hono does so). */
function effectiveMethod(method: string): string {
  return method === 'HEAD' ? 'GET' : method;
}

/**
 * The API route `method` and `path` name, if any.
 *
 * @example
 * matchApiRoute({ method: 'POST', path: '/runs/r1/approve' }) // { method: 'POST', path: '/runs/:id/approve', roles: ['approver', 'admin'] }
 */
export function matchApiRoute(options: { method: string; path: string }): ApiRoute | undefined {
  const method = effectiveMethod(options.method);
  return API_ROUTES.find((route) => route.method === method && patternOf(route.path).test(options.path));
}

/**
 * Whether the request needs no token.
 *
 * @example
 * isPublicRoute({ method: 'GET', path: '/healthz' }) // true
 */
export function isPublicRoute(options: { method: string; path: string }): boolean {
  const method = effectiveMethod(options.method);
  return PUBLIC_ROUTES.some((route) => route.method === method && patternOf(route.path).test(options.path));
}

/**
 * The methods some route has for `path` (for 405's `Allow`), HEAD with GET.
 *
 * @example
 * allowedMethods('/healthz') // ['GET', 'HEAD']
 */
export function allowedMethods(path: string): string[] {
  const methods = new Set<string>();
  for (const route of [...API_ROUTES, ...PUBLIC_ROUTES]) if (patternOf(route.path).test(path)) methods.add(route.method);
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods];
}

/**
 * The route's pattern for span names and logs (ids left out), or the raw
 * path of a public route, or `unmatched`.
 *
 * @example
 * routeName({ method: 'GET', path: '/runs/r1' }) // '/runs/:id'
 */
export function routeName(options: { method: string; path: string }): string {
  const method = effectiveMethod(options.method);
  return matchApiRoute(options)?.path ?? PUBLIC_ROUTES.find((route) => route.method === method && patternOf(route.path).test(options.path))?.path ?? 'unmatched';
}
