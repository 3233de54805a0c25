/**
 * A client's requests each upstream server is serving now (a tool call, a
 * prompt, a resource read), oldest first: a server's request of the client
 * made meanwhile (sampling, elicitation) belongs to the latest of them.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The requests of one client being served, per upstream server. */
export interface RequestsInFlight {
  /** Runs `work` with `requestId` counted as being served by `upstream` (not counted when `upstream` is undefined). */
  serving<Value>(upstream: string | undefined, requestId: RequestId, work: () => Promise<Value>): Promise<Value>;
  /** The latest request `upstream` is serving now, or undefined. */
  latest(upstream: string): RequestId | undefined;
}

/**
 * The requests in flight of one client.
 *
 * @example
 * const inFlight = createRequestsInFlight();
 * await inFlight.serving('files', extra.requestId, () => connection.request('resources/read', params, extra.signal));
 */
export function createRequestsInFlight(): RequestsInFlight {
  /** This client's requests each server is serving now, oldest first. */
  const inFlight = new Map<string, Set<RequestId>>();
  return {
    async serving(upstream, requestId, work) {
      if (upstream === undefined) return work();
      const ids = inFlight.get(upstream) ?? new Set<RequestId>();
      inFlight.set(upstream, ids);
      ids.add(requestId);
      try {
        return await work();
      } finally {
        ids.delete(requestId);
        if (ids.size === 0) inFlight.delete(upstream);
      }
    },
    latest(upstream) {
      const ids = inFlight.get(upstream);
      return ids === undefined ? undefined : [...ids].at(-1);
    },
  };
}
