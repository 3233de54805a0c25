import { relayChatter, type RelayChatterKind } from './relay-chatter.ts';
import { startFailureReason, startFailureReport, type StartFailureOptions } from './upstream-start-failure.ts';

/** What one upstream server's connection writes to the gateway's log about it. */
export interface UpstreamRelayLog {
  /** One line of the server's stderr, or a message of the gateway's MCP client about it: relayed, summed up, or kept back. */
  relay(line: string, from: 'stderr' | 'client'): void;
  /** A start that failed: the full report the first time (or for a new reason), one line for each retry after it. */
  failedStart(failure: StartFailureOptions): void;
  /** The server is ready: the next failed start is reported in full again. */
  ready(): void;
}

/**
 * The log of one upstream server, quiet by default: until the server is
 * ready its stderr is only kept (for the report of a failed start: its
 * banners are not news), expected messages (`relay-chatter.ts`) are one line
 * per server, and nothing is relayed about a server being shut down.
 * `verbose` relays every line as it comes, and every failed start in full.
 *
 * @example
 * const relayLog = createUpstreamRelayLog({ name: 'files', log, verbose: false, isReady: () => state === 'ready', isClosed: () => state === 'closed' });
 * relayLog.relay('Failed to request initial roots from client: ...', 'stderr');
 */
export function createUpstreamRelayLog(options: { name: string; log: (line: string) => void; verbose: boolean; isReady: () => boolean; isClosed: () => boolean }): UpstreamRelayLog {
  const { name, log, verbose } = options;
  const summarized = new Set<RelayChatterKind>();
  let failedStarts = 0;
  let lastReason = '';
  return {
    relay(line, from) {
      const relayed = from === 'stderr' ? `[${name}] ${line}` : `server ${JSON.stringify(name)}: ${line}`;
      if (verbose) return log(relayed);
      if (from === 'stderr' && !options.isReady()) return;
      const chatter = relayChatter(line);
      if (chatter === undefined) return log(relayed);
      if (options.isClosed() || summarized.has(chatter.kind)) return;
      summarized.add(chatter.kind);
      log(`server ${JSON.stringify(name)}: ${chatter.summary}; --verbose relays every message`);
    },
    failedStart(failure) {
      failedStarts += 1;
      const reason = startFailureReason(failure);
      if (verbose || failedStarts === 1 || reason !== lastReason) {
        for (const line of startFailureReport(failure)) log(line);
      } else {
        log(`server ${JSON.stringify(name)} still cannot start (${failedStarts} attempts): ${reason}`);
      }
      lastReason = reason;
    },
    ready() {
      failedStarts = 0;
      lastReason = '';
    },
  };
}
