/**
 * The benchmarks' HTTP load generator: Node's own `http` client on
 * keep-alive connections, one per concurrent client. `fetch` (undici) spends
 * two to three times the CPU per request, and on a machine whose cores the
 * clients share with the server that measures the clients more than the
 * server (measured here: 330–450 µs of client CPU per request with fetch,
 * 130–210 µs with this).
 */
import http from 'node:http';

export interface LoadClient {
  /** One JSON request with the bearer token; the parsed JSON answer. */
  request(method: 'GET' | 'POST', route: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): void;
}

/**
 * A client of the server at `url` holding up to `connections` keep-alive connections.
 *
 * @example
 * const client = loadClient({ url: server.url, token: ADMIN_TOKEN, connections: 64 });
 * const answer = await client.request('POST', `/runs/${runId}/approve`, { approved: true });
 */
export function loadClient(options: { url: string; token: string; connections: number }): LoadClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const base = new URL(options.url);
  const client: LoadClient = {
    request(method, route, body) {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${options.token}` };
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(payload);
      }
      return new Promise((resolve, reject) => {
        let answered = false;
        const sent = http.request({ agent, host: base.hostname, port: base.port, path: route, method, headers }, (response) => {
          answered = true;
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve({ status: response.statusCode!, body: JSON.parse(text) });
            } catch {
              reject(new Error(`${method} ${route} answered ${response.statusCode} with a body that is not JSON: ${text.slice(0, 200)}`));
            }
          });
        });
        sent.on('error', (error: NodeJS.ErrnoException) => {
          // The server closed this idle keep-alive connection (its keep-alive timeout) as the request went out on it:
          // the request never reached it, so it is sent again (Node's documented remedy); each try takes another idle connection or a new one.
          if (sent.reusedSocket && !answered && error.code === 'ECONNRESET') client.request(method, route, body).then(resolve, reject);
          else reject(error);
        });
        sent.end(payload);
      });
    },
    close() {
      agent.destroy();
    },
  };
  return client;
}
