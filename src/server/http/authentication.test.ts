import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenRole } from '../../store/store.ts';
import { createApiToken, newToken } from '../tokens.ts';
import { API_ROUTES, type ApiRoute } from './route-table.ts';
import { send, startTestServer, type RawResponse, type TestServer } from './test-server.ts';

let server: TestServer;
let aliceRun: string;

beforeAll(async () => {
  server = await startTestServer();
  const started = await send(server, { method: 'POST', path: '/runs', token: server.tokens.alice, json: { input: 'list the files' } });
  aliceRun = started.json.run_id as string;
});
afterAll(async () => {
  await server.close();
});

/** Each API route as a concrete request that would succeed for a caller allowed to make it. */
function requestFor(route: ApiRoute): { method: string; path: string; json?: unknown } {
  const path = route.path.replace(':id', aliceRun).replace(':session', 's1').replace(':chat', 'c1');
  if (route.method === 'POST' && route.path === '/runs') return { method: 'POST', path, json: { input: 'x' } };
  if (route.path.endsWith('/approve')) return { method: 'POST', path, json: { approved: true } };
  if (route.path.endsWith('/cancel')) return { method: 'POST', path, json: {} };
  return { method: route.method, path };
}

// An agent host's hook route refuses in the host's own form (a 200 with a denial): tested on its own below.
const isHookRoute = (route: ApiRoute) => route.path.startsWith('/hooks/');
const routes = API_ROUTES.filter((route) => !isHookRoute(route)).map((route) => [`${route.method} ${route.path}`, route] as const);

async function refusedWithoutServiceCall(request: () => Promise<RawResponse>): Promise<RawResponse> {
  const before = server.service.calls.length;
  const response = await request();
  expect(server.service.calls.length).toBe(before);
  return response;
}

