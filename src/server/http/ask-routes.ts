/**
 * `POST /asks?timeout=SECONDS`: a call another gate judged (`toolgate mcp
 * --approver server`) put to a person in the inbox, answered with the
 * decision once made, or `pending` when `timeout` (default 60 s, at most
 * 600; 0 answers at once, with the card's run id) passes first: the asker
 * asks again with the same `id`.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import { ApiError, type RunService } from '../run-service.ts';
import { readJsonBody } from './read-json-body.ts';
import { askBody, parseRequest, singleValuedQuery } from './request-schemas.ts';
import { principalOf } from './run-routes.ts';
import type { ServerEnv } from './server-env.ts';

/**
 * The largest request read. A file write's content and its diff are sent
 * whole; past this the asker's gate is refused (and denies), as a bigger
 * body would be parsed, stored and shown several times over.
 */
const MAX_ASK_BODY_BYTES = 2 * 1024 * 1024;
const DEFAULT_WAIT_SECONDS = 60;

const askQuery = z.strictObject({
  timeout: z
    .string()
    .regex(/^[0-9]{1,4}$/, 'a whole number of seconds')
    .transform(Number)
    .pipe(z.number().int().min(0).max(600))
    .optional(),
});

/**
 * @example
 * registerAskRoutes({ app, service });
 */
export function registerAskRoutes(options: { app: Hono<ServerEnv>; service: RunService }): void {
  const { app, service } = options;
  app.post('/asks', async (c) => {
    if (service.answerAsk === undefined) throw new ApiError(404, 'this server does not take asks');
    const query = parseRequest({ schema: askQuery, value: singleValuedQuery(c.req.queries()), what: 'query' });
    const body = parseRequest({ schema: askBody, value: await readJsonBody({ context: c, maxBytes: MAX_ASK_BODY_BYTES }), what: 'request body' });
    return c.json(await service.answerAsk(principalOf(c), body, (query.timeout ?? DEFAULT_WAIT_SECONDS) * 1000), 200);
  });
}
