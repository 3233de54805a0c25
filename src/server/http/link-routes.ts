/**
 * `GET /notifications` (the outbox as approvers see it), and a one-tap link's routes (issue 35), which need no token (the signed link
 * is the credential): `GET /decide/:token/view` shows the call or why the
 * link does nothing, and `POST /decide/:token` decides it, once, as the
 * approver the link was sent to. The page itself (`GET /decide/:token`) is
 * a static file of the inbox (web-routes.ts).
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import { ApiError, type RunService } from '../run-service.ts';
import { readJsonBody, readTextBody } from './read-json-body.ts';
import { parseRequest, singleValuedQuery } from './request-schemas.ts';
import { principalOf } from './run-routes.ts';
import type { ServerEnv } from './server-env.ts';

const notificationsQuery = z.strictObject({
  status: z.enum(['pending', 'delivered', 'dead']).optional(),
  limit: z
    .string()
    .regex(/^[0-9]{1,3}$/, 'a whole number from 1 to 200')
    .transform(Number)
    .pipe(z.number().int().min(1).max(200))
    .optional(),
});

const linkDecision = z.strictObject({
  approved: z.boolean(),
  reason: z.string().max(2_000).optional(),
});

/**
 * @example
 * registerLinkRoutes({ app, service });
 */
export function registerLinkRoutes(options: { app: Hono<ServerEnv>; service: RunService }): void {
  const { app, service } = options;
  app.get('/notifications', async (c) => {
    if (service.listNotifications === undefined) throw new ApiError(404, 'this server keeps no notifications');
    const query = parseRequest({ schema: notificationsQuery, value: singleValuedQuery(c.req.queries()), what: 'query' });
    return c.json(await service.listNotifications(principalOf(c), { ...(query.status === undefined ? {} : { status: query.status }), limit: query.limit ?? 50 }));
  });
  // Slack's interactivity requests: no token, signed with the channel's signing secret (checked over the raw body).
  app.post('/slack/interactivity/:channel', async (c) => {
    if (service.slackInteraction === undefined) throw new ApiError(404, 'this server has no Slack channel');
    const rawBody = await readTextBody({ context: c, maxBytes: 64 * 1024, mediaType: 'application/x-www-form-urlencoded' });
    return c.json(await service.slackInteraction(c.req.param('channel'), { rawBody, timestamp: c.req.header('x-slack-request-timestamp'), signature: c.req.header('x-slack-signature') }));
  });
  app.get('/decide/:token/view', async (c) => {
    if (service.linkView === undefined) throw new ApiError(404, 'this server sends no decision links', { state: 'invalid' });
    c.header('Cache-Control', 'no-store');
    return c.json(await service.linkView(c.req.param('token')));
  });
  app.post('/decide/:token', async (c) => {
    if (service.decideByLink === undefined) throw new ApiError(404, 'this server sends no decision links', { state: 'invalid' });
    const body = parseRequest({ schema: linkDecision, value: await readJsonBody({ context: c, maxBytes: 8 * 1024 }), what: 'request body' });
    return c.json(await service.decideByLink(c.req.param('token'), { approved: body.approved, ...(body.reason === undefined ? {} : { reason: body.reason }) }));
  });
}
