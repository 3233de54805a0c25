import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

const EMPTY = Buffer.alloc(0);
const CHUNK_BYTES = 1 << 20;

/** One line of a file: its bytes (not yet decoded: most lines of a transcript are looked into, not read), or (past the bound) only its length, never held. `line` counts from 1. */
export type BoundedLine = { line: number; bytes: Buffer } | { line: number; tooLong: number };

/**
 * The lines of a regular file, each at most `maxBytes` long; a longer one
 * is skipped as it streams by (reported with its length), so one enormous
 * line never holds more than `maxBytes` in memory. Written here because
 * `node:readline` keeps a line whole however long it is. Synchronous, in
 * chunks of 1 MiB: a replay reads hundreds of megabytes line by line, and a
 * promise per line was most of its garbage. Opened without blocking and
 * checked to be a regular file once open (a named pipe would never end).
 *
 * @example
 * for (const item of readBoundedLines({ file: 'a.jsonl', maxBytes: 1 << 24 })) if ('bytes' in item) handle(item.bytes.toString('utf8'));
 */
export function* readBoundedLines(options: { file: string; maxBytes: number }): Generator<BoundedLine, void, undefined> {
  const { maxBytes } = options;
  const descriptor = openSync(options.file, constants.O_RDONLY | constants.O_NONBLOCK);
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
      // A copy: the chunk is read into again.
      const bytes = parts.length === 0 ? Buffer.from(tail) : Buffer.concat([...parts, tail]);
      parts = [];
      held = 0;
      return { line, bytes: bytes.at(-1) === 13 ? bytes.subarray(0, -1) : bytes };
    };
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
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
  }
}
