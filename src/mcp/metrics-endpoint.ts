/**
 * `toolgate mcp --metrics-port PORT`: the gateway's Prometheus metrics
 * (seed 004's counters and the decision histogram) on
 * `http://127.0.0.1:PORT/metrics`, for a gateway on stdio, which has no
 * HTTP server of its own (on `--http` they are also at `/metrics` beside
 * `/mcp`, behind the bearer token). Loopback only, no token, like most
 * scrape targets; the Host header is checked, so a web page cannot read
 * them through DNS rebinding.
 */
import http from 'node:http';
import type { Registry } from 'prom-client';
import { listenOnLoopback } from './listen-on-loopback.ts';

export interface MetricsEndpoint {
  /** `http://127.0.0.1:<port>/metrics` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves `registry` at `/metrics` on 127.0.0.1 (`port` 0: any free port).
 *
 * @example
 * const endpoint = await startMetricsEndpoint({ port: 9464, registry: metrics.registry });
 */
export async function startMetricsEndpoint(options: { port: number; registry: Registry }): Promise<MetricsEndpoint> {
  let port = options.port;
  const server = http.createServer((request, response) => {
    const answer = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      response.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
      response.end(body);
    };
    const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
    if (!allowedHosts.includes(request.headers.host?.toLowerCase() ?? '')) return answer(403, `the Host header must be one of ${allowedHosts.join(', ')} (DNS rebinding protection)\n`);
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== '/metrics') return answer(404, 'not found: the metrics are at /metrics\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(405, 'method not allowed: use GET\n');
    options.registry.metrics().then(
      (text) => answer(200, request.method === 'HEAD' ? '' : text, options.registry.contentType),
      (error: unknown) => answer(500, `the metrics could not be collected: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  port = await listenOnLoopback(server, options.port);
  return {
    url: `http://127.0.0.1:${port}/metrics`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
