/**
 * The server approver's own behaviour against an HTTP server on loopback
 * that answers `POST /asks` as toolgate serve does, but stalls when told to:
 * what `toolgate serve` under load looks like to it. (Its work with the real
 * server is in test/mcp-gateway-server-approver.test.ts.)
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { PresentedRequest } from '../../core/approver.ts';
import { createServerApprover } from './server-approver.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

const request: PresentedRequest = {
  tool: 'send_email',
  description: 'Send an email',
  payload: { to: 'ops@example.com' },
  required: true,
  presentation: undefined,
  call: { tool: 'send_email', args: { to: 'ops@example.com' }, callId: 'c1' },
  context: { sessionId: 's1' },
};

async function body(incoming: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of incoming) text += String(chunk);
  return text;
}

/** A stand-in that stalls the first ask (never answers it) and answers later ones; it records every request. */
async function stallingServer(): Promise<{ url: string; seen: Array<{ path: string; body: string }> }> {
  const seen: Array<{ path: string; body: string }> = [];
  server = createServer(async (incoming, response) => {
    const text = await body(incoming);
    seen.push({ path: incoming.url ?? '', body: text });
    const asks = seen.filter((entry) => entry.path.startsWith('/asks')).length;
    if (incoming.url?.startsWith('/asks') === true && asks === 1) return; // stalled
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(incoming.url?.startsWith('/asks') === true ? JSON.stringify({ status: 'pending', run_id: 'run_ask_1' }) : JSON.stringify({ status: 'cancelled' }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

describe('createServerApprover', () => {
  it('given up while its first request stalls, it asks once more by the same id and cancels that card', async () => {
    const stand = await stallingServer();
    const approver = createServerApprover({ url: stand.url, token: 'tg_token', caller: () => 'a test' });
    const controller = new AbortController();
    const asked = approver.ask(request, { signal: controller.signal });
    await expect.poll(() => stand.seen.length).toBe(1);
    controller.abort(new Error('approval timed out'));
    await expect(asked).rejects.toThrow();
    await expect.poll(() => stand.seen.map((entry) => entry.path)).toEqual(['/asks?timeout=0', '/asks?timeout=0', '/runs/run_ask_1/cancel']);
    // The same ask, by its id, both times.
    expect(JSON.parse(stand.seen[1]!.body).id).toBe(JSON.parse(stand.seen[0]!.body).id);
  });
});
