/** What a server says, or the gateway's MCP client reports, that is expected and needs no action. */
export type RelayChatterKind = 'roots-not-shared' | 'lost-after-stop';

export interface RelayChatter {
  kind: RelayChatterKind;
  /** The one line the gateway logs for it (once per server), unless `--verbose` relays every message. */
  summary: string;
}

/**
 * Tells expected relay messages apart from the rest: a server (such as
 * server-filesystem) that asks for the client's roots when no client of the
 * gateway shares them, and a message that could not be sent because the
 * server had stopped (at shutdown, during a restart). They are summed up in
 * one line per server instead of being relayed at every start and stop.
 *
 * @example
 * relayChatter('Failed to request initial roots from client: MCP error -32600: ...')?.kind // 'roots-not-shared'
 * relayChatter('Error: ENOENT: no such file') // undefined
 */
export function relayChatter(line: string): RelayChatter | undefined {
  if (/roots/i.test(line) && /(fail|error|no client of this gateway shares)/i.test(line)) {
    return { kind: 'roots-not-shared', summary: "it asked for its client's roots, and no client of this gateway shares them (expected: it uses what it was started with)" };
  }
  if (/Failed to send (response|notification|request)|the server process is not running|Not connected|Connection closed/i.test(line)) {
    return { kind: 'lost-after-stop', summary: 'a message to it was dropped because it had stopped (expected while it stops or restarts)' };
  }
  return undefined;
}