describe('every route but /healthz needs a bearer token', () => {
  it.each(routes)('%s without a token: 401 missing bearer token', async (_name, route) => {
    const response = await refusedWithoutServiceCall(() => send(server, requestFor(route)));
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ error: 'missing bearer token' });
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it.each(routes)('%s with a token that does not exist: 401 invalid or revoked token', async (_name, route) => {
    for (const token of [newToken(), 'nope', `${server.tokens.alice}x`, server.tokens.admin.slice(0, -1)]) {
      const response = await refusedWithoutServiceCall(() => send(server, { ...requestFor(route), token }));
      expect(response.status).toBe(401);
      expect(response.json).toEqual({ error: 'invalid or revoked token' });
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it('a token in another scheme (Basic), or the word Bearer alone, is no bearer token', async () => {
    for (const authorization of [`Basic ${Buffer.from(`x:${server.tokens.dave}`).toString('base64')}`, 'Bearer', 'Bearer ', server.tokens.dave]) {
      const response = await send(server, { path: '/runs', headers: { authorization } });
      expect(response.status).toBe(401);
      expect(response.json).toEqual({ error: 'missing bearer token' });
    }
  });

  it('GET /healthz needs none', async () => {
    const response = await send(server, { path: '/healthz' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ status: 'ok' });
  });

  it('the server admin token and an admin token from the store both work', async () => {
    for (const token of [server.tokens.admin, server.tokens.dave]) {
      const response = await send(server, { path: '/metrics', token });
      expect(response.status).toBe(200);
    }
  });
});

describe('a token revoked while the server runs stops working at once', () => {
  let token: string;
  beforeAll(async () => {
    token = await createApiToken({ store: server.store, name: 'zed', role: 'admin' });
    expect((await send(server, { path: '/runs', token })).status).toBe(200);
    expect(await server.store.revokeToken('zed')).toBe(true);
  });

  it.each(routes)('%s with the revoked token: 401', async (_name, route) => {
    const response = await refusedWithoutServiceCall(() => send(server, { ...requestFor(route), token }));
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ error: 'invalid or revoked token' });
  });

  it('the very next request after the revoke is refused (no cache)', async () => {
    const fresh = await createApiToken({ store: server.store, name: 'yan', role: 'submitter' });
    expect((await send(server, { path: '/runs', token: fresh })).status).toBe(200);
    await server.store.revokeToken('yan');
    expect((await send(server, { path: '/runs', token: fresh })).status).toBe(401);
  });
});

describe('roles', () => {
  const byRole: Record<TokenRole, 'alice' | 'carol' | 'dave'> = { submitter: 'alice', approver: 'carol', admin: 'dave' };
  const refusals = API_ROUTES.filter((route) => !isHookRoute(route)).flatMap((route) =>
    (['submitter', 'approver', 'admin'] as const).filter((role) => !route.roles.includes(role)).map((role) => [`${route.method} ${route.path} as ${role}`, route, role] as const),
  );

  it('some role is refused on most routes (the table is not all-open)', () => {
    expect(refusals.length).toBeGreaterThanOrEqual(7);
  });

  it.each(refusals)('%s: 403 naming the role needed', async (_name, route, role) => {
    const response = await refusedWithoutServiceCall(() => send(server, { ...requestFor(route), token: server.tokens[byRole[role]] }));
    expect(response.status).toBe(403);
    expect(response.json.error).toContain(`${route.method} ${route.path} needs`);
    for (const needed of route.roles) expect(response.json.error).toContain(needed);
    expect(response.json.error).toContain(`has the ${role} role`);
    expect(response.json.required_roles).toEqual(route.roles);
  });

  it('a submitter may not see or act on another owner\'s run: 404 run not found or not active', async () => {
    for (const request of [
      { method: 'GET', path: `/runs/${aliceRun}` },
      { method: 'GET', path: `/runs/${aliceRun}/events` },
      { method: 'POST', path: `/runs/${aliceRun}/cancel`, json: {} },
    ]) {
      const response = await send(server, { ...request, token: server.tokens.bob });
      expect(response.status, request.path).toBe(404);
      expect(response.json).toEqual({ error: 'run not found or not active' });
    }
    const listed = await send(server, { path: '/runs', token: server.tokens.bob });
    expect(listed.json.runs).toEqual([]);
  });

  it('an approver sees every run', async () => {
    const response = await send(server, { path: `/runs/${aliceRun}`, token: server.tokens.carol });
    expect(response.status).toBe(200);
    expect(response.json.owner).toBe('alice');
  });
});

describe('browser safety', () => {
  it.each(routes)('%s from another origin: 403, whatever the token', async (_name, route) => {
    for (const origin of ['http://evil.example', 'null', `ftp://${server.host}`, `http://${server.host}.evil.example`, `http://${server.host}/path`]) {
      const response = await refusedWithoutServiceCall(() => send(server, { ...requestFor(route), token: server.tokens.dave, headers: { origin } }));
      expect(response.status, origin).toBe(403);
      expect(response.json.error).toContain('cross-origin request refused');
      expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });

  it.each(routes)('%s with Sec-Fetch-Site: cross-site: 403', async (_name, route) => {
    const response = await refusedWithoutServiceCall(() => send(server, { ...requestFor(route), token: server.tokens.dave, headers: { 'sec-fetch-site': 'cross-site' } }));
    expect(response.status).toBe(403);
  });

  it.each(routes)('%s with a rebinding Host: 421', async (_name, route) => {
    for (const host of [`evil.example:${server.port}`, 'evil.example', `127.0.0.1:${server.port + 1}`, `127.0.0.1.:${server.port}`]) {
      const response = await refusedWithoutServiceCall(() => send(server, { ...requestFor(route), token: server.tokens.dave, headers: { host } }));
      expect(response.status, host).toBe(421);
      expect(response.json.error).toContain('is not one this server answers to');
    }
  });

  it('the health check and the inbox page check Host and Origin too', async () => {
    expect((await send(server, { path: '/healthz', headers: { host: 'evil.example' } })).status).toBe(421);
    expect((await send(server, { path: '/', headers: { origin: 'http://evil.example' } })).status).toBe(403);
  });

  it('same-origin requests pass: the right Origin, localhost, Sec-Fetch-Site same-origin', async () => {
    const sameOrigin = await send(server, { path: '/runs', token: server.tokens.dave, headers: { origin: `http://${server.host}`, 'sec-fetch-site': 'same-origin' } });
    expect(sameOrigin.status).toBe(200);
    const localhost = await send(server, { path: '/runs', token: server.tokens.dave, headers: { host: `localhost:${server.port}`, origin: `http://localhost:${server.port}` } });
    expect(localhost.status).toBe(200);
  });

  it('an OPTIONS preflight gets no Access-Control-* header: refused cross-origin, 405 same-origin', async () => {
    const preflight = await send(server, {
      method: 'OPTIONS',
      path: '/runs',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(403);
    expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const same = await send(server, { method: 'OPTIONS', path: '/runs', token: server.tokens.dave, headers: { origin: `http://${server.host}` } });
    expect(same.status).toBe(405);
    expect(same.headers.allow).toBe('POST, GET, HEAD');
    expect(Object.keys(same.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('never sets or reads a cookie: a cookie alone authenticates nothing', async () => {
    const response = await send(server, { path: '/runs', headers: { cookie: `token=${server.tokens.dave}; session=${server.tokens.dave}` } });
    expect(response.status).toBe(401);
    const ok = await send(server, { path: '/runs', token: server.tokens.dave });
    expect(ok.headers['set-cookie']).toBeUndefined();
  });
});

describe('POST /hooks/:host refuses in the host\'s form: a 200 with a denial (Claude Code\'s http hook lets a call go on after anything else)', () => {
  const hookCall = { session_id: 's1', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } };
  const denialOf = (response: RawResponse) => (response.json as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;

  it.each([
    ['without a token', undefined, 'missing bearer token'],
    ['with a token that does not exist', 'nope', 'invalid or revoked token'],
    ['as an approver', 'carol', 'has the approver role; a hook needs a submitter\'s token'],
  ])('%s', async (_name, who, reason) => {
    const token = who === undefined ? undefined : who === 'carol' ? server.tokens.carol : who;
    const response = await refusedWithoutServiceCall(() => send(server, { method: 'POST', path: '/hooks/claude-code', json: hookCall, ...(token === undefined ? {} : { token }) }));
    expect(response.status).toBe(200);
    expect(denialOf(response).permissionDecision).toBe('deny');
    expect(denialOf(response).permissionDecisionReason).toContain(reason);
    expect(denialOf(response).permissionDecisionReason).toMatch(/the call is blocked$/);
  });
});
