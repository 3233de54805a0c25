/**
 * Who has which pending card open in the web inbox ("claimed by NAME"), so
 * that two approvers do not decide the same call at once without knowing.
 * Each page reports the cards it has open every few seconds; a report not
 * renewed within `ttlMs` is gone (a closed tab, a phone put away). Kept in
 * this server's memory: it is a courtesy, not a lock, and deciding a card
 * another has open stays allowed (the first decision wins, as always).
 */

/** At most this many cards per report: a page has one open, or a group's. */
export const MAX_OPEN_CARDS = 50;

export interface ApprovalPresence {
  /** `name` has these cards open now (`run_id` and `tool_call_id`); replaces their last report. */
  report(name: string, open: ReadonlyArray<{ run_id: string; tool_call_id: string }>): void;
  /** The cards others have open, with their names (sorted), `name`'s own left out. */
  othersThan(name: string): Array<{ run_id: string; tool_call_id: string; names: string[] }>;
}

/**
 * @example
 * const presence = createApprovalPresence({ ttlMs: 20_000 });
 * presence.report('bob', [{ run_id: 'run_1', tool_call_id: 'tg_1_1' }]);
 * presence.othersThan('alice') // [{ run_id: 'run_1', tool_call_id: 'tg_1_1', names: ['bob'] }]
 */
export function createApprovalPresence(options: { ttlMs: number; now?: () => number }): ApprovalPresence {
  const now = options.now ?? Date.now;
  const reports = new Map<string, { open: Array<{ run_id: string; tool_call_id: string }>; until: number }>();
  return {
    report(name, open) {
      if (open.length === 0) reports.delete(name);
      else reports.set(name, { open: open.slice(0, MAX_OPEN_CARDS).map(({ run_id, tool_call_id }) => ({ run_id, tool_call_id })), until: now() + options.ttlMs });
    },
    othersThan(name) {
      const cards = new Map<string, { run_id: string; tool_call_id: string; names: string[] }>();
      for (const [who, report] of reports) {
        if (report.until <= now()) {
          reports.delete(who);
          continue;
        }
        if (who === name) continue;
        for (const card of report.open) {
          const key = JSON.stringify([card.run_id, card.tool_call_id]);
          const entry = cards.get(key) ?? { ...card, names: [] };
          entry.names.push(who);
          cards.set(key, entry);
        }
      }
      return [...cards.values()].map((entry) => ({ ...entry, names: entry.names.sort() }));
    },
  };
}
