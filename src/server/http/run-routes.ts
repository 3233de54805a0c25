/**
 * The run routes, one to one onto the RunService: start, list, show,
 * decide, cancel, the inbox of pending approvals, and forgetting a chat's
 * remembered approvals. Roles are checked before these run (route-table);
 * which runs a caller may see, the service decides.
 */
import type { Context, Hono } from 'hono';
import type { Logger } from '../log.ts';
import { ApiError, type Principal, type RunService } from '../run-service.ts';
import { StoreError } from '../../store/sqlite-store-error.ts';
import { APPROVALS_PAGE_SIZE, approvalsStreamResponse } from './approvals-stream.ts';
import { readJsonBody } from './read-json-body.ts';
import { cancelBody, emptyQuery, insightsQuery, listRunsQuery, parseApproveBody, parseRequest, presenceBody, singleValuedQuery, startRunBody } from './request-schemas.ts';
import type { ServerEnv } from './server-env.ts';

/** `GET /runs` without `?limit=`. */
export const DEFAULT_RUN_PAGE = 1000;

/**
 * Registers the run routes on `app`.
 *
 * @example
 * registerRunRoutes({ app, service, maxBodyBytes: DEFAULT_MAX_BODY_BYTES, logger });
 */
export function registerRunRoutes(options: { app: Hono<ServerEnv>; service: RunService; maxBodyBytes: number; logger: Logger }): void {
  const { app, service, maxBodyBytes, logger } = options;

  app.post('/runs', async (c) => {
    noQuery(c);
    const body = parseRequest({ schema: startRunBody, value: await readJsonBody({ context: c, maxBytes: maxBodyBytes }), what: 'request body' });
    return c.json(await service.startRun(principalOf(c), body), 201);
  });

  app.get('/runs', async (c) => {
    const query = parseRequest({ schema: listRunsQuery, value: singleValuedQuery(c.req.queries()), what: 'query' });
    const result = await service
      .listRuns(principalOf(c), {
        limit: query.limit ?? DEFAULT_RUN_PAGE,
        ...(query.status === undefined ? {} : { status: query.status }),
        ...(query.before === undefined ? {} : { before: query.before }),
      })
      .catch((error: unknown) => {
        // The store refuses a cursor it did not make: the client's mistake, not the server's.
        if (query.before !== undefined && error instanceof StoreError && error.code === 'STORE_INVALID_QUERY') {
          throw new ApiError(400, `query parameter "before": expected the next cursor of a previous page, got ${JSON.stringify(query.before.slice(0, 80))}`, { field: 'before', expected: 'a cursor from next' });
        }
        throw error;
      });
    return c.json(result);
  });

  app.get('/runs/:id', async (c) => {
    noQuery(c);
    return c.json(await service.getRun(principalOf(c), c.req.param('id')));
  });

  app.post('/runs/:id/approve', async (c) => {
    noQuery(c);
    const body = parseApproveBody(await readJsonBody({ context: c, maxBytes: maxBodyBytes }));
    return c.json(await service.approve(principalOf(c), c.req.param('id'), body));
  });

  app.post('/runs/:id/cancel', async (c) => {
    noQuery(c);
    parseRequest({ schema: cancelBody, value: await readJsonBody({ context: c, maxBytes: maxBodyBytes, optional: true }), what: 'request body' });
    return c.json(await service.cancel(principalOf(c), c.req.param('id')));
  });

  app.get('/whoami', (c) => {
    const principal = principalOf(c);
    // The attention budget and the caller's decisions in the last hour: past it, the inbox gathers asks of a kind on one card.
    return c.json({ name: principal.name, role: principal.role, ...(service.attention === undefined ? {} : { attention: service.attention(principal) }) });
  });

  app.get('/approvals', async (c) => {
    noQuery(c);
    const principal = principalOf(c);
    // A long inbox is streamed page by page; a service without pages answers in one piece.
    if (service.pendingApprovalPages !== undefined) {
      return approvalsStreamResponse({ pages: service.pendingApprovalPages(principal, APPROVALS_PAGE_SIZE), logger, principal: principal.name });
    }
    return c.json({ approvals: await service.pendingApprovals(principal) });
  });

  app.get('/insights', async (c) => {
    const query = parseRequest({ schema: insightsQuery, value: singleValuedQuery(c.req.queries()), what: 'query' });
    if (service.insights === undefined) throw new ApiError(404, 'this server reads no audit trail');
    const days = Math.min(Number(query.days ?? 30), 366);
    return c.json(await service.insights(principalOf(c), { since: Date.now() - days * 86_400_000 }));
  });

  app.get('/approvals/always', async (c) => {
    noQuery(c);
    if (service.listAlways === undefined) throw new ApiError(404, 'this server keeps no "approve always" decisions');
    return c.json(await service.listAlways(principalOf(c)));
  });

  app.delete('/approvals/always/:id', async (c) => {
    noQuery(c);
    if (service.revokeAlways === undefined) throw new ApiError(404, 'this server keeps no "approve always" decisions');
    return c.json(await service.revokeAlways(principalOf(c), c.req.param('id')));
  });

  app.post('/approvals/presence', async (c) => {
    noQuery(c);
    if (service.reportPresence === undefined) throw new ApiError(404, 'this server does not tell who has which card open');
    const body = parseRequest({ schema: presenceBody, value: await readJsonBody({ context: c, maxBytes: maxBodyBytes }), what: 'request body' });
    return c.json(await service.reportPresence(principalOf(c), body.open));
  });

  app.get('/approvals/session', async (c) => {
    noQuery(c);
    if (service.listSessionApprovals === undefined) throw new ApiError(404, 'this server keeps no session approvals');
    return c.json(await service.listSessionApprovals(principalOf(c)));
  });

  app.delete('/approvals/session/:id', async (c) => {
    noQuery(c);
    if (service.forgetSessionApproval === undefined) throw new ApiError(404, 'this server keeps no session approvals');
    return c.json(await service.forgetSessionApproval(principalOf(c), c.req.param('id')));
  });

  app.delete('/sessions/:session/chats/:chat', async (c) => {
    noQuery(c);
    return c.json(await service.clearChat(principalOf(c), c.req.param('session'), c.req.param('chat')));
  });

  // The decisions of runs started without a chat_id (no chat to name in the route above).
  app.delete('/sessions/:session', async (c) => {
    noQuery(c);
    return c.json(await service.clearChat(principalOf(c), c.req.param('session'), null));
  });
}

/**
 * The authenticated caller. Every route registered here sits behind
 * `authenticate`, which sets it; its absence is a wiring bug (500), never
 * an anonymous request served.
 */
export function principalOf(c: Context<ServerEnv>): Principal {
  const principal = c.get('principal');
  if (principal === undefined) throw new Error(`no authenticated principal on ${c.req.method} ${c.req.path}: the authentication middleware is not in front of this route`);
  return principal;
}

/** Routes without query parameters refuse any, like unknown body fields. */
export function noQuery(c: Context<ServerEnv>): void {
  parseRequest({ schema: emptyQuery, value: singleValuedQuery(c.req.queries()), what: 'query' });
}
