import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webAssets } from '../web/web-assets.ts';
import { CONTENT_SECURITY_POLICY } from './security-headers.ts';
import { send, startTestServer, type TestServer } from './test-server.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ web: webAssets() });
});
afterAll(async () => {
  await server.close();
});

describe('the built inbox, mounted', () => {
  it('serves every file of webAssets() at its path, with its type, without a token, under the strict CSP', async () => {
    const assets = webAssets();
    expect(assets.size).toBeGreaterThanOrEqual(4);
    for (const [key, asset] of assets) {
      // The link page is served for any token in its path.
      const path = key === '/decide' ? '/decide/AAAA.BBBB' : key;
      const response = await send(server, { path });
      expect(response.status, path).toBe(200);
      expect(response.headers['content-type']).toBe(asset.contentType);
      expect(Buffer.from(response.text)).toEqual(Buffer.from(asset.body));
      expect(response.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });

  it('every script and stylesheet the page names is served from /assets/, none inline', async () => {
    const page = (await send(server, { path: '/login' })).text;
    // The one exception: an empty inline favicon (`data:,`), so the browser asks the server for none; links within the page (#runs) load nothing.
    const referenced = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!).filter((path) => path !== 'data:,' && !path.startsWith('#'));
    expect(referenced.length).toBeGreaterThanOrEqual(2);
    for (const path of referenced) {
      expect(path.startsWith('/assets/'), path).toBe(true);
      expect((await send(server, { path })).status, path).toBe(200);
    }
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page).not.toMatch(/\son[a-z]+=/i);
  });

  it('a file that is not there: 404 JSON; dot segments leave /assets/ (and then need a token)', async () => {
    const response = await send(server, { path: '/assets/../../etc/passwd' });
    expect(response.status).toBe(401);
    expect(response.text).not.toContain('root:');
    const withToken = await send(server, { path: '/assets/%2e%2e/%2e%2e/etc/passwd', token: server.tokens.dave });
    expect(withToken.status).toBe(404);
    expect(withToken.text).not.toContain('root:');
    expect((await send(server, { path: '/assets/nope.js' })).json).toEqual({ error: 'no route GET /assets/nope.js' });
  });
});
