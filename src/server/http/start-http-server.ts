/**
 * Serves a Hono app over HTTP with `@hono/node-server` and says where:
 * port 0 picks a free port, and the real one is returned.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { ServerEnv } from './server-env.ts';

export interface RunningHttpServer {
  /** `http://HOST:PORT`, with the real port. */
  url: string;
  port: number;
  /** Stops listening and ends open connections (SSE streams too). */
  close(): Promise<void>;
}

/**
 * Listens on `host`:`port`; rejects when it cannot (port taken, no such address).
 *
 * @example
 * const server = await startHttpServer({ app, host: '127.0.0.1', port: 0 });
 * console.log(`listening on ${server.url}`);
 * await server.close();
 */
export async function startHttpServer(options: { app: Hono<ServerEnv>; host: string; port: number }): Promise<RunningHttpServer> {
  const server = serve({ fetch: options.app.fetch, hostname: options.host, port: options.port }) as Server;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
