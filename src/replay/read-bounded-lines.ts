import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

const EMPTY = Buffer.alloc(0);
const CHUNK_BYTES = 1 << 20;
/**
 * Read buffers kept for the next file: a buffer this large is the C
 * library's to place, and a new one per file of a few hundred left freed
 * ones scattered that the process never gave back (some 80 MB of a
 * month's replay).
 */
const spareChunks: Buffer[] = [];
const MAX_SPARE_CHUNKS = 2;

/**
 * One line of a file: its bytes (not yet decoded: most lines of a
 * transcript are looked into, not read), or (past the bound) only its
 * length, never held. `line` counts from 1. The bytes are a view of the
 * reader's buffer, good until the next line is asked for: decode or copy
 * what is kept.
 */
export type BoundedLine = { line: number; bytes: Buffer } | { line: number; tooLong: number };

/**
 * The lines of a regular file, each at most `maxBytes` long; a longer one
 * is skipped as it streams by (reported with its length), so one enormous
 * line never holds more than `maxBytes` in memory. Written here because
 * `node:readline` keeps a line whole however long it is. Synchronous, in
 * chunks of 1 MiB, each line a view of the chunk unless it spans two: a
 * replay reads hundreds of megabytes line by line, and a promise and a copy
 * per line were most of its garbage. Opened without blocking and
 * checked to be a regular file once open (a named pipe would never end).
 *
 * @example
 * for (const item of readBoundedLines({ file: 'a.jsonl', maxBytes: 1 << 24 })) if ('bytes' in item) handle(item.bytes.toString('utf8'));
 */
export function* readBoundedLines(options: { file: string; maxBytes: number }): Generator<BoundedLine, void, undefined> {
  const { maxBytes } = options;
  const descriptor = openSync(options.file, constants.O_RDONLY | constants.O_NONBLOCK);
  const chunk = spareChunks.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
  try {
    if (!fstatSync(descriptor).isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
    let parts: Buffer[] = [];
    let held = 0;
    // Bytes of the current line seen past the bound: it is being skipped.
    let skipped = 0;
    let line = 0;
    const finish = (tail: Buffer): BoundedLine => {
      line += 1;
      if (skipped > 0) {
        const length = skipped;
        skipped = 0;
        return { line, tooLong: length };
      }
      // A view of the chunk (no copy of some 700 MB in a month of history: its garbage was most of replay's peak memory), or the
      // parts of a line that spans chunks joined.
      const bytes = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
      parts = [];
      held = 0;
      return { line, bytes: bytes.at(-1) === 13 ? bytes.subarray(0, -1) : bytes };
    };
    for (let read = readSync(descriptor, chunk, 0, CHUNK_BYTES, null); read > 0; read = readSync(descriptor, chunk, 0, CHUNK_BYTES, null)) {
      const data = chunk.subarray(0, read);
      let start = 0;
      for (let end = data.indexOf(10, start); end !== -1; end = data.indexOf(10, start)) {
        const tail = data.subarray(start, end);
        if (skipped > 0) skipped += tail.length;
        else if (held + tail.length > maxBytes) skipLine(tail.length);
        yield finish(skipped > 0 ? EMPTY : tail);
        start = end + 1;
      }
      const rest = data.subarray(start);
      if (rest.length === 0) continue;
      if (skipped > 0) skipped += rest.length;
      else if (held + rest.length > maxBytes) skipLine(rest.length);
      else {
        parts.push(Buffer.from(rest));
        held += rest.length;
      }
    }
    if (held > 0 || skipped > 0) yield finish(EMPTY);

    function skipLine(more: number): void {
      skipped += held + more;
      parts = [];
      held = 0;
    }
  } finally {
    closeSync(descriptor);
    if (spareChunks.length < MAX_SPARE_CHUNKS) spareChunks.push(chunk);
  }
}
