/**
 * What a host judge reads from disk beside the call: a file's text, for
 * the diff an edit is judged and shown as (only where reading needs
 * nobody's approval, a regular file, not a huge one), and a repository's
 * settings. A replay of history reads each once (keeping the texts last
 * read up to a budget); a hook or the server reads them for every call.
 */
import { resolveInZones, type Zone } from '../tools/fs/zones.ts';
import { readRegularFile } from './host-transcript.ts';

/** The largest file read to show an edit as a diff (host-call.ts turns a larger one into an edit). */
const MAX_READ_FOR_DIFF = 4 * 1024 * 1024;
/** How much of the files' text a replay's judge keeps for the edits that follow (the first read is the first let go); a replay has a judge per directory. */
const REPLAY_TEXT_CHARACTERS_KEPT = 1024 * 1024;

export interface HostFileTexts {
  /** `read()`, once per key in a replay; every time otherwise. */
  once<Value>(key: string, read: () => Value): Value;
  /** The text of a file (relative to `cwd`) an edit changes, where a read needs nobody's approval; else undefined. */
  readTextFor(cwd: string): (file: string) => string | undefined;
}

/**
 * The reads of one judge.
 *
 * @example
 * const texts = createHostFileTexts({ zones, replay: false });
 * const before = texts.readTextFor(input.cwd)('notes.md');
 */
export function createHostFileTexts(options: { zones: readonly Zone[]; replay: boolean }): HostFileTexts {
  const { zones } = options;
  // Replay reads a directory's repository settings and hooks once (a month of history asks about the same few folders again and
  // again, and nothing changes them meanwhile); a hook or the server reads them for every call.
  const readOnce = new Map<string, unknown>();
  const once = <Value>(key: string, read: () => Value): Value => {
    if (!options.replay) return read();
    if (!readOnce.has(key)) readOnce.set(key, read());
    return readOnce.get(key) as Value;
  };
  // An edit is judged as the write it makes, and the diff needs the file: read only where a read needs nobody's approval
  // (the diff is shown in the inbox, and to the token that sent the call: a file whose reads ask is not shown).
  const readTextFor = (cwd: string) => (file: string): string | undefined => {
    const resolved = resolveInZones({ zones, path: file, cwd, operation: 'read' });
    if (!resolved.ok || !resolved.exists || resolved.zone.approval.read !== 'allow') return undefined;
    // A regular file only (a named pipe would block the read, and the hook with it, past the host's timeout), and not a huge one.
    const text = options.replay ? replayedText(resolved.absolute) : readRegularFile(resolved.absolute, MAX_READ_FOR_DIFF);
    return text === 'too large' ? undefined : text;
  };
  // Replay reads a file an edit changes once for the edits that follow it (a month's edits go to the same files), keeping the
  // texts last read up to a budget.
  const textsRead = new Map<string, string | 'too large' | undefined>();
  let textsKept = 0;
  const replayedText = (file: string) => {
    if (textsRead.has(file)) return textsRead.get(file);
    const text = readRegularFile(file, MAX_READ_FOR_DIFF);
    // What no text was read for counts too: a history naming many missing or huge files is not kept for nothing.
    const size = (value: string | undefined) => Math.max(64, value === undefined || value === 'too large' ? 0 : value.length);
    textsRead.set(file, text);
    textsKept += size(text);
    for (const [kept, keptText] of textsRead) {
      if (textsKept <= REPLAY_TEXT_CHARACTERS_KEPT) break;
      textsRead.delete(kept);
      textsKept -= size(keptText);
    }
    return text;
  };
  return { once, readTextFor };
}
