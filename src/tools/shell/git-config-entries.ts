/**
 * git's configuration file syntax, read the way git's own parser reads it
 * (config.c): `[section]`, `[section "subsection"]` (backslash escapes any
 * character), the legacy `[section.subsection]`, `key = value` and a bare
 * `key` (true), comments after `#` or `;` outside quotes, values whose
 * quoted pieces are joined (`"ext"::sh` is `ext::sh`), escapes (`\n`,
 * `\t`, `\b`, `\"`, `\\`) and lines continued with a trailing backslash.
 * A check that tests a value must see the value git sees; a file git
 * would refuse is reported as such, and whoever reads it asks.
 * Pure: text in, entries out.
 */

export interface GitConfigEntry {
  /** `section.name` or `section.subsection.name`: section and name lower-cased as git does, the subsection as written. */
  key: string;
  /** The value as git reads it; undefined for a bare `key` (which git reads as true). */
  value: string | undefined;
}

export interface GitConfigParse {
  entries: GitConfigEntry[];
  /** Where git would stop with "bad config line", or where this reader gave up; entries after it are not read. */
  error: string | undefined;
}

const isKeyCharacter = (character: string): boolean => /^[A-Za-z0-9-]$/.test(character);
const isSpace = (character: string): boolean => character === ' ' || character === '\t' || character === '\v' || character === '\f' || character === '\r';

/**
 * Every entry of one configuration file, with its value as git reads it.
 *
 * @example
 * parseGitConfig('[remote "o"]\n\turl = "ext"::sh -c x # note\n')
 * // { entries: [{ key: 'remote.o.url', value: 'ext::sh -c x' }], error: undefined }
 */
export function parseGitConfig(text: string): GitConfigParse {
  const entries: GitConfigEntry[] = [];
  let at = text.startsWith('\uFEFF') ? 1 : 0;
  let line = 1;
  let section: string | undefined;
  const fail = (why: string): GitConfigParse => ({ entries, error: `line ${line}: ${why}` });
  // git reads "\r\n" as "\n".
  const next = (): string | undefined => {
    if (at >= text.length) return undefined;
    let character = text[at++]!;
    if (character === '\r' && text[at] === '\n') character = text[at++]!;
    if (character === '\n') line++;
    return character;
  };
  for (;;) {
    const character = next();
    if (character === undefined) return { entries, error: undefined };
    if (character === '\n' || isSpace(character)) continue;
    if (character === '#' || character === ';') {
      for (let skipped = next(); skipped !== undefined && skipped !== '\n'; skipped = next());
      continue;
    }
    if (character === '[') {
      const header = readHeader();
      if (header === undefined) return fail('a section header git does not accept');
      section = header;
      continue;
    }
    if (!/^[A-Za-z]$/.test(character)) return fail(`${JSON.stringify(character)} where a key should start`);
    if (section === undefined) return fail('a key before any section');
    let name = character.toLowerCase();
    let after = next();
    while (after !== undefined && isKeyCharacter(after)) {
      name += after.toLowerCase();
      after = next();
    }
    while (after !== undefined && isSpace(after)) after = next();
    if (after === undefined || after === '\n') {
      entries.push({ key: `${section}.${name}`, value: undefined });
      continue;
    }
    if (after !== '=') return fail(`${JSON.stringify(after)} after the key ${name}`);
    const value = readValue();
    if (value === undefined) return fail(`the value of ${name} is not one git accepts (an open quote or an unknown escape)`);
    entries.push({ key: `${section}.${name}`, value });
  }

  /** After `[`: the section, lower-cased, with its subsection; undefined where git would stop. */
  function readHeader(): string | undefined {
    let name = '';
    for (;;) {
      const character = next();
      if (character === undefined || character === '\n') return undefined;
      if (character === ']') return name === '' ? undefined : name;
      if (isSpace(character)) {
        let quote = next();
        while (quote !== undefined && isSpace(quote)) quote = next();
        if (quote !== '"' || name === '') return undefined;
        let subsection = '';
        for (;;) {
          let inner = next();
          if (inner === undefined || inner === '\n') return undefined;
          if (inner === '"') break;
          if (inner === '\\') {
            inner = next();
            if (inner === undefined || inner === '\n') return undefined;
          }
          subsection += inner;
        }
        return next() === ']' ? `${name}.${subsection}` : undefined;
      }
      if (!isKeyCharacter(character) && character !== '.') return undefined;
      name += character.toLowerCase();
    }
  }

  /** After `=`: the value as git builds it (config.c parse_value); undefined where git would stop. */
  function readValue(): string | undefined {
    let value = '';
    let quoted = false;
    let comment = false;
    let spaces = 0;
    for (;;) {
      const character = next();
      if (character === undefined || character === '\n') return quoted ? undefined : value;
      if (comment) continue;
      if (isSpace(character) && !quoted) {
        if (value !== '') spaces++;
        continue;
      }
      if (!quoted && (character === ';' || character === '#')) {
        comment = true;
        continue;
      }
      value += ' '.repeat(spaces);
      spaces = 0;
      if (character === '\\') {
        const escaped = next();
        if (escaped === '\n') continue;
        const meaning = escaped === undefined ? undefined : ({ t: '\t', b: '\b', n: '\n', '"': '"', '\\': '\\' } as Record<string, string>)[escaped];
        if (meaning === undefined) return undefined;
        value += meaning;
        continue;
      }
      if (character === '"') {
        quoted = !quoted;
        continue;
      }
      value += character;
    }
  }
}
