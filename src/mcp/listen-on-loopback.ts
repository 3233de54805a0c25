import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starts `server` on 127.0.0.1:`port` (0: any free port); the port it got.
 * Rejects when the port cannot be taken (in use, not allowed).
 *
 * @example
 * const port = await listenOnLoopback(server, 0);
 */
export async function listenOnLoopback(server: http.Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
