/**
 * Something in a simple command that can run other code, write files or
 * change what later commands do. A hazard makes an otherwise allowed command
 * ask, unless the allow rule that matched names the hazardous word itself.
 */
export type HazardKind = 'exec' | 'write' | 'read' | 'environment' | 'unknown';

export interface Hazard {
  /**
   * The word it sits on (0 is the command name). A rule whose words reach
   * this index covers it (`git -c` covers `git -c x=y status`); undefined
   * means no rule can cover it.
   */
  index: number | undefined;
  kind: HazardKind;
  reason: string;
}

/**
 * A hazard on one word.
 *
 * @example
 * hazardAt({ index: 1, kind: 'exec', reason: 'git -c can set core.pager' })
 */
export function hazardAt(options: { index: number | undefined; kind: HazardKind; reason: string }): Hazard {
  return { index: options.index, kind: options.kind, reason: options.reason };
}
