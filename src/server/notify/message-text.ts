/**
 * Text for what leaves the server in a notification (a mail, a Slack
 * message): one line, cut to a length, and addresses the agent wrote made
 * unclickable (a mail or chat client links what looks like a URL).
 */

/**
 * `https://x` → `https[:]//x`, `www.x` → `www[.]x`.
 *
 * @example
 * defanged('see https://evil.example') // 'see https[:]//evil.example'
 */
export function defanged(line: string): string {
  return line.replace(/([A-Za-z][A-Za-z0-9+.-]*):\/\//g, '$1[:]//').replace(/\bwww\./gi, (match) => `${match.slice(0, -1)}[.]`);
}

/** Runs of whitespace folded into one space, cut to `max` characters. */
export function oneLine(text: string, max = 200): string {
  return cut(text.replace(/\s+/g, ' ').trim(), max);
}

/** At most `max` characters (code points), the last one `…` when cut. */
export function cut(text: string, max: number): string {
  const characters = Array.from(text);
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join('')}…`;
}
